#include "model/devicelog/DeviceLogAttach.h"

#include "analysis/DeviceLogJoin.h"

#include <algorithm>
#include <map>

namespace gapscope {

std::shared_ptr<const DeviceLog> loadRequestedDeviceLog(const DeviceLogRequest& request, QString* error)
{
    QString why;
    const std::optional<QTimeZone> zone = deviceLogTimeZone(request.timeZone, &why);
    if (!zone) {
        *error = QStringLiteral("--device-log-tz: %1").arg(why);
        return nullptr;
    }
    auto log = std::make_shared<DeviceLog>(loadNvidiaSmiLog(request.path, *zone));
    log->joinCache = std::make_shared<DeviceLogJoinCache>();
    if (!log->ok()) {
        *error = log->fatalError;
        return nullptr;
    }
    return log;
}

JoinedTrace joinDeviceLog(const std::shared_ptr<const TraceData>& trace, const Partition& partition,
                          const DeviceLog& log)
{
    JoinedTrace joined;
    const EventStore& store = trace->store;
    // the partition's samples by the process and GPU their rows name: a per-process log is
    // read for the pid, a device log with an index column for the GPU
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> groups;
    for (uint32_t row = partition.begin; row < partition.end; ++row) {
        if (store.type[row] != EventType::Sample)
            continue;
        const EventSource& source = store.sources[store.source[row]];
        const int64_t pid = log.scope == DeviceLogScope::Process ? source.pid : 0;
        groups[{pid, source.deviceId}].push_back(row);
    }
    auto source = std::make_shared<DeviceUsedSource>();
    source->path = log.path;
    source->timeZone = log.timeZone;
    source->scope = log.scope;
    source->logRows = log.rowsRead;
    source->logRowsRejected = log.problems.errorCount();
    std::vector<int64_t> used = store.used.toVector();
    for (const auto& [key, rows] : groups) {
        const DeviceLogSeriesData series = deviceLogSeriesFor(log, key.first, key.second);
        if (!series.error.isEmpty()) {
            joined.error = series.error;
            return joined;
        }
        std::vector<int64_t> times;
        times.reserve(rows.size());
        for (uint32_t row : rows)
            times.push_back(store.timestampNs[row]);
        const int64_t tolerance = defaultJoinToleranceNs(series.timestampNs);
        const DeviceLogJoin join = joinNearest(times, {series.timestampNs, series.usedBytes}, tolerance);
        for (size_t i = 0; i < rows.size(); ++i) {
            if (join.rowOfSample[i] >= 0)
                used[rows[i]] = series.usedBytes[size_t(join.rowOfSample[i])];
        }
        source->matchedSamples += qint64(join.matched);
        source->unmatchedSamples += qint64(join.unmatched);
        source->samplesBefore += qint64(join.before);
        source->samplesAfter += qint64(join.after);
        source->toleranceNs = std::max(source->toleranceNs, tolerance);
        if (log.scope == DeviceLogScope::Process)
            source->pids.push_back(key.first);
    }
    std::sort(source->pids.begin(), source->pids.end());
    source->pids.erase(std::unique(source->pids.begin(), source->pids.end()), source->pids.end());

    auto copy = std::make_shared<TraceData>(*trace);
    copy->gapMemo.reset(); // the memo is of the trace's own device used
    PackedColumn<int64_t> column;
    column.reserveRows(used.size());
    for (int64_t value : used)
        column.push_back(value);
    copy->store.used = std::move(column);
    copy->problems.merge(log.problems);
    joined.trace = std::move(copy);
    joined.source = std::move(source);
    return joined;
}

JoinedTrace joinDeviceLogOnce(const std::shared_ptr<const TraceData>& trace, const Partition& partition,
                              const DeviceLog& log)
{
    if (!log.joinCache)
        return joinDeviceLog(trace, partition, log);
    DeviceLogJoinCache& cache = *log.joinCache;
    const std::lock_guard lock(cache.mutex);
    const auto same = [](const Partition& a, const Partition& b) {
        return a.sessionIndex == b.sessionIndex && a.rank == b.rank && a.begin == b.begin && a.end == b.end;
    };
    if (cache.joined.trace && cache.from.lock() == trace && same(cache.partition, partition))
        return cache.joined;
    JoinedTrace joined = joinDeviceLog(trace, partition, log);
    if (joined.trace) {
        cache.from = trace;
        cache.partition = partition;
        cache.joined = joined;
    }
    return joined;
}

QString deviceUsedSourceText(const DeviceUsedSource* source)
{
    if (!source)
        return QStringLiteral("device used: the trace's own device_used_bytes");
    QStringList pids;
    for (int64_t pid : source->pids)
        pids << QString::number(pid);
    const QString scope =
        source->scope == DeviceLogScope::Device
            ? QStringLiteral("device-wide: every process on the GPU, CUDA contexts included")
            : QStringLiteral("process %1 alone").arg(pids.join(QStringLiteral(", ")));
    QString text = QStringLiteral("device used: nvidia-smi log %1 (%2; times read in %3); %4 of %5 samples "
                                  "matched within %6 ms")
                       .arg(source->path, scope, source->timeZone)
                       .arg(source->matchedSamples)
                       .arg(source->matchedSamples + source->unmatchedSamples)
                       .arg(double(source->toleranceNs) / 1e6, 0, 'g', 6);
    if (source->unmatchedSamples > 0)
        text += QStringLiteral(", %1 keep the trace's own value (%2 before the log, %3 after it, %4 in its "
                               "gaps)")
                    .arg(source->unmatchedSamples)
                    .arg(source->samplesBefore)
                    .arg(source->samplesAfter)
                    .arg(source->unmatchedSamples - source->samplesBefore - source->samplesAfter);
    if (source->logRowsRejected > 0)
        text +=
            QStringLiteral("; %1 of its %2 rows rejected").arg(source->logRowsRejected).arg(source->logRows);
    return text;
}

} // namespace gapscope
