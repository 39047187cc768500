#pragma once
// stormlog's OOM flight-recorder bundles (stormlog/oom_flight_recorder.py): on an out-of-memory
// error the tracker writes oom_dumps/oom_dump_<UTC>_<pid>_<backend>_<n>/ holding
// manifest.json (schema_version, bundle_name, created_at_utc, reason, backend, event_count,
// session, files), events.json (the last events of its ring buffer, as legacy records:
// MemoryEvent.to_dict), metadata.json (reason, exception type, module and message, context,
// session, custom_metadata with the tracker's stats) and environment.json (pid, cwd, system).
//
// A bundle opens as a trace of its events with its OomInfo (loadOomBundle); a trace with an
// oom_dumps folder beside it carries the OomInfo of each bundle there (attachOomBundlesBeside).

#include "model/store/OomInfo.h"
#include "model/trace/TraceLoader.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace gapscope {

// The name of the folder stormlog writes its bundles in (OOMFlightRecorderConfig.dump_dir).
inline constexpr QLatin1StringView kOomDumpsFolder{"oom_dumps"};

// Whether folder holds an OOM bundle: a manifest.json that names a bundle (bundle_name or a
// files list with events.json) and is not a sink manifest.
bool isOomBundleFolder(const QString& folder);

struct OomBundleLocation
{
    QString folder;    // the bundle opened
    QStringList other; // further bundles of the same oom_dumps folder, not opened (newest first)
};
// The bundle a path names: a bundle folder, its manifest.json or events.json, an oom_dumps
// folder (its newest bundle), or a folder that holds an oom_dumps folder and no sink (neither a
// manifest.json of its own nor a child folder with one). nullopt for anything else.
std::optional<OomBundleLocation> locateOomBundle(const QString& path);

// The bundle's manifest, metadata and environment (not its events: timeNs is then
// created_at_utc). A file that is missing or not a JSON object is a warning in problems.
OomInfo readOomInfo(const QString& folder, ProblemLog* problems = nullptr);

// A bundle as a trace: its events.json (legacy records) with its OomInfo in ooms, the time
// taken from its OOM error event. The trace's path is the bundle folder; its problems name
// events.json (or the other files) with their lines.
LoadOutcome loadOomBundle(const OomBundleLocation& location, const LoadControl& control = {});

// Puts the OomInfo of every bundle in the oom_dumps folder beside data.path (the folder of a
// file; the parent of a sink folder) into data.ooms, the time from each bundle's error event.
// A bundle of a session data does not hold is still attached, with a warning.
void attachOomBundlesBeside(TraceData& data);

// What a person reads first about an OOM, (label, value) in a fixed order: the exception, its
// context, time, session, the tracker's stats and the environment's key facts. Shared by the
// reports and the app's summary, so that they say the same.
std::vector<std::pair<QString, QString>> oomKeyFacts(const OomInfo& oom);

} // namespace gapscope
