#include "model/fleet/FleetDatabase.h"

#include "model/fleet/FleetSchema.h"

#include <QAtomicInt>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <optional>

namespace gapscope {

namespace {

QVariant nullable(const std::optional<qint64>& value)
{
    return value ? QVariant(*value) : QVariant();
}

QVariant nullable(const std::optional<double>& value)
{
    return value ? QVariant(*value) : QVariant();
}

QVariant nullable(const QString& text)
{
    return text.isEmpty() ? QVariant() : QVariant(text);
}

// "statement: reason", the reason as SQLite gave it
QString sqlFailure(const QString& what, const QSqlQuery& query)
{
    return QStringLiteral("%1: %2").arg(what, query.lastError().text());
}

constexpr char kRunColumns[] =
    "path, input_path, input_kind, input_size, input_mtime_ns, vanished, job_id, rank, world_size, "
    "session_id, session_status, host, pid, collector, backend, start_ns, end_ns, samples, "
    "device_total_bytes, peak_gap_bytes, latest_gap_bytes, drift_slope_bytes_per_s, finding_count, "
    "worst_class, worst_severity, worst_confidence, worst_phase, notices, first_cause_rank, oom_count";

} // namespace

struct FleetDatabase::InputStatements
{
    explicit InputStatements(const QSqlDatabase& db)
        : deleteIssueRuns(db), deleteRuns(db), input(db), run(db), issue(db), link(db)
    {
    }
    bool prepare()
    {
        return deleteIssueRuns.prepare(QStringLiteral("DELETE FROM issue_runs WHERE run_id IN (SELECT run_id "
                                                      "FROM runs WHERE input_path = ?)")) &&
               deleteRuns.prepare(QStringLiteral("DELETE FROM runs WHERE input_path = ?")) &&
               input.prepare(QStringLiteral(
                   "INSERT OR REPLACE INTO inputs (path, input_kind, input_size, input_mtime_ns, "
                   "run_count, vanished, error) VALUES (?, ?, ?, ?, ?, 0, ?)")) &&
               run.prepare(QStringLiteral("INSERT INTO runs (%1) VALUES (%2)")
                               .arg(QLatin1String(kRunColumns),
                                    QStringLiteral("?, ").repeated(29) + QStringLiteral("?"))) &&
               issue.prepare(QStringLiteral("INSERT OR IGNORE INTO issues (fingerprint, kind, class, "
                                            "severity, title, dimensions) VALUES (?, ?, ?, ?, ?, ?)")) &&
               link.prepare(QStringLiteral("INSERT INTO issue_runs (fingerprint, run_id, hit_count, "
                                           "first_seen_ns, last_seen_ns) VALUES (?, ?, ?, ?, ?)"));
    }
    QSqlQuery deleteIssueRuns;
    QSqlQuery deleteRuns;
    QSqlQuery input;
    QSqlQuery run;
    QSqlQuery issue;
    QSqlQuery link;
};

FleetDatabase::FleetDatabase()
{
    static QAtomicInt counter;
    m_connection = QStringLiteral("gapscope-fleet-%1").arg(counter.fetchAndAddRelaxed(1));
}

FleetDatabase::~FleetDatabase()
{
    close();
}

void FleetDatabase::close()
{
    m_inputStatements.reset(); // before the connection they belong to
    if (!QSqlDatabase::contains(m_connection))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

QSqlDatabase FleetDatabase::database() const
{
    return QSqlDatabase::database(m_connection, false);
}

bool FleetDatabase::exec(const QString& statement, QString* error)
{
    QSqlQuery query(database());
    if (query.exec(statement))
        return true;
    *error = QStringLiteral("%1: %2").arg(m_path, query.lastError().text());
    return false;
}

bool FleetDatabase::beginTransaction(QString* error)
{
    if (database().transaction())
        return true;
    *error = QStringLiteral("%1: %2").arg(m_path, database().lastError().text());
    return false;
}

bool FleetDatabase::commitTransaction(QString* error)
{
    QSqlDatabase db = database();
    if (db.commit())
        return true;
    *error = QStringLiteral("%1: %2").arg(m_path, db.lastError().text());
    db.rollback();
    return false;
}

bool FleetDatabase::failTransaction(const QString& what, const QSqlQuery& query, QString* error)
{
    *error = sqlFailure(what, query);
    database().rollback();
    return false;
}

bool FleetDatabase::open(const QString& path, QString* error)
{
    close();
    m_path = path;
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        *error = QStringLiteral("Qt's SQLite driver (QSQLITE) is not installed (Debian: libqt6sql6-sqlite)");
        return false;
    }
    if (QFileInfo(path).isDir()) {
        *error = QStringLiteral("%1: a folder, not a database file").arg(path);
        return false;
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(path);
    if (!db.open()) {
        *error = QStringLiteral("%1: cannot open: %2").arg(path, db.lastError().text());
        return false;
    }
    // WAL: a commit is one append, readers (the fleet page, sqlite3) never block the writer, and a
    // process killed mid-transaction leaves the last commit whole. NORMAL: no fsync per commit.
    if (!exec(QStringLiteral("PRAGMA journal_mode=WAL"), error) ||
        !exec(QStringLiteral("PRAGMA synchronous=NORMAL"), error) ||
        !exec(QStringLiteral("PRAGMA foreign_keys=ON"), error))
        return false;
    QSqlQuery tables(db);
    if (!tables.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))) {
        *error = QStringLiteral("%1: not an SQLite database (%2)").arg(path, tables.lastError().text());
        return false;
    }
    QStringList names;
    while (tables.next())
        names << tables.value(0).toString();
    if (names.isEmpty()) {
        if (!db.transaction()) {
            *error = QStringLiteral("%1: %2").arg(path, db.lastError().text());
            return false;
        }
        for (const QString& statement : fleetSchemaStatements())
            if (!exec(statement, error)) {
                db.rollback();
                return false;
            }
        QSqlQuery meta(db);
        meta.prepare(QStringLiteral("INSERT INTO meta (key, value) VALUES (?, ?)"));
        meta.addBindValue(QStringLiteral("schema_version"));
        meta.addBindValue(QString::number(kFleetSchemaVersion));
        if (!meta.exec() || !db.commit()) {
            *error = sqlFailure(path, meta);
            db.rollback();
            return false;
        }
        return true;
    }
    QSqlQuery version(db);
    if (!names.contains(QStringLiteral("meta")) ||
        !version.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")) ||
        !version.next()) {
        *error = QStringLiteral("%1: an SQLite database that is not a gapscope fleet index (no "
                                "meta.schema_version)")
                     .arg(path);
        return false;
    }
    if (version.value(0).toInt() != kFleetSchemaVersion) {
        *error = QStringLiteral("%1: a fleet index of schema version %2; this gapscope writes version %3 "
                                "(index into a new file)")
                     .arg(path, version.value(0).toString())
                     .arg(kFleetSchemaVersion);
        return false;
    }
    return true;
}

QHash<QString, FleetWalkedPath> FleetDatabase::walkedPaths(QString* error) const
{
    QHash<QString, FleetWalkedPath> walked;
    QSqlQuery query(database());
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'walked'"))) {
        *error = sqlFailure(m_path, query);
        return walked;
    }
    if (!query.next())
        return walked; // no index has written it yet
    if (!query.exec(QStringLiteral("SELECT path, size, mtime_ns, skipped FROM walked"))) {
        *error = sqlFailure(m_path, query);
        return walked;
    }
    while (query.next()) {
        const QString skipped = query.value(3).toString();
        walked.insert(
            query.value(0).toString(),
            FleetWalkedPath{FleetInputStamp{query.value(1).toLongLong(), query.value(2).toLongLong()},
                            skipped.isEmpty() ? QStringList() : skipped.split(QLatin1Char('\n'))});
    }
    return walked;
}

bool FleetDatabase::updateWalkedPaths(const QHash<QString, FleetWalkedPath>& changed, const QStringList& gone,
                                      QString* error)
{
    if (changed.isEmpty() && gone.isEmpty())
        return true;
    QSqlDatabase db = database();
    if (!beginTransaction(error))
        return false;
    const auto fail = [&](const QSqlQuery& query) { return failTransaction(m_path, query, error); };
    QSqlQuery write(db);
    if (!write.exec(QString::fromLatin1(kFleetWalkedTable)))
        return fail(write);
    write.prepare(
        QStringLiteral("INSERT OR REPLACE INTO walked (path, size, mtime_ns, skipped) VALUES (?, ?, ?, ?)"));
    for (auto it = changed.begin(); it != changed.end(); ++it) {
        write.addBindValue(it.key());
        write.addBindValue(it->stamp.size);
        write.addBindValue(it->stamp.mtimeNs);
        write.addBindValue(nullable(it->skipped.join(QLatin1Char('\n'))));
        if (!write.exec())
            return fail(write);
    }
    QSqlQuery remove(db);
    remove.prepare(QStringLiteral("DELETE FROM walked WHERE path = ?"));
    for (const QString& path : gone) {
        remove.addBindValue(path);
        if (!remove.exec())
            return fail(remove);
    }
    return commitTransaction(error);
}

QHash<QString, FleetDatabase::KnownInput> FleetDatabase::knownInputs(QString* error) const
{
    QHash<QString, KnownInput> known;
    QSqlQuery query(database());
    if (!query.exec(
            QStringLiteral("SELECT path, input_kind, input_size, input_mtime_ns, vanished FROM inputs"))) {
        *error = sqlFailure(m_path, query);
        return known;
    }
    while (query.next())
        known.insert(query.value(0).toString(),
                     KnownInput{query.value(1).toString(),
                                FleetInputStamp{query.value(2).toLongLong(), query.value(3).toLongLong()},
                                query.value(4).toBool()});
    return known;
}

bool FleetDatabase::writeInput(const IndexedInput& input, QString* error)
{
    QSqlDatabase db = database();
    if (!beginTransaction(error))
        return false;
    const auto fail = [&](const QSqlQuery& query) {
        return failTransaction(QStringLiteral("%1: writing %2").arg(m_path, input.path), query, error);
    };
    if (!m_inputStatements) {
        auto statements = std::make_unique<InputStatements>(db);
        if (!statements->prepare()) {
            for (const QSqlQuery* query :
                 {&statements->deleteIssueRuns, &statements->deleteRuns, &statements->input, &statements->run,
                  &statements->issue, &statements->link})
                if (query->lastError().isValid())
                    return fail(*query);
            return fail(statements->deleteIssueRuns);
        }
        m_inputStatements = std::move(statements);
    }
    InputStatements& statements = *m_inputStatements;
    for (QSqlQuery* query : {&statements.deleteIssueRuns, &statements.deleteRuns}) {
        query->addBindValue(input.path);
        if (!query->exec())
            return fail(*query);
    }
    QSqlQuery& query = statements.input;
    query.addBindValue(input.path);
    query.addBindValue(input.kind);
    query.addBindValue(input.stamp.size);
    query.addBindValue(input.stamp.mtimeNs);
    query.addBindValue(qint64(input.runs.size()));
    query.addBindValue(nullable(input.error));
    if (!query.exec())
        return fail(query);
    QSqlQuery& run = statements.run;
    QSqlQuery& issue = statements.issue;
    QSqlQuery& link = statements.link;
    for (const FleetRun& r : input.runs) {
        const QVariantList values = {
            r.path.isEmpty() ? input.path : r.path,
            input.path,
            input.kind,
            input.stamp.size,
            input.stamp.mtimeNs,
            0,
            nullable(r.jobId),
            nullable(r.rank),
            nullable(r.worldSize),
            nullable(r.sessionId),
            nullable(r.sessionStatus),
            nullable(r.host),
            nullable(r.pid),
            nullable(r.collector),
            nullable(r.backend),
            nullable(r.startNs),
            nullable(r.endNs),
            r.samples,
            nullable(r.deviceTotalBytes),
            nullable(r.peakGapBytes),
            nullable(r.latestGapBytes),
            nullable(r.driftSlopeBytesPerS),
            r.findingCount,
            nullable(r.worstClass),
            nullable(r.worstSeverity),
            nullable(r.worstConfidence),
            nullable(r.worstPhase),
            nullable(r.notices),
            nullable(r.firstCauseRank),
            r.oomCount,
        };
        for (const QVariant& value : values)
            run.addBindValue(value);
        if (!run.exec())
            return fail(run);
        const qint64 runId = run.lastInsertId().toLongLong();
        for (const FleetIssueHits& hits : r.issues) {
            for (const QVariant& value :
                 {QVariant(hits.fingerprint), QVariant(hits.kind), QVariant(hits.issueClass),
                  QVariant(hits.severity), QVariant(hits.title), QVariant(hits.dimensions)})
                issue.addBindValue(value);
            if (!issue.exec())
                return fail(issue);
            link.addBindValue(hits.fingerprint);
            link.addBindValue(runId);
            link.addBindValue(hits.hitCount);
            link.addBindValue(nullable(hits.firstSeenNs));
            link.addBindValue(nullable(hits.lastSeenNs));
            if (!link.exec())
                return fail(link);
        }
    }
    return commitTransaction(error);
}

bool FleetDatabase::setVanished(const QStringList& paths, bool vanished, QString* error)
{
    if (paths.isEmpty())
        return true;
    QSqlDatabase db = database();
    if (!beginTransaction(error))
        return false;
    QSqlQuery inputs(db);
    inputs.prepare(QStringLiteral("UPDATE inputs SET vanished = ? WHERE path = ?"));
    QSqlQuery runs(db);
    runs.prepare(QStringLiteral("UPDATE runs SET vanished = ? WHERE input_path = ?"));
    for (const QString& path : paths) {
        for (QSqlQuery* query : {&inputs, &runs}) {
            query->addBindValue(vanished ? 1 : 0);
            query->addBindValue(path);
            if (!query->exec())
                return failTransaction(m_path, *query, error);
        }
    }
    return commitTransaction(error);
}

bool FleetDatabase::mergeFrom(const QString& partPath, QString* error)
{
    // the part must be a fleet index of this version: opened on its own first
    {
        FleetDatabase part;
        if (!part.open(partPath, error))
            return false;
    }
    QSqlDatabase db = database();
    QSqlQuery attach(db);
    attach.prepare(QStringLiteral("ATTACH DATABASE ? AS part"));
    attach.addBindValue(partPath);
    if (!attach.exec()) {
        *error = sqlFailure(partPath, attach);
        return false;
    }
    const QStringList statements = {
        // the part's inputs replace those of the same path here, with their runs
        QStringLiteral("DELETE FROM issue_runs WHERE run_id IN (SELECT run_id FROM runs WHERE input_path IN "
                       "(SELECT path FROM part.inputs))"),
        QStringLiteral("DELETE FROM runs WHERE input_path IN (SELECT path FROM part.inputs)"),
        QStringLiteral("INSERT OR REPLACE INTO inputs SELECT * FROM part.inputs"),
        QStringLiteral(
            "CREATE TEMP TABLE merge_offset AS SELECT COALESCE(MAX(run_id), 0) AS offset FROM main.runs"),
        QStringLiteral("INSERT INTO runs (run_id, %1) SELECT run_id + (SELECT offset FROM merge_offset), %1 "
                       "FROM part.runs ORDER BY run_id")
            .arg(QLatin1String(kRunColumns)),
        QStringLiteral("INSERT OR IGNORE INTO issues SELECT * FROM part.issues"),
        QStringLiteral("INSERT INTO issue_runs (fingerprint, run_id, hit_count, first_seen_ns, last_seen_ns) "
                       "SELECT fingerprint, run_id + (SELECT offset FROM merge_offset), hit_count, "
                       "first_seen_ns, last_seen_ns FROM part.issue_runs"),
        QStringLiteral("DROP TABLE merge_offset"),
    };
    bool ok = db.transaction();
    for (const QString& statement : statements) {
        if (!ok)
            break;
        QSqlQuery query(db);
        if (!query.exec(statement)) {
            *error = sqlFailure(QStringLiteral("%1: merging %2").arg(m_path, partPath), query);
            ok = false;
        }
    }
    if (ok && !db.commit()) {
        *error = QStringLiteral("%1: %2").arg(m_path, db.lastError().text());
        ok = false;
    }
    if (!ok)
        db.rollback();
    QSqlQuery detach(db);
    detach.exec(QStringLiteral("DETACH DATABASE part"));
    return ok;
}

} // namespace gapscope
