#include "model/trace/CounterCapture.h"

#include "model/store/Decimation.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("CounterCapture", text);
}

} // namespace

bool isCounterOnly(const AnalysisResult& result)
{
    return result.usableRows.empty() && !result.counterRows.empty();
}

const std::vector<uint32_t>& timelineRows(const AnalysisResult& result)
{
    return isCounterOnly(result) ? result.counterRows : result.usableRows;
}

TimelineValue::TimelineValue(const AnalysisResult& result)
    : m_counterOnly(isCounterOnly(result)), m_used(result.trace->store.used),
      m_reserved(result.trace->store.reserved)
{
}

double TimelineValue::operator()(uint32_t row) const
{
    const int64_t used = m_used[row];
    if (!m_counterOnly)
        return double(gapBytes(used, m_reserved[row]));
    return used == kNullInt ? std::numeric_limits<double>::quiet_NaN() : double(used);
}

std::optional<size_t> nearestTimelineRow(const AnalysisResult& result, int64_t ns)
{
    return nearestRowPosition(result.trace->store.timestampNs, timelineRows(result), ns);
}

CounterFigures counterFigures(const AnalysisResult& result)
{
    CounterFigures figures;
    figures.cpu = result.backend == Backend::Cpu;
    const EventStore& store = result.trace->store;
    if (!result.counterRows.empty()) {
        figures.firstNs = store.timestampNs[result.counterRows.front()];
        figures.lastNs = store.timestampNs[result.counterRows.back()];
    }
    Int64ColumnReader usedColumn(store.used); // rows ascend: each block decoded once
    for (uint32_t row : result.counterRows) {
        const int64_t used = usedColumn[row];
        if (used == kNullInt)
            continue;
        ++figures.sampleCount;
        if (!figures.firstUsedBytes)
            figures.firstUsedBytes = used;
        figures.lastUsedBytes = used;
        if (!figures.peakUsedBytes || used > *figures.peakUsedBytes) {
            figures.peakUsedBytes = used;
            figures.peakUsedNs = store.timestampNs[row];
        }
    }
    return figures;
}

QString usedCounterName(const AnalysisResult& result)
{
    return result.backend == Backend::Cpu ? tr("RSS") : tr("Device used");
}

QString counterOnlyExplanation(const AnalysisResult& result)
{
    if (result.backend == Backend::Cpu)
        return tr("A CPU capture: stormlog records the process's resident memory (RSS) as allocated, "
                  "reserved and device used alike, with no device total. The hidden-memory gap (device "
                  "used − allocator reserved) needs a device total, so there is no gap here; the chart "
                  "and the timeline show the RSS over time and the phases show where it grows.");
    return tr("These samples have no device total, so there is no hidden-memory gap (device used − "
              "allocator reserved) to analyse; the chart and the timeline show the allocator and device "
              "counters instead.");
}

} // namespace gapscope
