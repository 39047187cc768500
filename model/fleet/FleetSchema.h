#pragma once
// The fleet index's database (`gapscope index`, docs/fleet-schema.md): SQLite, one row per run
// and rank in `runs`, the recurring issues over them in `recurring_issues`. The schema is
// versioned (meta.schema_version); a database of another version is refused, not converted.
// Scripts read it with sqlite3 or DuckDB, the fleet page with Qt SQL: the column names below
// are the contract.

#include <QString>
#include <QStringList>

namespace gapscope {

inline constexpr int kFleetSchemaVersion = 1;

// The kind of a recurring issue that gapscope adds beside upstream's four (oom,
// collector_degradation, alert, hidden_memory_anomaly: stormlog/issues.py IssueKind).
inline constexpr char kGapscopeNoticeIssueKind[] = "gapscope_notice";

// What the walk recognised under the roots that is not an input (a folder it went into, a file
// that is part of an input), so that the next index takes an unchanged one without recognising
// it again. The indexer's own memory, made by the first index that writes to it (not with the
// schema: a new database stays as small as it was): no run or issue is made of it, and a merge
// leaves it out (a part's rows are for its own next index).
inline constexpr char kFleetWalkedTable[] =
    "CREATE TABLE IF NOT EXISTS walked (\n"
    "  path TEXT PRIMARY KEY,            -- absolute, as found under the ROOT given\n"
    "  size INTEGER NOT NULL,            -- bytes: a file's size, a folder's files together (every level)\n"
    "  mtime_ns INTEGER NOT NULL,        -- a file's time; a folder's: the newest of its files and "
    "folders (every level, itself included)\n"
    "  skipped TEXT                      -- a folder's entries the walk leaves out (copies of a run "
    "beside its sink), one path a line\n"
    ")";

// The statements that create an empty database of kFleetSchemaVersion, in order.
inline QStringList fleetSchemaStatements()
{
    return {
        // key/value facts about the database: schema_version (kFleetSchemaVersion), generator
        // (gapscope and its version)
        QStringLiteral("CREATE TABLE meta (\n"
                       "  key TEXT PRIMARY KEY,\n"
                       "  value TEXT NOT NULL\n"
                       ")"),
        // Every input the walk found: a sink folder, a trace file, an OOM bundle folder, the
        // folder of a distributed job, a memory-budget log, a PyTorch snapshot; and what it
        // passed over with the reason (an nvidia-smi log, a foreign file), so that an unchanged
        // one is not read again either.
        QStringLiteral("CREATE TABLE inputs (\n"
                       "  path TEXT PRIMARY KEY,         -- absolute, as found under the ROOT given\n"
                       "  input_kind TEXT NOT NULL,      -- the recognition's kind: 'stormlog trace', "
                       "'distributed job', 'OOM bundle', 'memory-budget log', 'PyTorch snapshot', "
                       "'nvidia-smi log', 'foreign', 'unknown'\n"
                       "  input_size INTEGER NOT NULL,   -- bytes: a file's size, a folder's files "
                       "together (every level)\n"
                       "  input_mtime_ns INTEGER NOT NULL, -- the newest modification time among them, "
                       "ns since the epoch\n"
                       "  run_count INTEGER NOT NULL,    -- rows in runs\n"
                       "  vanished INTEGER NOT NULL DEFAULT 0, -- 1: gone at the last index of its root\n"
                       "  error TEXT                     -- why it was passed over (an nvidia-smi log), "
                       "or what failed in reading it; NULL when it was read whole\n"
                       ")"),
        // One row per run and rank: a (session, rank) of a trace, each rank of a job, an OOM
        // bundle's session, a budget log, a snapshot.
        QStringLiteral(
            "CREATE TABLE runs (\n"
            "  run_id INTEGER PRIMARY KEY,\n"
            "  path TEXT NOT NULL,               -- what opens this run in gapscope (a rank's sink or "
            "file; else input_path)\n"
            "  input_path TEXT NOT NULL REFERENCES inputs(path) ON DELETE CASCADE,\n"
            "  input_kind TEXT NOT NULL,         -- as inputs, copied so that runs reads alone\n"
            "  input_size INTEGER NOT NULL,\n"
            "  input_mtime_ns INTEGER NOT NULL,\n"
            "  vanished INTEGER NOT NULL DEFAULT 0,\n"
            "  job_id TEXT,\n"
            "  rank INTEGER,\n"
            "  world_size INTEGER,\n"
            "  session_id TEXT,\n"
            "  session_status TEXT,              -- completed, interrupted, running, incomplete, unknown\n"
            "  host TEXT,\n"
            "  pid INTEGER,\n"
            "  collector TEXT,\n"
            "  backend TEXT,\n"
            "  start_ns INTEGER,                 -- first and last event (ns since the epoch)\n"
            "  end_ns INTEGER,\n"
            "  samples INTEGER NOT NULL,         -- samples analysed (budget log: ticks; snapshot: 0)\n"
            "  device_total_bytes INTEGER,\n"
            "  peak_gap_bytes INTEGER,           -- largest device used - allocator reserved (NULL: no "
            "gap, a CPU capture)\n"
            "  latest_gap_bytes INTEGER,         -- of the last sample\n"
            "  drift_slope_bytes_per_s REAL,     -- least-squares slope of the gap over time\n"
            "  finding_count INTEGER NOT NULL,   -- findings at the default thresholds (a job's rank: "
            "its own and the job's about it)\n"
            "  worst_class TEXT,                 -- the most severe finding (then the most confident): "
            "its classification\n"
            "  worst_severity TEXT,              -- info, warning, critical\n"
            "  worst_confidence REAL,\n"
            "  worst_phase TEXT,                 -- its phase attribution as upstream summarises it\n"
            "  notices TEXT,                     -- gapscope's notices, codes joined by ',' "
            "(gap_not_observable, below_ratio_gate, rank_divergence, first_cause_at_startup)\n"
            "  first_cause_rank INTEGER,         -- job: the first-cause suspect upstream ranks first\n"
            "  oom_count INTEGER NOT NULL DEFAULT 0 -- OOM bundles of the run\n"
            ")"),
        QStringLiteral("CREATE INDEX runs_input ON runs(input_path)"),
        QStringLiteral("CREATE INDEX runs_job ON runs(job_id, rank)"),
        // A fingerprint's identity: upstream's (stormlog/issues.py IssueFingerprint: kind and
        // dimensions, fingerprint_id 'issue:' + 24 hex digits of SHA-256), or gapscope's own for
        // its notices (kind gapscope_notice, 'gapscope:' + the same hash of its dimensions).
        QStringLiteral("CREATE TABLE issues (\n"
                       "  fingerprint TEXT PRIMARY KEY,\n"
                       "  kind TEXT NOT NULL,            -- oom, collector_degradation, alert, "
                       "hidden_memory_anomaly; gapscope_notice\n"
                       "  class TEXT NOT NULL,           -- classification, alert category, OOM reason, "
                       "collector health, notice code\n"
                       "  severity TEXT NOT NULL,        -- critical, warning, info\n"
                       "  title TEXT NOT NULL,\n"
                       "  dimensions TEXT NOT NULL       -- the fingerprint's dimensions, JSON as "
                       "upstream hashes them\n"
                       ")"),
        // The runs of each issue: how many hits (events, findings, bundles, as upstream counts
        // them) in each run, and when.
        QStringLiteral("CREATE TABLE issue_runs (\n"
                       "  fingerprint TEXT NOT NULL REFERENCES issues(fingerprint) ON DELETE CASCADE,\n"
                       "  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
                       "  hit_count INTEGER NOT NULL,\n"
                       "  first_seen_ns INTEGER,\n"
                       "  last_seen_ns INTEGER,\n"
                       "  PRIMARY KEY (fingerprint, run_id)\n"
                       ")"),
        QStringLiteral("CREATE INDEX issue_runs_run ON issue_runs(run_id)"),
        // Issues over the runs present (not vanished): what `stormlog query issues` lists over
        // the same tree (hit_count), with the runs and sessions they were seen in.
        QStringLiteral("CREATE VIEW recurring_issues AS\n"
                       "SELECT i.fingerprint, i.kind, i.class, i.severity, i.title, i.dimensions,\n"
                       "       COUNT(*) AS run_count,\n"
                       "       SUM(l.hit_count) AS hit_count,\n"
                       "       COUNT(DISTINCT r.session_id) AS session_count,\n"
                       "       MIN(l.first_seen_ns) AS first_seen_ns,\n"
                       "       MAX(l.last_seen_ns) AS last_seen_ns\n"
                       "FROM issues i JOIN issue_runs l ON l.fingerprint = i.fingerprint\n"
                       "     JOIN runs r ON r.run_id = l.run_id\n"
                       "WHERE r.vanished = 0\n"
                       "GROUP BY i.fingerprint"),
    };
}

// The tables whose rows a database holds (the view is computed from them), in an order that
// inserts respect the references.
inline QStringList fleetTables()
{
    return {QStringLiteral("meta"), QStringLiteral("inputs"), QStringLiteral("runs"),
            QStringLiteral("issues"), QStringLiteral("issue_runs")};
}

} // namespace gapscope
