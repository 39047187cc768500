#include "model/fleetdata/FleetQuery.h"

#include <QAtomicInteger>
#include <QFileInfo>
#include <QHash>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QVariant>

#include <algorithm>
#include <cmath>

namespace gapscope {

bool headIsSqlite(std::string_view head)
{
    static constexpr std::string_view kMagic("SQLite format 3\0", 16);
    return head.substr(0, kMagic.size()) == kMagic;
}

bool headIsFleetDatabase(std::string_view head)
{
    // the CREATE statements as model/fleet/FleetSchema.h writes them, which sqlite_master keeps
    // verbatim
    return headIsSqlite(head) && head.find("CREATE TABLE meta (") != std::string_view::npos &&
           head.find("CREATE TABLE runs (") != std::string_view::npos &&
           head.find("CREATE TABLE issue_runs (") != std::string_view::npos;
}

namespace {

// One connection for one load, removed with it (Qt SQL connections are per thread and named).
class ReadOnlyConnection
{
public:
    explicit ReadOnlyConnection(const QString& path)
    {
        static QAtomicInteger<quint64> serial;
        m_name = QStringLiteral("gapscope-fleet-read-%1").arg(serial.fetchAndAddRelaxed(1));
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        m_open = db.open();
        if (!m_open)
            m_error = db.lastError().text();
    }
    ~ReadOnlyConnection()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    ReadOnlyConnection(const ReadOnlyConnection&) = delete;
    ReadOnlyConnection& operator=(const ReadOnlyConnection&) = delete;
    bool isOpen() const { return m_open; }
    QString error() const { return m_error; }
    QSqlDatabase database() const { return QSqlDatabase::database(m_name, false); }

private:
    QString m_name;
    bool m_open = false;
    QString m_error;
};

qint64 integerOrNone(const QVariant& v)
{
    return v.isNull() ? kFleetNoValue : v.toLongLong();
}

double realOrNaN(const QVariant& v)
{
    return v.isNull() ? std::nan("") : v.toDouble();
}

// Interns text into data.strings.
class StringTable
{
public:
    explicit StringTable(FleetData& data) : m_data(data) { m_ids.insert(QString(), 0); }
    quint32 id(const QVariant& v)
    {
        if (v.isNull())
            return 0;
        const QString text = v.toString();
        const auto it = m_ids.constFind(text);
        if (it != m_ids.constEnd())
            return *it;
        const auto id = quint32(m_data.strings.size());
        m_data.strings << text;
        m_ids.insert(text, id);
        return id;
    }

private:
    FleetData& m_data;
    QHash<QString, quint32> m_ids;
};

} // namespace

FleetLoadOutcome loadFleetDatabase(const QString& path, const LoadControl& control)
{
    FleetLoadOutcome outcome;
    const auto fail = [&](const QString& reason) {
        outcome.fatalError = QStringLiteral("%1: %2").arg(path, reason);
        return outcome;
    };
    if (!QFileInfo(path).isFile())
        return fail(QStringLiteral("no such file"));
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")))
        return fail(QStringLiteral("Qt's SQLite driver (QSQLITE) is not installed"));
    const ReadOnlyConnection connection(path);
    if (!connection.isOpen())
        return fail(
            QStringLiteral("cannot open it read-only as an SQLite database: %1").arg(connection.error()));
    const QSqlDatabase db = connection.database();
    auto data = std::make_shared<FleetData>();
    data->path = path;

    QSqlQuery query(db);
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")) || !query.next())
        return fail(QStringLiteral("not a gapscope fleet index (no meta.schema_version): %1")
                        .arg(query.lastError().text().isEmpty() ? QStringLiteral("no such row")
                                                                : query.lastError().text()));
    bool numeric = false;
    data->schemaVersion = query.value(0).toString().toInt(&numeric);
    if (!numeric || data->schemaVersion != kFleetReadSchemaVersion)
        return fail(QStringLiteral("fleet index schema version %1; this gapscope reads version %2 (index "
                                   "into a new file with this gapscope)")
                        .arg(query.value(0).toString())
                        .arg(kFleetReadSchemaVersion));

    // the runs present
    const qint64 total = [&] {
        QSqlQuery count(db);
        return count.exec(QStringLiteral("SELECT COUNT(*), SUM(vanished) FROM runs")) && count.next()
                   ? (data->vanishedRuns = count.value(1).toInt(), count.value(0).toLongLong())
                   : qint64(0);
    }();
    if (!query.exec(QStringLiteral(
            "SELECT run_id, path, input_kind, job_id, rank, world_size, session_id, host, collector, "
            "backend, start_ns, end_ns, samples, peak_gap_bytes, latest_gap_bytes, "
            "drift_slope_bytes_per_s, finding_count, worst_class, worst_severity, worst_confidence, "
            "worst_phase, notices, first_cause_rank, oom_count FROM runs WHERE vanished = 0 ORDER BY "
            "run_id")))
        return fail(QStringLiteral("cannot read its runs: %1").arg(query.lastError().text()));
    StringTable strings(*data);
    FleetRuns& runs = data->runs;
    QHash<QString, int> noticeBits;
    QStringList noticeOrder;
    std::vector<QStringList> runNotices;
    qint64 row = 0;
    while (query.next()) {
        if ((++row & 1023) == 0) {
            if (control.cancel && control.cancel->load(std::memory_order_relaxed)) {
                outcome.cancelled = true;
                return outcome;
            }
            if (control.progress)
                control.progress(row, total);
        }
        runs.runId.push_back(query.value(0).toLongLong());
        runs.path.push_back(strings.id(query.value(1)));
        runs.inputKind.push_back(strings.id(query.value(2)));
        runs.jobId.push_back(strings.id(query.value(3)));
        runs.rank.push_back(integerOrNone(query.value(4)));
        runs.worldSize.push_back(integerOrNone(query.value(5)));
        runs.sessionId.push_back(strings.id(query.value(6)));
        runs.host.push_back(strings.id(query.value(7)));
        runs.collector.push_back(strings.id(query.value(8)));
        runs.backend.push_back(strings.id(query.value(9)));
        runs.startNs.push_back(integerOrNone(query.value(10)));
        runs.endNs.push_back(integerOrNone(query.value(11)));
        runs.samples.push_back(integerOrNone(query.value(12)));
        runs.peakGapBytes.push_back(integerOrNone(query.value(13)));
        runs.latestGapBytes.push_back(integerOrNone(query.value(14)));
        runs.driftSlopeBytesPerS.push_back(realOrNaN(query.value(15)));
        runs.findingCount.push_back(integerOrNone(query.value(16)));
        runs.worstClass.push_back(strings.id(query.value(17)));
        runs.worstSeverity.push_back(fleetSeverityFromString(query.value(18).toString()));
        runs.worstConfidence.push_back(realOrNaN(query.value(19)));
        runs.worstPhase.push_back(strings.id(query.value(20)));
        const quint32 notices = strings.id(query.value(21));
        runs.notices.push_back(notices);
        runs.firstCauseRank.push_back(integerOrNone(query.value(22)));
        runs.oomCount.push_back(integerOrNone(query.value(23)));
        quint32 mask = 0;
        for (const QString& code : data->text(notices).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            auto bit = noticeBits.constFind(code);
            if (bit == noticeBits.constEnd()) {
                if (noticeBits.size() == 32) {
                    data->problems.addWarning(path, row,
                                              QStringLiteral("notice code '%1': past the 32 "
                                                             "codes the filter tells apart")
                                                  .arg(code));
                    continue;
                }
                bit = noticeBits.insert(code, int(noticeBits.size()));
                noticeOrder << code;
            }
            mask |= quint32(1) << *bit;
        }
        runs.noticeMask.push_back(mask);
    }
    if (query.lastError().isValid())
        return fail(QStringLiteral("reading its runs: %1").arg(query.lastError().text()));
    // notice codes sorted, the masks renumbered to that order
    data->noticeCodes = noticeOrder;
    data->noticeCodes.sort();
    std::vector<int> bitOf(size_t(noticeOrder.size()));
    for (qsizetype i = 0; i < noticeOrder.size(); ++i)
        bitOf[size_t(i)] = int(data->noticeCodes.indexOf(noticeOrder[i]));
    for (quint32& mask : runs.noticeMask) {
        quint32 sorted = 0;
        for (size_t bit = 0; bit < bitOf.size(); ++bit)
            if (mask & (quint32(1) << bit))
                sorted |= quint32(1) << bitOf[bit];
        mask = sorted;
    }

    // the recurring issues, and the runs of each
    if (!query.exec(QStringLiteral("SELECT fingerprint, kind, class, severity, title, run_count, hit_count, "
                                   "session_count, first_seen_ns, last_seen_ns FROM recurring_issues "
                                   "ORDER BY run_count DESC, hit_count DESC, fingerprint")))
        return fail(QStringLiteral("cannot read its recurring issues: %1").arg(query.lastError().text()));
    QHash<QString, size_t> issueOf;
    while (query.next()) {
        FleetIssue issue;
        issue.fingerprint = query.value(0).toString();
        issue.kind = query.value(1).toString();
        issue.issueClass = query.value(2).toString();
        issue.severity = query.value(3).toString();
        issue.title = query.value(4).toString();
        issue.runCount = query.value(5).toLongLong();
        issue.hitCount = query.value(6).toLongLong();
        issue.sessionCount = query.value(7).toLongLong();
        issue.firstSeenNs = integerOrNone(query.value(8));
        issue.lastSeenNs = integerOrNone(query.value(9));
        issueOf.insert(issue.fingerprint, data->issues.size());
        data->issues.push_back(std::move(issue));
    }
    QHash<qint64, int> runOfId;
    runOfId.reserve(qsizetype(runs.size()));
    for (size_t i = 0; i < runs.size(); ++i)
        runOfId.insert(runs.runId[i], int(i));
    if (!query.exec(
            QStringLiteral("SELECT l.fingerprint, l.run_id, l.hit_count, l.first_seen_ns, l.last_seen_ns "
                           "FROM issue_runs l JOIN runs r ON r.run_id = l.run_id WHERE r.vanished = 0")))
        return fail(QStringLiteral("cannot read the runs of its issues: %1").arg(query.lastError().text()));
    while (query.next()) {
        const auto issue = issueOf.constFind(query.value(0).toString());
        const auto run = runOfId.constFind(query.value(1).toLongLong());
        if (issue == issueOf.constEnd() || run == runOfId.constEnd())
            continue;
        data->issues[*issue].runs.push_back(FleetIssueRun{
            *run, query.value(2).toLongLong(), integerOrNone(query.value(3)), integerOrNone(query.value(4))});
    }
    for (FleetIssue& issue : data->issues)
        std::sort(issue.runs.begin(), issue.runs.end(), [](const FleetIssueRun& a, const FleetIssueRun& b) {
            return a.hitCount != b.hitCount ? a.hitCount > b.hitCount : a.run < b.run;
        });
    if (control.progress)
        control.progress(total, total);
    outcome.data = std::move(data);
    return outcome;
}

} // namespace gapscope
