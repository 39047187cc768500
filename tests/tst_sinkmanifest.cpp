// The sink manifest parser (model/trace/SinkManifest) that the loader and the follower share:
// what it takes from each session and segment entry, what it leaves out and says so, what it
// refuses, and how applySinkManifest puts it into the sessions of a trace.

#include "model/trace/SinkManifest.h"

#include <QtTest>

using namespace gapscope;

namespace {

std::optional<SinkManifest> parse(const QByteArray& text, ProblemLog* problems, QString* error)
{
    return parseSinkManifest(std::string_view(text.constData(), size_t(text.size())),
                             QStringLiteral("sink/manifest.json"), problems, error);
}

QByteArray manifest(const QByteArray& sessions, const QByteArray& segments)
{
    return R"({"format": "stormlog.append_only_telemetry_sink", "sessions": [)" + sessions +
           R"(], "segments": [)" + segments + "]}";
}

QStringList reasons(const ProblemLog& problems)
{
    QStringList out;
    for (const LoadProblem& problem : problems.kept())
        out << problem.reason;
    return out;
}

} // namespace

class TestSinkManifest : public QObject
{
    Q_OBJECT

private slots:
    void refusesWhatIsNotASinkManifest_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not JSON") << QByteArray("{\"format\": ") << QStringLiteral("not a JSON object");
        QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("not a JSON object");
        QTest::newRow("no format") << QByteArray("{}") << QStringLiteral("format ''");
        QTest::newRow("other format") << QByteArray(R"({"format": "x"})") << QStringLiteral("format 'x'");
    }
    void refusesWhatIsNotASinkManifest()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, reason);
        QString error;
        ProblemLog problems;
        QVERIFY(!parse(text, &problems, &error));
        QVERIFY2(error.contains(reason), qPrintable(error));
    }

    void sessionFields_data()
    {
        QTest::addColumn<QByteArray>("entry");
        QTest::addColumn<std::optional<SessionStatus>>("status");
        QTest::addColumn<std::optional<qint64>>("rank");
        QTest::addColumn<std::optional<qint64>>("pid");
        QTest::newRow("running, rank 3")
            << QByteArray(R"({"session_id": "s", "status": "running", "rank": 3, "pid": 12})")
            << std::optional(SessionStatus::Running) << std::optional<qint64>(3) << std::optional<qint64>(12);
        QTest::newRow("unknown status stays Unknown")
            << QByteArray(R"({"session_id": "s", "status": "paused"})")
            << std::optional(SessionStatus::Unknown) << std::optional<qint64>() << std::optional<qint64>();
        QTest::newRow("no status, a rank that is not an integer")
            << QByteArray(R"({"session_id": "s", "rank": 1.5, "pid": true})")
            << std::optional<SessionStatus>() << std::optional<qint64>() << std::optional<qint64>();
    }
    void sessionFields()
    {
        QFETCH(QByteArray, entry);
        QFETCH(std::optional<SessionStatus>, status);
        QFETCH(std::optional<qint64>, rank);
        QFETCH(std::optional<qint64>, pid);
        QString error;
        const auto parsed = parse(manifest(entry, {}), nullptr, &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->sessions.size(), size_t(1));
        const SinkManifestSession& session = parsed->sessions.front();
        QCOMPARE(session.id, QStringLiteral("s"));
        QVERIFY(session.status == status);
        QCOMPARE(session.rank, rank);
        QCOMPARE(session.pid, pid);
    }

    void entriesLeftOutAreProblems()
    {
        const QByteArray text = manifest(
            R"({"session_id": "a", "status": "running", "host": "h1"}, {"no_id": 1},
               {"session_id": "a", "status": "completed"}, {"session_id": "b"})",
            R"({"filename": "segment-1.jsonl", "event_count": 10, "session_id": "a"},
               {"event_count": 5}, {"filename": "../x.jsonl", "event_count": 7, "session_id": "a"},
               {"filename": "segment-1.jsonl", "event_count": 1, "session_id": "b"},
               {"filename": "segment-2.jsonl"})");
        QString error;
        ProblemLog problems;
        const auto parsed = parse(text, &problems, &error);
        QVERIFY2(parsed, qPrintable(error));
        // A session listed twice is one entry whose later fields win; its counts add up over
        // every segment entry that names it, used or not.
        QCOMPARE(parsed->sessions.size(), size_t(2));
        QCOMPARE(parsed->sessions[0].id, QStringLiteral("a"));
        QVERIFY(parsed->sessions[0].status == SessionStatus::Completed);
        QCOMPARE(parsed->sessions[0].host, std::optional<QString>(QStringLiteral("h1")));
        QCOMPARE(parsed->sessions[0].segmentEvents, qint64(17));
        QVERIFY(parsed->sessions[0].countKnown);
        QCOMPARE(parsed->sessions[1].segmentEvents, qint64(1));
        QCOMPARE(parsed->segments.size(), size_t(2));
        QCOMPARE(parsed->segments[0].filename, QStringLiteral("segment-1.jsonl"));
        QCOMPARE(parsed->segments[0].eventCount, std::optional<qint64>(10));
        QCOMPARE(parsed->segments[1].filename, QStringLiteral("segment-2.jsonl"));
        QCOMPARE(parsed->segments[1].eventCount, std::optional<qint64>());
        QCOMPARE(problems.errorCount(), qint64(1));
        QCOMPARE(problems.warningCount(), qint64(4));
        const QStringList said = reasons(problems);
        QVERIFY(said.filter(QStringLiteral("without a session_id")).size() == 1);
        QVERIFY(said.filter(QStringLiteral("listed twice in manifest.json")).size() == 1);
        QVERIFY(said.filter(QStringLiteral("without a filename")).size() == 1);
        QVERIFY(said.filter(QStringLiteral("not a plain file name")).size() == 1);
        QVERIFY(said.filter(QStringLiteral("'segment-1.jsonl' is listed twice")).size() == 1);
        for (const LoadProblem& problem : problems.kept())
            QCOMPARE(problem.file, QStringLiteral("sink/manifest.json"));
    }

    void segmentWithoutSessionCountsForTheOnlySession()
    {
        QString error;
        const auto parsed = parse(
            manifest(R"({"session_id": "only"})", R"({"filename": "segment-1.jsonl", "event_count": 4})"),
            nullptr, &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->sessions.front().segmentEvents, qint64(4));
        QVERIFY(parsed->sessions.front().countKnown);
    }

    void appliedToTheSessions()
    {
        TraceData data;
        data.path = QStringLiteral("sink");
        SessionInfo info;
        info.id = QStringLiteral("a");
        info.status = SessionStatus::Incomplete;
        info.ranks = {0, 4};
        data.sessions.push_back(info);
        SinkManifest manifest;
        SinkManifestSession a;
        a.id = QStringLiteral("a");
        a.status = SessionStatus::Unknown;
        a.rank = 2;
        a.host = QStringLiteral("h");
        a.segmentEvents = 9;
        a.countKnown = true;
        SinkManifestSession gone;
        gone.id = QStringLiteral("gone");
        manifest.sessions = {a, gone};

        TraceData quiet = data;
        applySinkManifest(manifest, quiet, false);
        QVERIFY(quiet.sessions[0].status == SessionStatus::Unknown);
        QCOMPARE(quiet.sessions[0].ranks, (std::vector<int64_t>{0, 2, 4}));
        QCOMPARE(quiet.sessions[0].host, QStringLiteral("h"));
        QCOMPARE(quiet.sessions[0].manifestEventCount, qint64(9));
        QCOMPARE(quiet.problems.warningCount(), qint64(0));

        applySinkManifest(manifest, data, true);
        QCOMPARE(data.sessions[0].ranks, (std::vector<int64_t>{0, 2, 4}));
        QCOMPARE(data.problems.warningCount(), qint64(1));
        QVERIFY(data.problems.kept().front().reason.contains(QStringLiteral("'gone'")));
    }
};

QTEST_GUILESS_MAIN(TestSinkManifest)
#include "tst_sinkmanifest.moc"
