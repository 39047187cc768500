#pragma once
// A device-usage log attached to a trace: where its device used comes from. runAnalysis
// (model/trace/AnalysisRunner) joins the log to the samples of the partition it analyses when
// its request carries one, and the result says so (AnalysisResult::deviceUsedSource), so the
// GUI, analyze, export and compare take the log the same way.

#include "model/devicelog/NvidiaSmiLog.h"
#include "model/store/TraceData.h"

#include <QString>

#include <memory>
#include <mutex>
#include <vector>

namespace gapscope {

// What to attach: the log's path and the zone its local timestamps are in (empty: the system's).
struct DeviceLogRequest
{
    QString path;
    QString timeZone;
    bool operator==(const DeviceLogRequest&) const = default;
};

// nullptr with *error ("path: reason", or the zone's) when neither the zone nor the log can be used.
std::shared_ptr<const DeviceLog> loadRequestedDeviceLog(const DeviceLogRequest& request, QString* error);

// Where the device used of an analysis came from, when a log gave it. Counts are over the
// samples of the partition analysed (the whole session and rank, not only a window).
struct DeviceUsedSource
{
    QString path;
    QString timeZone;
    DeviceLogScope scope = DeviceLogScope::Device;
    std::vector<int64_t> pids; // the trace's pids whose rows were taken (process scope)
    qint64 matchedSamples = 0;
    qint64 unmatchedSamples = 0; // keep the trace's own device used
    qint64 samplesBefore = 0;    // of the unmatched: before the log's first row
    qint64 samplesAfter = 0;     // after its last row
    int64_t toleranceNs = 0;     // the farthest a row may be from a sample it gives its value
    qint64 logRows = 0;          // rows read
    qint64 logRowsRejected = 0;
};

struct JoinedTrace
{
    std::shared_ptr<const TraceData> trace; // a copy whose partition's samples carry the log's device used
    std::shared_ptr<const DeviceUsedSource> source;
    QString error; // why the log cannot be joined (the trace's pid is not in it, ...)
};
// The log's problems join the copy's (so the problems panel and the report list them).
JoinedTrace joinDeviceLog(const std::shared_ptr<const TraceData>& trace, const Partition& partition,
                          const DeviceLog& log);

// joinDeviceLog, or the join kept from the last call for the same trace and partition.
JoinedTrace joinDeviceLogOnce(const std::shared_ptr<const TraceData>& trace, const Partition& partition,
                              const DeviceLog& log);

struct DeviceLogJoinCache
{
    std::mutex mutex;
    std::weak_ptr<const TraceData> from;
    Partition partition;
    JoinedTrace joined;
};

// The line every human report and the status show: "device used: nvidia-smi log FILE (...)"
QString deviceUsedSourceText(const DeviceUsedSource* source);

} // namespace gapscope
