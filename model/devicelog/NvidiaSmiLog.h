#pragma once
// nvidia-smi's CSV log of device memory, attached to a trace as the source of its device used
// (`--device-log`, File > Attach Device Log...). Two forms:
//   nvidia-smi --query-gpu=timestamp,memory.used,memory.total --format=csv -lms N
//     device-wide used memory (every process on the GPU); an `index` column, when queried,
//     picks the trace's device out of several
//   nvidia-smi --query-compute-apps=timestamp,pid,used_memory --format=csv -lms N
//     memory per process (its header names the column used_gpu_memory)
// The header names the columns (in any order, extra ones ignored) and their unit ("[MiB]");
// values carry the unit too unless written with `csv,nounits`. Timestamps are local wall time
// without an offset ("2026/12/04 17:20:01.123"): the caller says which zone they are in.
// A row that cannot be used is a LoadProblem naming file, line and reason; the rest loads.

#include "model/store/LoadProblem.h"

#include <QByteArray>
#include <QString>
#include <QTimeZone>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

struct DeviceLogJoinCache;

enum class DeviceLogScope
{
    Device, // --query-gpu memory.used: everything on the GPU
    Process // --query-compute-apps used_memory: one process
};
QString toString(DeviceLogScope scope); // "device", "process"

struct DeviceLog
{
    QString path;
    DeviceLogScope scope = DeviceLogScope::Device;
    QString timeZone; // the zone the timestamps were read in (its IANA id or UTC+hh:mm)
    // One entry per row that loaded, in file order.
    std::vector<int64_t> timestampNs;
    std::vector<int64_t> usedBytes;
    std::vector<int64_t> totalBytes; // device scope with memory.total; else empty
    std::vector<int64_t> pid;        // process scope; else empty
    std::vector<int64_t> gpuIndex;   // with an index column; else empty
    qint64 rowsRead = 0;             // data rows seen, loaded or not
    ProblemLog problems;
    QString fatalError; // "path: reason" when nothing could be loaded
    bool ok() const { return fatalError.isEmpty(); }
    // The last join of the log to a trace (model/devicelog/DeviceLogAttach joinDeviceLogOnce):
    // a page analyses one trace again and again (thresholds, windows) and its chart keeps its
    // view only while the trace is the same object. Set by loadRequestedDeviceLog.
    std::shared_ptr<DeviceLogJoinCache> joinCache;
};

// The zone of --device-log-tz: "UTC", an offset ("+02:00", "-0530", "UTC+2") or an IANA name
// ("Europe/Berlin"); empty: the system's zone. nullopt with *error when it names none.
std::optional<QTimeZone> deviceLogTimeZone(const QString& text, QString* error);
// How a zone is named in a report: its IANA id, or UTC+hh:mm for an offset.
QString deviceLogTimeZoneName(const QTimeZone& zone);

// Reads the file (never for writing) or parses bytes as read from `path`.
DeviceLog loadNvidiaSmiLog(const QString& path, const QTimeZone& zone);
DeviceLog parseNvidiaSmiLog(const QByteArray& bytes, const QString& path, const QTimeZone& zone);

// The rows that describe one trace's process: of the device log, those of the trace's GPU
// (all rows without an index column); of the process log, the pid's rows summed per moment
// (a process can hold memory on several GPUs). Ascending time, one row per moment. error
// says why there is none (the pid is not in the log, ...).
struct DeviceLogSeriesData
{
    std::vector<int64_t> timestampNs;
    std::vector<int64_t> usedBytes;
    QString error;
};
DeviceLogSeriesData deviceLogSeriesFor(const DeviceLog& log, int64_t pid, int64_t deviceId);

} // namespace gapscope
