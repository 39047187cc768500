#pragma once
// What the fleet index's tests read back from a database (tst_fleetindex, tst_fleetdask).

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QVariant>

// Copies the files under from to to (a tree the test may change).
inline bool copyTree(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString target = to + source.mid(from.size());
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(source, target))
            return false;
    }
    return true;
}

// Every row of a query as text, one string a row.
inline QStringList rowsOf(const QSqlDatabase& db, const QString& sql)
{
    QStringList rows;
    QSqlQuery query(db);
    if (!query.exec(sql))
        return {QStringLiteral("query failed: ") + sql};
    while (query.next()) {
        QStringList cells;
        for (int i = 0; i < query.record().count(); ++i)
            cells << (query.value(i).isNull() ? QStringLiteral("NULL") : query.value(i).toString());
        rows << cells.join(QLatin1Char('|'));
    }
    return rows;
}

inline QVariant valueOf(const QSqlDatabase& db, const QString& sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QStringLiteral("query failed: ") + sql;
    return query.value(0);
}

// The content of a database without its row ids: what one index and merged shards must agree on.
inline QStringList contentOf(const QSqlDatabase& db)
{
    const QString runColumns = QStringLiteral(
        "path, input_path, input_kind, input_size, input_mtime_ns, vanished, job_id, rank, world_size, "
        "session_id, session_status, host, pid, collector, backend, start_ns, end_ns, samples, "
        "device_total_bytes, peak_gap_bytes, latest_gap_bytes, drift_slope_bytes_per_s, finding_count, "
        "worst_class, worst_severity, worst_confidence, worst_phase, notices, first_cause_rank, oom_count");
    QStringList all;
    all << rowsOf(db, QStringLiteral("SELECT 'input', * FROM inputs ORDER BY path"));
    all << rowsOf(
        db, QStringLiteral("SELECT 'run', %1 FROM runs ORDER BY path, session_id, rank").arg(runColumns));
    all << rowsOf(db, QStringLiteral("SELECT 'issue', * FROM issues ORDER BY fingerprint"));
    all << rowsOf(
        db, QStringLiteral("SELECT 'hits', l.fingerprint, r.path, r.session_id, r.rank, l.hit_count, "
                           "l.first_seen_ns, l.last_seen_ns FROM issue_runs l JOIN runs r USING (run_id) "
                           "ORDER BY 2, 3, 4, 5"));
    all << rowsOf(db, QStringLiteral("SELECT 'recurring', * FROM recurring_issues ORDER BY fingerprint"));
    return all;
}
