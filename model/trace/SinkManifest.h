#pragma once
// The manifest.json of a stormlog sink directory, parsed in one place for the loader and the
// follower: which sessions the sink holds (status, times, host, pid, rank, job, event counts)
// and which segment files it names. What the manifest says about a session outranks what the
// loader infers from the events.

#include "model/store/LoadProblem.h"
#include "model/store/TraceData.h"

#include <QString>

#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

// The "format" of a sink manifest.
inline constexpr std::string_view kSinkFormat = "stormlog.append_only_telemetry_sink";

struct SinkManifestSession
{
    QString id;
    std::optional<SessionStatus> status; // Unknown for a status this version does not know
    std::optional<qint64> startedNs, endedNs, pid, rank;
    std::optional<QString> host, jobId;
    qint64 segmentEvents = 0; // the event counts of its segments
    bool countKnown = false;  // some segment of it gave an event count

    bool operator==(const SinkManifestSession&) const = default;
};

struct SinkManifestSegment
{
    QString filename; // a plain file name in the sink directory
    std::optional<qint64> eventCount;
};

struct SinkManifest
{
    // A session listed twice is one entry: the later entry's fields win.
    std::vector<SinkManifestSession> sessions;
    // In manifest order, each file once; names that are not plain file names are left out.
    std::vector<SinkManifestSegment> segments;
};

// Parses the text of manifest.json. Returns nullopt with *error (the reason, without the path)
// when it is not a JSON object or not a sink manifest. Entries that cannot be used are left
// out, each with a problem (at manifestPath, line 0) in problems when given.
std::optional<SinkManifest> parseSinkManifest(std::string_view text, const QString& manifestPath,
                                              ProblemLog* problems, QString* error);

// Reads and parses directory/manifest.json as parseSinkManifest does.
std::optional<SinkManifest> readSinkManifest(const QString& directory, ProblemLog* problems, QString* error);

// Puts what the manifest says about each session into data's sessions. A manifest session with
// no loaded events is a warning in data.problems when warnUnloaded.
void applySinkManifest(const SinkManifest& manifest, TraceData& data, bool warnUnloaded);

} // namespace gapscope
