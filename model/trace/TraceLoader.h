#pragma once
// Loads every stormlog trace form (stormlog-telemetry.md section 2). The form is detected
// from content (first non-blank bytes, manifest), not only from the extension.

#include "model/base/LoadControl.h"
#include "model/store/TraceData.h"

#include <QByteArray>
#include <QIODevice>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

struct LoadOutcome
{
    std::shared_ptr<const TraceData> data; // null when the input is unusable
    QString fatalError;                    // why data is null ("path: reason")
    bool cancelled = false;
};

// The head of an input every sniffer reads (model/document/Recognition reads it once, the trace
// loader for its own dispatch): its first kInputHeadBytes, or, when no line ends within them, as
// far as one JSON lines record may go (see detectTraceBytesForm), so that a first record longer
// than the head is still seen to end where its line does.
inline constexpr qint64 kInputHeadBytes = qint64(1) << 20;
QByteArray readInputHead(QIODevice& input);

// Detects the form of a path (directory = sink). nullopt when it is not a trace.
std::optional<TraceForm> detectTraceForm(const QString& path, QString* whyNot = nullptr);
// The form of bytes in memory: what loadTraceBytes reads them as when it is given no form.
std::optional<TraceForm> detectTraceBytesForm(std::string_view bytes, QString* whyNot = nullptr);

// The trace at path, with the OOM bundles of an oom_dumps folder beside it in its ooms
// (model/trace/OomBundle attachOomBundlesBeside).
LoadOutcome loadTrace(const QString& path, const LoadControl& control = {});
// loadTrace with amend, instead of the look for OOM bundles beside it, run on the trace before
// it is shared (the OOM bundle loader puts the bundle's own OomInfo in).
LoadOutcome loadTrace(const QString& path, const LoadControl& control,
                      const std::function<void(TraceData&)>& amend);

// loadTrace for bytes already in memory (a test, a fuzz input): the same detection (unless form
// is given) and the same parsing code as a file of that content, in the calling thread, without
// worker threads; name is what the trace and its problems call the input. A sink is
// loadSinkBytes.
LoadOutcome loadTraceBytes(std::string_view bytes, std::optional<TraceForm> form, const QString& name,
                           const LoadControl& control = {});

// A segment file of a sink held in memory.
struct SinkSegmentBytes
{
    QString name; // file name in the sink ("segment-000001.jsonl")
    std::string_view bytes;
};

// loadTrace of a sink directory `path` whose manifest.json and segment files are in memory.
LoadOutcome loadSinkBytes(const QString& path, std::string_view manifest,
                          const std::vector<SinkSegmentBytes>& segments, const LoadControl& control = {});

namespace detail {
struct EventChunk;
}
// Rows parsed elsewhere (the live follower reads a growing file itself) made into a trace as
// loadTrace makes one: partitions sorted by time, sessions and phases derived, chunk consumed.
// bytesRead is what the caller read to get the rows.
std::shared_ptr<TraceData> buildTraceData(const QString& path, TraceForm form, detail::EventChunk&& chunk,
                                          qint64 bytesRead);

} // namespace gapscope
