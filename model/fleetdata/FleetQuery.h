#pragma once
// Reads a fleet index database (docs/fleet-schema.md; written by `gapscope index`) for the
// fleet page: read only (QSQLITE_OPEN_READONLY: an input is never opened for writing), on the
// calling thread (the load thread: a Qt SQL connection belongs to the thread that opens it),
// into the immutable FleetData. Only the documented columns are read, so a database of a newer
// minor layout with more columns still opens; another schema_version is refused.

#include "model/base/LoadControl.h"
#include "model/fleetdata/FleetData.h"

#include <QString>

#include <memory>
#include <string_view>

namespace gapscope {

// The schema version this reader knows (model/fleet/FleetSchema.h kFleetSchemaVersion).
inline constexpr int kFleetReadSchemaVersion = 1;

// Whether a file's head is an SQLite database (its 16-byte header, "SQLite format 3").
bool headIsSqlite(std::string_view head);
// Whether an SQLite head holds a fleet index's schema: its meta, runs and issue tables are
// declared in sqlite_master, which SQLite writes in the first pages (the schema is created
// before any row), so the recognition's head holds it.
bool headIsFleetDatabase(std::string_view head);

struct FleetLoadOutcome
{
    std::shared_ptr<const FleetData> data; // null when the database cannot be read
    QString fatalError;                    // why data is null: "path: reason"
    bool cancelled = false;
};

FleetLoadOutcome loadFleetDatabase(const QString& path, const LoadControl& control = {});

} // namespace gapscope
