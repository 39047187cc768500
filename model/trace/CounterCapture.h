#pragma once
// A capture without a device total (a CPU capture: stormlog.cpu_tracker writes the process's
// resident memory, RSS, as allocated, reserved and device used alike, and no total): there is
// no gap (device used - allocator reserved needs usable samples), so the timeline, the status
// bar, the finding detail and the summary show the counters the capture has instead. Qt Core.

#include "model/trace/AnalysisRunner.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// True when the analysis has no usable samples but samples with memory counters.
bool isCounterOnly(const AnalysisResult& result);

// The rows a timeline draws and steps through: the usable samples, or the counter rows of a
// counter-only capture.
const std::vector<uint32_t>& timelineRows(const AnalysisResult& result);
// What a timeline draws at one of those rows: the gap, or device used (RSS on a CPU capture);
// NaN when the value is null. Reads the columns a block at a time (a walk over the rows in
// order decodes each block once): one per thread.
class TimelineValue
{
public:
    explicit TimelineValue(const AnalysisResult& result);
    double operator()(uint32_t row) const;

private:
    bool m_counterOnly = false;
    mutable Int64ColumnReader m_used;
    mutable Int64ColumnReader m_reserved;
};
// Position in timelineRows of the row nearest to ns; nullopt without rows.
std::optional<size_t> nearestTimelineRow(const AnalysisResult& result, int64_t ns);

// The figures of a counter-only capture over its counter rows.
struct CounterFigures
{
    size_t sampleCount = 0;
    std::optional<int64_t> firstUsedBytes; // device used (RSS) at the first and last sample
    std::optional<int64_t> lastUsedBytes;
    std::optional<int64_t> peakUsedBytes;
    int64_t peakUsedNs = 0;
    int64_t firstNs = 0; // of the first and last counter rows
    int64_t lastNs = 0;
    bool cpu = false; // the backend is the CPU tracker: device used is the process's RSS
};
CounterFigures counterFigures(const AnalysisResult& result);

// Name of the device-used counter: "RSS" on a CPU capture, else "Device used".
QString usedCounterName(const AnalysisResult& result);
// One paragraph: why there is no gap and what the capture shows instead.
QString counterOnlyExplanation(const AnalysisResult& result);

} // namespace gapscope
