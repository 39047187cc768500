#include "model/snapshot/SnapshotFragmentation.h"

#include "analysis/Int64Math.h"

#include "model/text/Text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gapscope {

namespace {

int64_t splitBytesOf(const SnapshotData& data, const SnapshotSegment& segment)
{
    if (segment.blockCount < 2)
        return 0; // a wholly free segment is cached, not split: empty_cache() returns it
    int64_t bytes = 0;
    for (const SnapshotBlock& block : data.blocksOf(segment))
        if (block.state == BlockState::Inactive)
            bytes = saturatingAdd(bytes, block.size);
    return bytes;
}

// "expandable_segments=False, max_split_size=-1, garbage_collection_threshold=0.0", or that the
// snapshot names none.
QString settingsInForce(const SnapshotData& data)
{
    QStringList named;
    for (const char* name :
         {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments", "max_split_size", "garbage_collection_threshold"})
        for (const SnapshotSetting& setting : data.allocatorSettings)
            if (setting.name == QLatin1String(name))
                named << QStringLiteral("%1=%2").arg(
                    setting.name, setting.value.isEmpty() ? QStringLiteral("''") : shownText(setting.value));
    return named.isEmpty() ? QStringLiteral("the snapshot records no allocator_settings (PyTorch before 2.5)")
                           : named.join(QStringLiteral(", "));
}

std::string poolName(const PoolFragmentation& pool)
{
    QString text = QStringLiteral("stream %1").arg(pool.stream);
    text += pool.pool == SegmentPoolId{}
                ? QStringLiteral(", default pool")
                : QStringLiteral(", pool (%1, %2)").arg(pool.pool.first).arg(pool.pool.second);
    return QStringLiteral("device %1, %2").arg(pool.device).arg(text).toStdString();
}

} // namespace

std::vector<PoolFragmentation> poolFragmentation(const SnapshotData& data)
{
    std::map<std::tuple<int64_t, int64_t, SegmentPoolId>, PoolFragmentation> pools;
    std::map<std::tuple<int64_t, int64_t, SegmentPoolId>, std::vector<std::pair<int64_t, uint32_t>>> split;
    for (uint32_t i = 0; i < data.segments.size(); ++i) {
        const SnapshotSegment& segment = data.segments[i];
        const auto key = std::tuple(segment.device, segment.stream, segment.pool);
        PoolFragmentation& pool = pools[key];
        pool.device = segment.device;
        pool.stream = segment.stream;
        pool.pool = segment.pool;
        ++pool.segments;
        pool.reservedBytes = saturatingAdd(pool.reservedBytes, segment.totalSize);
        for (const SnapshotBlock& block : data.blocksOf(segment))
            if (block.state == BlockState::Inactive)
                pool.largestFreeBlockBytes = std::max(pool.largestFreeBlockBytes, block.size);
        if (const int64_t bytes = splitBytesOf(data, segment); bytes > 0) {
            pool.inactiveSplitBytes = saturatingAdd(pool.inactiveSplitBytes, bytes);
            ++pool.splitSegments;
            split[key].emplace_back(bytes, i);
        }
    }
    std::vector<PoolFragmentation> result;
    for (auto& [key, pool] : pools) {
        auto& segments = split[key];
        std::sort(segments.begin(), segments.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (size_t i = 0; i < segments.size() && i < 3; ++i)
            pool.worstSegments.push_back(segments[i].second);
        result.push_back(std::move(pool));
    }
    return result;
}

std::vector<Finding> snapshotFragmentationFindings(const SnapshotData& data,
                                                   const SnapshotFragmentationRule& rule)
{
    std::vector<Finding> findings;
    const QString settings = settingsInForce(data);
    for (const PoolFragmentation& pool : poolFragmentation(data)) {
        if (pool.reservedBytes <= 0 || pool.inactiveSplitBytes < rule.minSplitBytes)
            continue;
        const double share = double(pool.inactiveSplitBytes) / double(pool.reservedBytes);
        if (share < rule.minSplitShare)
            continue;
        Finding f;
        f.classification = Classification::AllocatorFragmentation;
        f.severity = share >= rule.warningSplitShare ? Severity::Warning : Severity::Info;
        f.confidence = 1.0; // read from the allocator's own blocks, not inferred
        f.evidence = {
            {"inactive_split_bytes", double(pool.inactiveSplitBytes), true, EvidenceUnit::Bytes},
            {"reserved_bytes", double(pool.reservedBytes), true, EvidenceUnit::Bytes},
            {"inactive_split_ratio", double(qRound(share * 10000)) / 10000, false, EvidenceUnit::Ratio},
            {"largest_free_block_bytes", double(pool.largestFreeBlockBytes), true, EvidenceUnit::Bytes},
            {"split_segments", double(pool.splitSegments), true, EvidenceUnit::Count},
        };
        QStringList worst;
        for (const uint32_t s : pool.worstSegments) {
            const SnapshotSegment& segment = data.segments[s];
            worst << QStringLiteral("0x%1 (%2 free of %3)")
                         .arg(QString::number(segment.address, 16), bytesText(splitBytesOf(data, segment)),
                              bytesText(segment.totalSize));
        }
        f.description =
            QStringLiteral("%1: %2 of the %3 reserved (%4) is free inside %5 that also hold live blocks; the "
                           "largest free block is %6, so a larger request makes the allocator reserve more. "
                           "Most: %7. Allocator settings in force: %8.")
                .arg(QString::fromStdString(poolName(pool)), bytesText(pool.inactiveSplitBytes),
                     bytesText(pool.reservedBytes), percentText(share),
                     englishPlural(QStringLiteral("%1 segment(s)").arg(pool.splitSegments),
                                   pool.splitSegments),
                     bytesText(pool.largestFreeBlockBytes), worst.join(QStringLiteral(", ")), settings)
                .toStdString();
        f.remediation = {
            "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow in place, so freed "
            "space at their end is reused instead of splitting new segments (PyTorch 2.1 and later).",
            "Or set max_split_size_mb (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N) to the size of your "
            "largest activations: blocks above it are never split, so large free blocks stay whole.",
            "With garbage_collection_threshold (e.g. garbage_collection_threshold:0.8) the allocator frees "
            "unused cached blocks before it reserves past that share of the device.",
            ("Allocator settings in force: " + settings + ".").toStdString(),
        };
        findings.push_back(std::move(f));
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return a.evidence[0].value > b.evidence[0].value;
    });
    return findings;
}

QString noFragmentationFindingText(int64_t inactiveSplitBytes, int64_t reservedBytes,
                                   const SnapshotFragmentationRule& rule)
{
    return QStringLiteral("No fragmentation finding: inactive split bytes are %1 (%2 of reserved); a pool "
                          "is fragmented from %3 and %4 of what it reserves.")
        .arg(bytesText(inactiveSplitBytes), shareText(inactiveSplitBytes, reservedBytes),
             bytesText(rule.minSplitBytes), percentText(rule.minSplitShare, 0));
}

} // namespace gapscope
