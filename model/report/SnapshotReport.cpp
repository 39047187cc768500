#include "model/report/SnapshotReport.h"

#include "model/report/JsonWriter.h"
#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/snapshot/SnapshotSites.h"
#include "model/text/Text.h"

#include <QStringList>

namespace gapscope {

namespace {

QString poolText(const SegmentPoolId& pool)
{
    return QStringLiteral("(%1, %2)").arg(pool.first).arg(pool.second);
}

// The rows every text form prints: label, value.
std::vector<std::pair<QString, QString>> rows(const SnapshotData& data, const SnapshotSummary& summary)
{
    const SnapshotTotals& t = summary.totals;
    const auto bytes = [](int64_t n) { return QStringLiteral("%1 (%2 bytes)").arg(bytesText(n)).arg(n); };
    QStringList actions;
    for (size_t i = 0; i < kTraceActionCount; ++i)
        if (summary.traceEntriesByAction[i] > 0)
            actions << QStringLiteral("%1 %2")
                           .arg(QLatin1StringView(toString(TraceAction(i))))
                           .arg(summary.traceEntriesByAction[i]);
    QStringList devices;
    for (const int64_t device : data.devices())
        devices << QString::number(device);
    QStringList pools;
    for (const SnapshotPoolCount& pool : summary.pools)
        pools << QStringLiteral("%1: %2 (%3)")
                     .arg(poolText(pool.pool))
                     .arg(pool.segments)
                     .arg(bytesText(pool.reservedBytes));
    QStringList streams;
    for (const SnapshotStreamCount& stream : summary.streams)
        streams << QStringLiteral("%1: %2 (%3)")
                       .arg(stream.stream)
                       .arg(stream.segments)
                       .arg(bytesText(stream.reservedBytes));
    std::vector<std::pair<QString, QString>> out{
        {QStringLiteral("Segments"),
         englishPlural(QStringLiteral("%1 (%2 block(s))").arg(t.segmentCount).arg(t.blockCount),
                       t.blockCount)},
        {QStringLiteral("Reserved"), bytes(t.reservedBytes)},
        {QStringLiteral("Allocated"), bytes(t.allocatedBytes)},
        {QStringLiteral("Active"), bytes(t.activeBytes)},
        {QStringLiteral("Requested"), bytes(t.requestedBytes)},
        {QStringLiteral("Inactive split"), bytes(t.inactiveSplitBytes)},
        {QStringLiteral("Largest free block"), bytes(t.largestFreeBlockBytes)},
        {QStringLiteral("Trace entries"), actions.isEmpty() ? QString::number(summary.traceEntryCount)
                                                            : QStringLiteral("%1 (%2)")
                                                                  .arg(summary.traceEntryCount)
                                                                  .arg(actions.join(QStringLiteral(", ")))},
        {QStringLiteral("Devices"),
         devices.isEmpty() ? QStringLiteral("none") : devices.join(QStringLiteral(", "))},
        {QStringLiteral("Segments per pool"), pools.join(QStringLiteral(", "))},
        {QStringLiteral("Segments per stream"), streams.join(QStringLiteral(", "))},
        {QStringLiteral("Distinct stacks"), QString::number(summary.frameStackCount)},
    };
    if (!data.ignoredKeys.isEmpty())
        out.emplace_back(QStringLiteral("Keys not read"), data.ignoredKeys.join(QStringLiteral(", ")));
    if (!data.problems.empty())
        out.emplace_back(
            QStringLiteral("Records left out"),
            QStringLiteral("%1 (first: %2)")
                .arg(data.problems.errorCount())
                .arg(data.problems.kept().empty() ? QString() : data.problems.kept().front().reason));
    return out;
}

// The allocation sites the reports list: by stack, the most bytes at the peak first.
constexpr size_t kJsonSites = 20;
constexpr size_t kTextSites = 10;
constexpr int kJsonSiteFrames = 5;

// "peak_active_bytes", "site_count" and "sites": the first kJsonSites sites.
void writeSitesJson(JsonWriter& json, const SnapshotData& data)
{
    const SnapshotSites sites = buildSnapshotSites(data, SiteGrouping::Stack);
    json.field("peak_active_bytes", sites.peakActiveBytes);
    json.field("site_count", int64_t(sites.sites.size()));
    json.key("sites").beginArray();
    for (size_t i = 0; i < std::min(kJsonSites, sites.sites.size()); ++i) {
        const SnapshotSite& site = sites.sites[i];
        json.beginObject();
        json.field("name", site.name);
        json.key("frames").beginArray();
        for (const QString& frame : stackTopFrames(data, site.frames, kJsonSiteFrames))
            json.value(frame);
        json.endArray();
        json.field("bytes_at_peak", site.bytesAtPeak);
        json.field("bytes_at_snapshot", site.bytesAtSnapshot);
        json.field("allocations", site.allocations);
        json.field("largest_bytes", site.largestBytes);
        json.field("total_bytes", site.totalBytes);
        json.endObject();
    }
    json.endArray();
}

// The first kTextSites sites, a heading and a line each ({} when none: no stack was recorded).
std::vector<QStringList> siteRows(const SnapshotData& data, int64_t* siteCount, int64_t* peakBytes)
{
    const SnapshotSites sites = buildSnapshotSites(data, SiteGrouping::Stack);
    *siteCount = int64_t(sites.sites.size());
    *peakBytes = sites.peakActiveBytes;
    std::vector<QStringList> rows;
    for (size_t i = 0; i < std::min(kTextSites, sites.sites.size()); ++i) {
        const SnapshotSite& site = sites.sites[i];
        rows.push_back({bytesText(site.bytesAtPeak), bytesText(site.bytesAtSnapshot),
                        countText(site.allocations), bytesText(site.largestBytes), bytesText(site.totalBytes),
                        site.name});
    }
    return rows;
}

QString sitesHeading(int64_t siteCount, int64_t peakBytes)
{
    return QStringLiteral("Allocation sites: %1 of %2, by bytes live at the active peak (%3)")
        .arg(std::min<int64_t>(siteCount, int64_t(kTextSites)))
        .arg(siteCount)
        .arg(bytesText(peakBytes));
}

QString sitesMarkdown(const SnapshotData& data)
{
    int64_t count = 0, peak = 0;
    const std::vector<QStringList> rows = siteRows(data, &count, &peak);
    if (rows.empty())
        return {};
    QString out = QStringLiteral("\n## %1\n\n| At peak | At snapshot | Allocations | Largest | Total "
                                 "allocated | Site |\n|--:|--:|--:|--:|--:|---|\n")
                      .arg(sitesHeading(count, peak));
    for (const QStringList& row : rows) {
        QStringList cells;
        for (const QString& cell : row)
            cells << markdownEscape(cell);
        out += QStringLiteral("| %1 |\n").arg(cells.join(QStringLiteral(" | ")));
    }
    return out;
}

QString sitesText(const SnapshotData& data)
{
    int64_t count = 0, peak = 0;
    const std::vector<QStringList> rows = siteRows(data, &count, &peak);
    if (rows.empty())
        return {};
    QString out = QStringLiteral("\n%1:\n%2 %3 %4 %5 %6  %7\n")
                      .arg(sitesHeading(count, peak))
                      .arg(QStringLiteral("At peak"), 11)
                      .arg(QStringLiteral("At snapshot"), 11)
                      .arg(QStringLiteral("Allocs"), 7)
                      .arg(QStringLiteral("Largest"), 11)
                      .arg(QStringLiteral("Total"), 11)
                      .arg(QStringLiteral("Site"));
    for (const QStringList& row : rows)
        out += QStringLiteral("%1 %2 %3 %4 %5  %6\n")
                   .arg(row[0], 11)
                   .arg(row[1], 11)
                   .arg(row[2], 7)
                   .arg(row[3], 11)
                   .arg(row[4], 11)
                   .arg(row[5]);
    return out;
}

} // namespace

QByteArray snapshotReportJson(const SnapshotData& data, const SnapshotSummary& summary)
{
    const SnapshotTotals& t = summary.totals;
    JsonWriter json;
    json.beginObject().key("snapshot").beginObject();
    json.field("path", data.path);
    json.field("segment_count", t.segmentCount);
    json.field("block_count", t.blockCount);
    json.field("reserved_bytes", t.reservedBytes);
    json.field("allocated_bytes", t.allocatedBytes);
    json.field("active_bytes", t.activeBytes);
    json.field("requested_bytes", t.requestedBytes);
    json.field("inactive_split_bytes", t.inactiveSplitBytes);
    json.field("largest_free_block_bytes", t.largestFreeBlockBytes);
    json.field("trace_entry_count", summary.traceEntryCount);
    json.key("trace_entries_by_action").beginObject();
    for (size_t i = 0; i < kTraceActionCount; ++i)
        json.field(toString(TraceAction(i)), summary.traceEntriesByAction[i]);
    json.endObject();
    json.key("devices").beginArray();
    for (const SnapshotDeviceTotals& device : summary.devices) {
        json.beginObject();
        json.field("device", device.device);
        json.field("segment_count", device.totals.segmentCount);
        json.field("reserved_bytes", device.totals.reservedBytes);
        json.field("allocated_bytes", device.totals.allocatedBytes);
        json.field("active_bytes", device.totals.activeBytes);
        json.endObject();
    }
    json.endArray();
    json.key("pools").beginArray();
    for (const SnapshotPoolCount& pool : summary.pools) {
        json.beginObject();
        json.key("pool").beginArray().value(pool.pool.first).value(pool.pool.second).endArray();
        json.field("segments", pool.segments);
        json.field("reserved_bytes", pool.reservedBytes);
        json.endObject();
    }
    json.endArray();
    json.key("streams").beginArray();
    for (const SnapshotStreamCount& stream : summary.streams) {
        json.beginObject();
        json.field("stream", stream.stream);
        json.field("segments", stream.segments);
        json.field("reserved_bytes", stream.reservedBytes);
        json.endObject();
    }
    json.endArray();
    json.field("frame_stack_count", summary.frameStackCount);
    json.key("allocator_settings").beginObject();
    for (const SnapshotSetting& setting : data.allocatorSettings)
        json.key(setting.name.toStdString()).value(setting.value);
    json.endObject();
    json.key("ignored_keys").beginArray();
    for (const QString& key : data.ignoredKeys)
        json.value(key);
    json.endArray();
    json.key("problems").beginObject();
    json.field("errors", int64_t(data.problems.errorCount()));
    json.field("warnings", int64_t(data.problems.warningCount()));
    json.endObject();
    writeSitesJson(json, data);
    json.endObject().endObject();
    QByteArray out = json.take();
    out += '\n';
    return out;
}

QString snapshotReportMarkdown(const SnapshotData& data, const SnapshotSummary& summary)
{
    QString out = QStringLiteral("# PyTorch memory snapshot\n\n`%1`\n\n| | |\n|---|---|\n").arg(data.path);
    for (const auto& [label, value] : rows(data, summary))
        out += QStringLiteral("| %1 | %2 |\n").arg(label, markdownEscape(value));
    return out + sitesMarkdown(data);
}

QString snapshotReportText(const SnapshotData& data, const SnapshotSummary& summary)
{
    QString out = QStringLiteral("PyTorch memory snapshot: %1\n").arg(data.path);
    for (const auto& [label, value] : rows(data, summary))
        out += QStringLiteral("%1 %2\n").arg(label + QLatin1Char(':'), -21).arg(value);
    return out + sitesText(data);
}

} // namespace gapscope
