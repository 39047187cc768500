#include "model/report/SnapshotReport.h"

#include "model/report/JsonWriter.h"
#include "model/snapshot/SnapshotFragmentation.h"
#include "model/snapshot/SnapshotSegmentMap.h"
#include "model/snapshot/SnapshotSites.h"
#include "model/text/Text.h"

#include <QStringList>
#include <QUrl>

#include <algorithm>
#include <limits>
#include <optional>

namespace gapscope {

namespace {

QString poolText(const SegmentPoolId& pool)
{
    return QStringLiteral("(%1, %2)").arg(pool.first).arg(pool.second);
}

QString bytesAndCount(int64_t n)
{
    return QStringLiteral("%1 (%2 bytes)").arg(bytesText(n)).arg(n);
}

// The rows `analyze --format text` prints: label, value.
std::vector<std::pair<QString, QString>> textRows(const SnapshotData& data, const SnapshotSummary& summary)
{
    const SnapshotTotals& t = summary.totals;
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
        {QStringLiteral("Reserved"), bytesAndCount(t.reservedBytes)},
        {QStringLiteral("Allocated"), bytesAndCount(t.allocatedBytes)},
        {QStringLiteral("Active"), bytesAndCount(t.activeBytes)},
        {QStringLiteral("Requested"), bytesAndCount(t.requestedBytes)},
        {QStringLiteral("Inactive split"), bytesAndCount(t.inactiveSplitBytes)},
        {QStringLiteral("Largest free block"), bytesAndCount(t.largestFreeBlockBytes)},
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

// What the file holds of PyTorch's layout: its traces and their clock, stacks, settings, annotations.
std::vector<std::pair<QString, QString>> inputRows(const SnapshotData& data, const SnapshotSummary& summary)
{
    std::vector<std::pair<QString, QString>> rows{{QStringLiteral("Path"), data.path}};
    rows.emplace_back(QStringLiteral("File"),
                      data.compressed
                          ? QStringLiteral("%1, gzip-compressed").arg(bytesAndCount(data.inputBytes))
                          : bytesAndCount(data.inputBytes));
    rows.emplace_back(QStringLiteral("Pickle"), bytesAndCount(data.pickleBytes));
    const std::vector<int64_t> devices = data.devices();
    QStringList deviceNames;
    for (const int64_t device : devices)
        deviceNames << QString::number(device);
    rows.emplace_back(QStringLiteral("Devices"), deviceNames.isEmpty()
                                                     ? QStringLiteral("none")
                                                     : deviceNames.join(QStringLiteral(", ")));
    // the trace's clock: time_us since the epoch (PyTorch 2.2 and later)
    std::optional<int64_t> first, last;
    for (const SnapshotTrace& trace : data.traces)
        for (const int64_t us : trace.timesUs)
            if (us != SnapshotTrace::kNoTime) {
                first = std::min(first.value_or(us), us);
                last = std::max(last.value_or(us), us);
            }
    QString trace;
    if (summary.traceEntryCount == 0) {
        trace = QStringLiteral("none (torch.cuda.memory._record_memory_history was off)");
    } else {
        int64_t tracedDevices = 0;
        for (const SnapshotTrace& t : data.traces)
            tracedDevices += t.count() > 0 ? 1 : 0;
        trace = englishPlural(QStringLiteral("%1 entries on %2 device(s)")
                                  .arg(countText(summary.traceEntryCount))
                                  .arg(tracedDevices),
                              tracedDevices);
        constexpr int64_t kLastMicrosecondAsNs = std::numeric_limits<int64_t>::max() / 1000;
        trace += first && last && *first >= -kLastMicrosecondAsNs && *last <= kLastMicrosecondAsNs
                     ? QStringLiteral(", time_us from %1 to %2")
                           .arg(formatUtcTime(*first * 1000), formatUtcTime(*last * 1000))
                     : QStringLiteral(", without time_us (PyTorch before 2.2)");
    }
    rows.emplace_back(QStringLiteral("Trace"), trace);
    rows.emplace_back(
        QStringLiteral("Stacks"),
        summary.frameStackCount == 0
            ? QStringLiteral("none recorded")
            : englishPlural(QStringLiteral("%1 distinct stack(s)").arg(countText(summary.frameStackCount)),
                            summary.frameStackCount) +
                  englishPlural(QStringLiteral(" of %1 frame(s)").arg(countText(data.frames.frames.size())),
                                qint64(data.frames.frames.size())));
    const auto expandable = std::count_if(data.segments.begin(), data.segments.end(),
                                          [](const SnapshotSegment& s) { return s.isExpandable; });
    rows.emplace_back(QStringLiteral("Expandable segments"),
                      expandable == 0 ? QStringLiteral("none")
                                      : QStringLiteral("%1 of %2").arg(expandable).arg(data.segments.size()));
    rows.emplace_back(QStringLiteral("Allocator settings"),
                      data.allocatorSettings.empty()
                          ? QStringLiteral("none recorded (PyTorch before 2.5)")
                          : englishPlural(QStringLiteral("%1 recorded").arg(data.allocatorSettings.size()),
                                          qint64(data.allocatorSettings.size())));
    if (!data.annotations.empty())
        rows.emplace_back(QStringLiteral("Annotations"),
                          QStringLiteral("%1 external_annotations %2 (record_function ranges)")
                              .arg(countText(data.annotations.size()), data.annotations.size() == 1
                                                                           ? QStringLiteral("entry")
                                                                           : QStringLiteral("entries")));
    return rows;
}

SnapshotReportSection totalsSection(const SnapshotTotals& t)
{
    SnapshotReportSection section;
    section.title = QStringLiteral("Totals");
    section.intro = QStringLiteral("Named as the allocator's own counters are (torch.cuda.memory_stats(): "
                                   "<counter>.all.current), each summed from the snapshot's segments and "
                                   "blocks.");
    section.table.header = QStringList{QStringLiteral("Total"), QStringLiteral("Counter"),
                                       QStringLiteral("Value"), QStringLiteral("Bytes")};
    section.table.rows = {
        {QStringLiteral("Segments"), QStringLiteral("segment"), countText(t.segmentCount), QString()},
        {QStringLiteral("Reserved"), QStringLiteral("reserved_bytes"), bytesText(t.reservedBytes),
         QString::number(t.reservedBytes)},
        {QStringLiteral("Allocated"), QStringLiteral("allocated_bytes"), bytesText(t.allocatedBytes),
         QString::number(t.allocatedBytes)},
        {QStringLiteral("Active"), QStringLiteral("active_bytes"), bytesText(t.activeBytes),
         QString::number(t.activeBytes)},
        {QStringLiteral("Requested"), QStringLiteral("requested_bytes"), bytesText(t.requestedBytes),
         QString::number(t.requestedBytes)},
        {QStringLiteral("Inactive split"), QStringLiteral("inactive_split_bytes"),
         bytesText(t.inactiveSplitBytes), QString::number(t.inactiveSplitBytes)},
    };
    return section;
}

SnapshotReportSection devicesSection(const SnapshotSummary& summary)
{
    SnapshotReportSection section;
    section.title = QStringLiteral("Per device");
    section.table.header =
        QStringList{QStringLiteral("Device"),        QStringLiteral("Segments"), QStringLiteral("Reserved"),
                    QStringLiteral("Allocated"),     QStringLiteral("Active"),   QStringLiteral("Requested"),
                    QStringLiteral("Inactive split")};
    for (const SnapshotDeviceTotals& device : summary.devices) {
        const SnapshotTotals& t = device.totals;
        section.table.rows.push_back({QString::number(device.device), countText(t.segmentCount),
                                      bytesText(t.reservedBytes), bytesText(t.allocatedBytes),
                                      bytesText(t.activeBytes), bytesText(t.requestedBytes),
                                      bytesText(t.inactiveSplitBytes)});
    }
    section.empty = QStringLiteral("The snapshot holds no segment.");
    return section;
}

SnapshotReportSection poolsSection(const SnapshotData& data)
{
    SnapshotReportSection section;
    section.title = QStringLiteral("Segments by stream and pool");
    section.intro = QStringLiteral("Pool (0, 0) is the default pool; others are CUDA graphs' private pools "
                                   "(segment_pool_id).");
    section.table.header = QStringList{QStringLiteral("Device"),
                                       QStringLiteral("Stream"),
                                       QStringLiteral("Pool"),
                                       QStringLiteral("Segments"),
                                       QStringLiteral("Reserved"),
                                       QStringLiteral("Inactive split"),
                                       QStringLiteral("Largest free block")};
    for (const PoolFragmentation& pool : poolFragmentation(data))
        section.table.rows.push_back({QString::number(pool.device), QString::number(pool.stream),
                                      poolText(pool.pool), countText(pool.segments),
                                      bytesText(pool.reservedBytes), bytesText(pool.inactiveSplitBytes),
                                      bytesText(pool.largestFreeBlockBytes)});
    section.empty = QStringLiteral("The snapshot holds no segment.");
    return section;
}

SnapshotReportSection actionsSection(const SnapshotSummary& summary)
{
    SnapshotReportSection section;
    section.title = QStringLiteral("Trace entries by action");
    section.table.header = QStringList{QStringLiteral("Action"), QStringLiteral("Entries")};
    for (size_t a = 0; a < kTraceActionCount; ++a)
        if (summary.traceEntriesByAction[a] > 0)
            section.table.rows.push_back(
                {QString::fromLatin1(toString(TraceAction(a))), countText(summary.traceEntriesByAction[a])});
    section.empty =
        QStringLiteral("The snapshot holds no trace (torch.cuda.memory._record_memory_history was off).");
    return section;
}

SnapshotReportSection settingsSection(const SnapshotData& data)
{
    SnapshotReportSection section;
    section.title = QStringLiteral("Allocator settings in force");
    section.table.header = QStringList{QStringLiteral("Setting"), QStringLiteral("Value")};
    for (const SnapshotSetting& setting : data.allocatorSettings)
        section.table.rows.push_back(
            {setting.name, setting.value.isEmpty() ? QStringLiteral("(empty)") : setting.value});
    section.empty = QStringLiteral("The snapshot records no allocator_settings (PyTorch before 2.5).");
    return section;
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

// The first sites as a section of the human reports; nullopt when no stack was recorded.
std::optional<SnapshotReportSection> sitesSection(const SnapshotData& data)
{
    int64_t count = 0, peak = 0;
    std::vector<QStringList> rows = siteRows(data, &count, &peak);
    if (rows.empty())
        return std::nullopt;
    SnapshotReportSection section;
    section.title = sitesHeading(count, peak);
    section.intro = QStringLiteral("Allocations grouped by their stack of frames (Python and C++), the most "
                                   "bytes live at the peak of active memory first.");
    section.table.header = QStringList{QStringLiteral("At peak"),         QStringLiteral("At snapshot"),
                                       QStringLiteral("Allocations"),     QStringLiteral("Largest"),
                                       QStringLiteral("Total allocated"), QStringLiteral("Site")};
    section.table.rows = std::move(rows);
    return section;
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

QString largestFreeBlockText(const SnapshotData& data)
{
    const SnapshotBlock* largest = nullptr;
    for (const SnapshotBlock& block : data.blocks)
        if (block.state == BlockState::Inactive && (!largest || block.size > largest->size))
            largest = &block;
    if (!largest)
        return QStringLiteral("No block is free: every segment is in use to its end.");
    const SnapshotSegment& segment = data.segments[largest->segment];
    return QStringLiteral("The largest free block is %1, %2 at 0x%3 (%4, device %5, stream %6, "
                          "pool %7): a request larger than it cannot be served from the blocks the "
                          "allocator holds, so it reserves a new segment (or frees its cached ones first).")
        .arg(bytesAndCount(largest->size),
             segment.blockCount == 1 ? QStringLiteral("the whole of the segment")
                                     : QStringLiteral("in the segment"),
             QString::number(segment.address, 16), bytesText(segment.totalSize))
        .arg(segment.device)
        .arg(segment.stream)
        .arg(poolText(segment.pool));
}

} // namespace

SnapshotReportInput snapshotReportInput(std::shared_ptr<const SnapshotData> data)
{
    SnapshotReportInput input;
    if (!data)
        return input;
    input.summary = summarizeSnapshot(*data);
    input.findings = std::make_shared<const std::vector<Finding>>(snapshotFragmentationFindings(*data));
    input.data = std::move(data);
    return input;
}

SnapshotReportContent buildSnapshotReportContent(const SnapshotReportInput& input)
{
    SnapshotReportContent c;
    if (!input.data)
        return c;
    const SnapshotData& data = *input.data;
    const SnapshotSummary& summary = input.summary;
    c.path = data.path;
    c.input = inputRows(data, summary);
    c.totals = totalsSection(summary.totals);
    c.sections = {devicesSection(summary), poolsSection(data)};
    // where the memory came from, after where it lies; the active-memory timeline goes here too
    if (std::optional<SnapshotReportSection> sites = sitesSection(data))
        c.sections.push_back(std::move(*sites));
    c.sections.push_back(actionsSection(summary));
    c.sections.push_back(settingsSection(data));
    c.largestFreeBlock = largestFreeBlockText(data);
    if (input.findings)
        for (const Finding& f : *input.findings)
            c.findings.push_back(toReportFinding(f, 0));
    c.noFindings =
        noFragmentationFindingText(summary.totals.inactiveSplitBytes, summary.totals.reservedBytes);
    c.ignoredKeys = data.ignoredKeys;
    c.problems.title = QStringLiteral("Records left out");
    c.problems.intro = englishPlural(QStringLiteral("%1 error(s)").arg(data.problems.errorCount()),
                                     data.problems.errorCount()) +
                       englishPlural(QStringLiteral(", %1 warning(s).").arg(data.problems.warningCount()),
                                     data.problems.warningCount());
    c.problems.table.header = QStringList{QStringLiteral("Level"), QStringLiteral("Reason")};
    const std::vector<LoadProblem>& kept = data.problems.kept();
    for (size_t i = 0; i < std::min(kReportedProblems, kept.size()); ++i)
        c.problems.table.rows.push_back(
            {kept[i].level == LoadProblem::Level::Error ? QStringLiteral("error") : QStringLiteral("warning"),
             kept[i].reason});
    c.problemsNotListed =
        data.problems.errorCount() + data.problems.warningCount() - qint64(c.problems.table.rows.size());
    return c;
}

QByteArray snapshotReportJson(const SnapshotReportInput& input)
{
    if (!input.data)
        return {};
    const SnapshotData& data = *input.data;
    const SnapshotSummary& summary = input.summary;
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
    json.key("findings").beginArray();
    if (input.findings)
        for (const Finding& f : *input.findings) {
            json.beginObject();
            json.field("classification", toString(f.classification));
            json.field("severity", toString(f.severity));
            json.field("confidence", f.confidence);
            json.key("evidence").beginObject();
            for (const EvidenceValue& e : f.evidence) {
                json.key(e.key);
                if (e.isInteger)
                    json.value(int64_t(e.value));
                else
                    json.value(e.value);
            }
            json.endObject();
            json.field("description", f.description);
            json.key("remediation").beginArray();
            for (const std::string& step : f.remediation)
                json.value(step);
            json.endArray();
            json.endObject();
        }
    json.endArray();
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

QString snapshotReportText(const SnapshotReportInput& input)
{
    if (!input.data)
        return {};
    QString out = QStringLiteral("PyTorch memory snapshot: %1\n").arg(input.data->path);
    for (const auto& [label, value] : textRows(*input.data, input.summary))
        out += QStringLiteral("%1 %2\n").arg(label + QLatin1Char(':'), -21).arg(value);
    if (const QString sites = sitesText(*input.data); !sites.isEmpty())
        out += sites + QLatin1Char('\n');
    const SnapshotTotals& t = input.summary.totals;
    if (!input.findings || input.findings->empty())
        out += noFragmentationFindingText(t.inactiveSplitBytes, t.reservedBytes) + QLatin1Char('\n');
    else
        for (const Finding& f : *input.findings)
            out +=
                QStringLiteral("%1 (%2): %3\n")
                    .arg(classificationTitle(f.classification), qs(toString(f.severity)), qs(f.description));
    return out;
}

namespace {

void markdownSection(QString& out, const SnapshotReportSection& section)
{
    out += QStringLiteral("\n## %1\n\n").arg(markdownEscape(section.title));
    if (!section.intro.isEmpty())
        out += markdownEscape(section.intro) + QStringLiteral("\n\n");
    out += section.table.rows.empty() ? markdownEscape(section.empty) + QLatin1Char('\n')
                                      : reportTableMarkdown(section.table);
}

void htmlSection(QString& out, const SnapshotReportSection& section)
{
    out += QStringLiteral("<h2>%1</h2>\n").arg(htmlEscape(section.title));
    if (!section.intro.isEmpty())
        out += QStringLiteral("<p>%1</p>\n").arg(htmlEscape(section.intro));
    out += section.table.rows.empty()
               ? QStringLiteral("<p class=\"none\">%1</p>\n").arg(htmlEscape(section.empty))
               : reportTableHtml(section.table);
}

} // namespace

QString snapshotFindingMarkdown(const SnapshotReportContent& c, size_t index, bool standalone)
{
    if (index >= c.findings.size())
        return {};
    const ReportFinding& f = c.findings[index];
    QString out = QStringLiteral("### %1. %2 (%3, confidence %4)\n\n%5\n\n- Classification: %6\n")
                      .arg(index + 1)
                      .arg(classificationTitle(f.classification), qs(toString(f.severity)),
                           confidenceText(f.confidence), markdownEscape(f.description),
                           markdownEscape(qs(toString(f.classification))));
    if (standalone)
        out += QStringLiteral("- Input: %1 (PyTorch memory snapshot)\n").arg(markdownEscape(c.path));
    out += QLatin1Char('\n');
    if (!f.evidence.empty()) {
        ReportTable evidence{QStringList{QStringLiteral("Evidence"), QStringLiteral("Value")}, {}};
        for (const ReportEvidence& e : f.evidence)
            evidence.rows.push_back({qs(e.key), e.text});
        out += reportTableMarkdown(evidence) + QLatin1Char('\n');
    }
    if (!f.remediation.isEmpty()) {
        out += QStringLiteral("**What to try**\n\n");
        for (qsizetype i = 0; i < f.remediation.size(); ++i)
            out += QStringLiteral("%1. %2\n").arg(i + 1).arg(markdownEscape(f.remediation[i]));
        out += QLatin1Char('\n');
    }
    return out;
}

QString snapshotReportMarkdown(const SnapshotReportContent& c, const std::vector<ReportImage>& images)
{
    QString out = QStringLiteral("# PyTorch memory snapshot report\n\n| | |\n|---|---|\n");
    for (const auto& [label, value] : c.input)
        out += QStringLiteral("| %1 | %2 |\n").arg(markdownEscape(label), markdownEscape(value));
    markdownSection(out, c.totals);
    for (const SnapshotReportSection& section : c.sections)
        markdownSection(out, section);
    out += QStringLiteral("\n## Largest free block\n\n%1\n").arg(markdownEscape(c.largestFreeBlock));
    if (!images.empty()) {
        out += QStringLiteral("\n## Segment map\n");
        for (const ReportImage& image : images)
            out += image.fileName.isEmpty()
                       ? QStringLiteral("\n*%1*: a picture written beside the report when the report is "
                                        "written to a file.\n")
                             .arg(markdownEscape(image.title))
                       : QStringLiteral("\n![%1](%2)\n\n**%1.** %3\n")
                             .arg(markdownEscape(image.title),
                                  QString::fromLatin1(QUrl::toPercentEncoding(image.fileName)),
                                  markdownEscape(image.caption));
    }
    out += QStringLiteral("\n## Findings\n\n");
    if (c.findings.empty())
        out += markdownEscape(c.noFindings) + QStringLiteral("\n\n");
    for (size_t i = 0; i < c.findings.size(); ++i)
        out += snapshotFindingMarkdown(c, i, false);
    if (!c.ignoredKeys.isEmpty())
        out +=
            QStringLiteral("## Keys not read\n\nRead past, not an error (what a newer PyTorch adds): %1\n\n")
                .arg(markdownEscape(c.ignoredKeys.join(QStringLiteral(", "))));
    if (!c.problems.table.rows.empty()) {
        markdownSection(out, c.problems);
        if (c.problemsNotListed > 0)
            out += QStringLiteral("\n%1 more not listed.\n").arg(c.problemsNotListed);
    }
    return out;
}

QString snapshotReportHtml(const SnapshotReportContent& c, const std::vector<ReportImage>& images)
{
    QString out =
        QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n"
                       "<meta name=\"color-scheme\" content=\"light dark\" />\n");
    out += QStringLiteral("<title>gapscope snapshot report: %1</title>\n")
               .arg(htmlEscape(c.path.section(QLatin1Char('/'), -1)));
    out +=
        QStringLiteral("<style>") + reportHtmlStyle() + QStringLiteral("</style>\n</head>\n<body>\n<main>\n");
    out += QStringLiteral(
               "<header>\n<div class=\"brand\">gapscope</div>\n<h1>PyTorch memory snapshot report</h1>\n"
               "<div class=\"subtitle\"><code>%1</code></div>\n</header>\n")
               .arg(htmlEscape(c.path));
    out += QStringLiteral("<h2>Input</h2>\n<table>\n");
    for (const auto& [label, value] : c.input)
        out += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(htmlEscape(label), htmlEscape(value));
    out += QStringLiteral("</table>\n");
    htmlSection(out, c.totals);
    for (const SnapshotReportSection& section : c.sections)
        htmlSection(out, section);
    out += QStringLiteral("<h2>Largest free block</h2>\n<p>%1</p>\n").arg(htmlEscape(c.largestFreeBlock));
    if (!images.empty()) {
        out += QStringLiteral("<h2>Segment map</h2>\n");
        for (const ReportImage& image : images)
            out +=
                QStringLiteral("<figure>\n<div class=\"frame\"><img src=\"data:%1;base64,%2\" width=\"%3\" "
                               "height=\"%4\" alt=\"%5\" /></div>\n<figcaption><strong>%5.</strong> "
                               "%6</figcaption>\n</figure>\n")
                    .arg(htmlEscape(image.mimeType), QString::fromLatin1(image.data.toBase64()))
                    .arg(image.size.width())
                    .arg(image.size.height())
                    .arg(htmlEscape(image.title), htmlEscape(image.caption));
    }
    out += QStringLiteral("<h2>Findings</h2>\n");
    if (c.findings.empty())
        out += QStringLiteral("<p class=\"none\">%1</p>\n").arg(htmlEscape(c.noFindings));
    for (size_t i = 0; i < c.findings.size(); ++i) {
        const ReportFinding& f = c.findings[i];
        const QString severity = qs(toString(f.severity));
        out += QStringLiteral(
                   "<article class=\"finding %1\">\n<div class=\"head\"><span class=\"badge\">%1</span>"
                   "<h3>%2. %3</h3><code>%4</code></div>\n<div class=\"meta\"><span>Confidence "
                   "<strong>%5</strong></span></div>\n<p>%6</p>\n")
                   .arg(htmlEscape(severity))
                   .arg(i + 1)
                   .arg(htmlEscape(classificationTitle(f.classification)),
                        htmlEscape(qs(toString(f.classification))), htmlEscape(confidenceText(f.confidence)),
                        htmlEscape(f.description));
        if (!f.evidence.empty()) {
            ReportTable evidence{QStringList{QStringLiteral("Evidence"), QStringLiteral("Value")}, {}};
            for (const ReportEvidence& e : f.evidence)
                evidence.rows.push_back({qs(e.key), e.text});
            out += reportTableHtml(evidence);
        }
        if (!f.remediation.isEmpty()) {
            out += QStringLiteral("<h4>What to try</h4>\n<ol>\n");
            for (const QString& step : f.remediation)
                out += QStringLiteral("<li>%1</li>\n").arg(htmlEscape(step));
            out += QStringLiteral("</ol>\n");
        }
        out += QStringLiteral("</article>\n");
    }
    if (!c.ignoredKeys.isEmpty())
        out +=
            QStringLiteral("<h2>Keys not read</h2>\n<p>Read past, not an error (what a newer PyTorch adds): "
                           "<code>%1</code></p>\n")
                .arg(htmlEscape(c.ignoredKeys.join(QStringLiteral(", "))));
    if (!c.problems.table.rows.empty()) {
        htmlSection(out, c.problems);
        if (c.problemsNotListed > 0)
            out += QStringLiteral("<p class=\"none\">%1 more not listed.</p>\n").arg(c.problemsNotListed);
    }
    out += QStringLiteral("<footer>Written by gapscope. Byte sizes in IEC units (1 GiB = 1024<sup>3</sup> "
                          "bytes).</footer>\n</main>\n</body>\n</html>\n");
    return out;
}

QByteArray snapshotFindingsCsv(const SnapshotReportContent& c)
{
    QString out = QStringLiteral("severity,classification,confidence,description,evidence,remediation\r\n");
    for (const ReportFinding& f : c.findings) {
        QStringList evidence;
        for (const ReportEvidence& e : f.evidence)
            evidence << QStringLiteral("%1=%2").arg(qs(e.key), e.text);
        out +=
            csvField(qs(toString(f.severity))) + QLatin1Char(',') + csvField(qs(toString(f.classification))) +
            QLatin1Char(',') + QString::fromLatin1(pythonFloatRepr(f.confidence)) + QLatin1Char(',') +
            csvField(f.description) + QLatin1Char(',') + csvField(evidence.join(QStringLiteral("; "))) +
            QLatin1Char(',') + csvField(f.remediation.join(QStringLiteral(" | "))) + QStringLiteral("\r\n");
    }
    return out.toUtf8();
}

QByteArray snapshotSegmentsCsv(const SnapshotData& data)
{
    QString out = QStringLiteral("device,address,stream,pool,type,total_bytes,allocated_bytes,active_bytes,"
                                 "requested_bytes,blocks,inactive_split_bytes,is_expandable\r\n");
    for (const SnapshotSegment& segment : data.segments) {
        const SnapshotTotals t = segmentTotals(data, segment);
        // joined, not .arg()ed: a type name from the file may hold "%1"
        const QStringList row{QString::number(segment.device),
                              QString::number(segment.address),
                              QString::number(segment.stream),
                              csvField(poolText(segment.pool)),
                              csvField(data.strings.text(segment.typeName)),
                              QString::number(segment.totalSize),
                              QString::number(t.allocatedBytes),
                              QString::number(t.activeBytes),
                              QString::number(t.requestedBytes),
                              QString::number(t.blockCount),
                              QString::number(t.inactiveSplitBytes),
                              segment.isExpandable ? QStringLiteral("true") : QStringLiteral("false")};
        out += row.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return out.toUtf8();
}

} // namespace gapscope
