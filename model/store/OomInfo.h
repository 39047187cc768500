#pragma once
// An out-of-memory error that stormlog's OOM flight recorder wrote a bundle for
// (oom_dumps/oom_dump_*/: manifest.json, events.json, metadata.json, environment.json; read by
// model/trace/OomBundle). Carried with the trace it belongs to (TraceData::ooms) so that every
// view and report can show it.

#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <optional>

namespace gapscope {

struct OomInfo
{
    QString bundlePath; // the bundle folder
    QString bundleName; // manifest bundle_name (else the folder's name)
    QString reason;     // "torch.cuda.OutOfMemoryError", "message_pattern:out of memory", ...
    QString exceptionType;
    QString exceptionModule;
    QString exceptionMessage;
    QString context; // what the tracker was told the code was doing
    QString backend;
    QString createdAtUtc; // manifest created_at_utc as written ("2026-12-04T17:22:19Z")
    // When it happened: the bundle's OOM error event (event_type "error" whose metadata names
    // the reason), else created_at_utc (a second's precision); nullopt when neither is readable.
    std::optional<int64_t> timeNs;
    bool timeFromEvent = false;
    QString sessionId;
    QString sessionStatus;
    int64_t capturedEventCount = -1; // events the bundle says it holds (-1 unknown)
    // Of the trace it is attached to: false when the bundle was found beside a trace but
    // names a session the trace does not hold (a problem says so).
    bool sessionInTrace = true;
    QJsonObject metadata;    // metadata.json as written
    QJsonObject environment; // environment.json as written

    // "torch.OutOfMemoryError" from the exception's module and type (either may be missing).
    QString exceptionName() const
    {
        if (exceptionModule.isEmpty())
            return exceptionType;
        if (exceptionType.isEmpty())
            return exceptionModule;
        return exceptionModule + QLatin1Char('.') + exceptionType;
    }
};

} // namespace gapscope
