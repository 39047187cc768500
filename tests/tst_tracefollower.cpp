// TraceFollower against a writer thread: lines appended (some split over two writes), new
// segments, manifest updates, retention pruning and rotation. Reads are driven by poll() with a
// fake clock so every count is exact; one case lets the watcher and poll timer do the work.
#include "model/work/TraceFollower.h"
#include "model/trace/TraceLoader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

using namespace gapscope;

namespace {

QList<QByteArray> fixtureLines(const QString& name)
{
    QFile file(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name);
    QList<QByteArray> lines;
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        if (!line.endsWith('\n'))
            line.append('\n');
        lines << line;
    }
    return lines;
}

QByteArray joined(const QList<QByteArray>& lines, qsizetype from, qsizetype count)
{
    QByteArray out;
    for (qsizetype i = from; i < from + count; ++i)
        out += lines[i];
    return out;
}

// Runs file writes on its own thread, one step at a time: run() returns when the step is done,
// so the reader sees exactly the bytes of the steps so far.
class WriterThread
{
public:
    WriterThread() : m_thread([this] { loop(); }) {}
    ~WriterThread()
    {
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    void run(std::function<void()> step)
    {
        std::unique_lock lock(m_mutex);
        m_steps.push_back(std::move(step));
        m_wake.notify_all();
        m_done.wait(lock, [this] { return m_steps.empty() && !m_busy; });
    }
    // Queues a step without waiting (the watcher test).
    void post(std::function<void()> step)
    {
        std::lock_guard lock(m_mutex);
        m_steps.push_back(std::move(step));
        m_wake.notify_all();
    }

private:
    void loop()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_quit || !m_steps.empty(); });
            if (m_steps.empty())
                return;
            auto step = std::move(m_steps.front());
            m_steps.pop_front();
            m_busy = true;
            lock.unlock();
            step();
            lock.lock();
            m_busy = false;
            m_done.notify_all();
        }
    }
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<std::function<void()>> m_steps;
    bool m_busy = false;
    bool m_quit = false;
    std::thread m_thread;
};

void appendBytes(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    if (file.open(QIODevice::Append)) {
        file.write(bytes);
        file.flush();
    }
}

void writeManifest(const QString& dir, const QString& status, const QStringList& segments,
                   const QList<int>& counts, std::optional<int> rank = std::nullopt)
{
    QJsonArray list;
    for (qsizetype i = 0; i < segments.size(); ++i)
        list.append(QJsonObject{
            {QStringLiteral("filename"), segments[i]},
            {QStringLiteral("event_count"), counts[i]},
            {QStringLiteral("session_id"), QStringLiteral("6513270e-269e-0d37-f2a7-4de452e6b438")}});
    QJsonObject session{
        {QStringLiteral("session_id"), QStringLiteral("6513270e-269e-0d37-f2a7-4de452e6b438")},
        {QStringLiteral("status"), status}};
    if (rank)
        session.insert(QStringLiteral("rank"), *rank);
    const QJsonObject root{{QStringLiteral("format"), QStringLiteral("stormlog.append_only_telemetry_sink")},
                           {QStringLiteral("sessions"), QJsonArray{session}},
                           {QStringLiteral("segments"), list}};
    // as the writer does: a new file renamed over the old one
    const QString tmp = QDir(dir).filePath(QStringLiteral("manifest.json.tmp"));
    QFile file(tmp);
    if (file.open(QIODevice::WriteOnly))
        file.write(QJsonDocument(root).toJson());
    file.close();
    QFile::remove(QDir(dir).filePath(QStringLiteral("manifest.json")));
    QFile::rename(tmp, QDir(dir).filePath(QStringLiteral("manifest.json")));
}

// Timestamps of the snapshot must be those of the lines written, each once.
bool sameTimestamps(const TraceData& data, const QList<QByteArray>& lines, qsizetype from, qsizetype count)
{
    std::multiset<qint64> expected;
    for (qsizetype i = from; i < from + count; ++i)
        expected.insert(
            QJsonDocument::fromJson(lines[i]).object().value(QLatin1String("timestamp_ns")).toInteger());
    std::multiset<qint64> actual(data.store.timestampNs.begin(), data.store.timestampNs.end());
    return expected == actual;
}

} // namespace

class TestTraceFollower : public QObject
{
    Q_OBJECT

    qint64 m_nowMs = 0;

    void useFakeClock(TraceFollower& follower)
    {
        m_nowMs = 0;
        follower.setClock([this] { return m_nowMs; });
        follower.setPollInterval(3600 * 1000); // tests poll by hand
    }

private slots:
    void appendsLinesAndWaitsForPartialOnes()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QVERIFY(lines.size() > 200);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        WriterThread writer;
        writer.run([&] { appendBytes(path, joined(lines, 0, 100)); });

        TraceFollower follower;
        useFakeClock(follower);
        follower.setSynchronousAnalysis(true);
        follower.setAnalysisRequest(AnalysisRequest{});
        QSignalSpy published(&follower, &TraceFollower::snapshotPublished);
        QSignalSpy analysed(&follower, &TraceFollower::analysisFinished);
        QString error;
        QVERIFY2(follower.start(path, &error), qPrintable(error));
        QCOMPARE(follower.snapshot()->store.size(), size_t(100));
        QCOMPARE(published.count(), 1);
        QCOMPARE(analysed.count(), 1);
        const auto first = follower.snapshot();

        writer.run([&] { appendBytes(path, joined(lines, 100, 50)); });
        m_nowMs = 100;
        QCOMPARE(follower.poll(), qint64(50));
        QCOMPARE(follower.rowCount(), qint64(150));
        QCOMPARE(published.count(), 1); // within the interval: read, not yet published

        // one line in two writes: the first half waits
        const QByteArray line = lines[150];
        writer.run([&] { appendBytes(path, line.left(line.size() / 2)); });
        m_nowMs = 200;
        QCOMPARE(follower.poll(), qint64(0));
        QCOMPARE(follower.rowCount(), qint64(150));
        writer.run([&] { appendBytes(path, line.mid(line.size() / 2)); });
        m_nowMs = 300;
        QCOMPARE(follower.poll(), qint64(1));
        QCOMPARE(follower.rowCount(), qint64(151));
        QCOMPARE(follower.poll(), qint64(0)); // nothing new, nothing read twice

        m_nowMs = 1000;
        follower.publishIfDue();
        QCOMPARE(published.count(), 2);
        QCOMPARE(analysed.count(), 2);
        const auto second = follower.snapshot();
        QCOMPARE(second->store.size(), size_t(151));
        QVERIFY(sameTimestamps(*second, lines, 0, 151));
        // the first snapshot was not touched by the append
        QCOMPARE(first->store.size(), size_t(100));
        QVERIFY(sameTimestamps(*first, lines, 0, 100));
        QCOMPARE(second->problems.errorCount(), qint64(0));

        // the rest of the file, then the analysis matches a fresh load of the same bytes
        writer.run([&] { appendBytes(path, joined(lines, 151, lines.size() - 151)); });
        m_nowMs = 2000;
        follower.poll();
        QCOMPARE(follower.snapshot()->store.size(), size_t(lines.size()));
        const auto fresh = loadTrace(path);
        QVERIFY(fresh.data);
        QCOMPARE(follower.snapshot()->store.timestampNs, fresh.data->store.timestampNs);
        const auto result = qvariant_cast<std::shared_ptr<const AnalysisResult>>(analysed.last().at(0));
        const auto reference = runAnalysis(fresh.data, AnalysisRequest{});
        QCOMPARE(result->findings.size(), reference->findings.size());
        for (size_t i = 0; i < reference->findings.size(); ++i) {
            QVERIFY(result->findings[i].classification == reference->findings[i].classification);
            QCOMPARE(result->findings[i].confidence, reference->findings[i].confidence);
        }
    }

    // A last line without its newline that is a whole record is shown at once, but read again
    // with what its writer adds to it: here a second object after the record, which a whole
    // read loads with a warning (not as a line of its own, an error).
    void recordWithoutNewlineIsReadAgainWithItsLine()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        appendBytes(path, joined(lines, 0, 2));
        TraceFollower follower;
        useFakeClock(follower);
        QString error;
        QVERIFY2(follower.start(path, &error), qPrintable(error));
        QCOMPARE(follower.rowCount(), qint64(2));

        appendBytes(path, lines[2].trimmed()); // a whole record, no newline yet
        QCOMPARE(follower.poll(), qint64(1));
        QCOMPARE(follower.rowCount(), qint64(3));
        QCOMPARE(follower.poll(), qint64(0)); // nothing new: not read again

        appendBytes(path, " {}\n");
        QCOMPARE(follower.poll(), qint64(0)); // the same row, now with its whole line
        QCOMPARE(follower.rowCount(), qint64(3));
        m_nowMs = 5000;
        follower.publishIfDue();
        const auto followed = follower.snapshot();
        const LoadOutcome whole = loadTrace(path);
        QVERIFY2(whole.data, qPrintable(whole.fatalError));
        QCOMPARE(followed->store.timestampNs, whole.data->store.timestampNs);
        QCOMPARE(followed->problems.errorCount(), qint64(0));
        QCOMPARE(followed->problems.warningCount(), whole.data->problems.warningCount());
        QCOMPARE(whole.data->problems.warningCount(), qint64(1));

        // A record whose line turns into broken JSON goes: poll() says the row count fell.
        appendBytes(path, lines[3].trimmed());
        QCOMPARE(follower.poll(), qint64(1));
        appendBytes(path, " trailing text\n");
        QCOMPARE(follower.poll(), qint64(-1));
        QCOMPARE(follower.rowCount(), qint64(3));
        m_nowMs = 10000;
        follower.publishIfDue();
        QCOMPARE(follower.snapshot()->problems.errorCount(), qint64(1));
        QCOMPARE(loadTrace(path).data->problems.errorCount(), qint64(1));
    }

    void analysisIsThrottled()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        WriterThread writer;
        writer.run([&] { appendBytes(path, joined(lines, 0, 10)); });
        TraceFollower follower;
        useFakeClock(follower);
        follower.setSynchronousAnalysis(true);
        follower.setAnalysisRequest(AnalysisRequest{});
        QVERIFY(follower.start(path));
        QCOMPARE(follower.analysisRunCount(), qint64(1));
        // a line every 100 ms for 3 s: 30 reads, one analysis per full second
        qsizetype next = 10;
        for (int step = 1; step <= 30; ++step) {
            writer.run([&] { appendBytes(path, lines[next]); });
            ++next;
            m_nowMs = step * 100;
            QCOMPARE(follower.poll(), qint64(1));
        }
        QCOMPARE(follower.rowCount(), qint64(40));
        QCOMPARE(follower.analysisRunCount(), qint64(1 + 3)); // at 1000, 2000, 3000 ms
        QCOMPARE(follower.publishCount(), follower.analysisRunCount());
        QCOMPARE(follower.snapshot()->store.size(), size_t(40)); // published at 3000 with all rows
        // polls without new rows do not analyse again
        m_nowMs = 10000;
        follower.poll();
        QCOMPARE(follower.analysisRunCount(), qint64(4));
    }

    void pauseKeepsData()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        WriterThread writer;
        writer.run([&] { appendBytes(path, joined(lines, 0, 20)); });
        TraceFollower follower;
        useFakeClock(follower);
        QVERIFY(follower.start(path));
        follower.setPaused(true);
        QVERIFY(!follower.isFollowing());
        writer.run([&] { appendBytes(path, joined(lines, 20, 5)); });
        QCOMPARE(follower.poll(), qint64(0));
        QCOMPARE(follower.snapshot()->store.size(), size_t(20));
        m_nowMs = 5000;
        follower.setPaused(false); // reads what came meanwhile
        QCOMPARE(follower.rowCount(), qint64(25));
        QCOMPARE(follower.snapshot()->store.size(), size_t(25));
        follower.stop();
        QCOMPARE(follower.snapshot()->store.size(), size_t(25));
    }

    void rotationReloadsFromStart()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("drift.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        WriterThread writer;
        writer.run([&] { appendBytes(path, joined(lines, 0, 60)); });
        TraceFollower follower;
        useFakeClock(follower);
        QSignalSpy notices(&follower, &TraceFollower::notice);
        QVERIFY(follower.start(path));
        QCOMPARE(follower.rowCount(), qint64(60));

        // truncated in place (same inode), then fewer lines written
        writer.run([&] {
            QFile file(path);
            if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
                file.write(joined(lines, 200, 15));
        });
        m_nowMs = 100;
        follower.poll();
        QCOMPARE(follower.rowCount(), qint64(15));
        QCOMPARE(follower.snapshot()->store.size(), size_t(15)); // a rotation is shown at once
        QVERIFY(sameTimestamps(*follower.snapshot(), lines, 200, 15));
        QCOMPARE(notices.count(), 1);
        QVERIFY(notices.first().at(0).toString().contains(QStringLiteral("rotation")));

        // replaced by a new file (other inode) that is larger than what was read
        writer.run([&] {
            const QString next = dir.filePath(QStringLiteral("next.jsonl"));
            QFile file(next);
            if (file.open(QIODevice::WriteOnly))
                file.write(joined(lines, 100, 40));
            file.close();
            QFile::remove(path);
            QFile::rename(next, path);
        });
        m_nowMs = 200;
        follower.poll();
        QCOMPARE(follower.rowCount(), qint64(40));
        QVERIFY(sameTimestamps(*follower.snapshot(), lines, 100, 40));
        QCOMPARE(notices.count(), 2);
        // the notices reach the problems list of the trace too
        QCOMPARE(follower.snapshot()->problems.warningCount(), qint64(1));
    }

    void sinkSegmentsManifestAndRetention()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("phases.jsonl"));
        QTemporaryDir dir;
        const QString sink = dir.path();
        const QString seg1 = QDir(sink).filePath(QStringLiteral("segment-000001.jsonl"));
        const QString seg2 = QDir(sink).filePath(QStringLiteral("segment-000002.jsonl"));
        WriterThread writer;
        writer.run([&] {
            appendBytes(seg1, joined(lines, 0, 100));
            writeManifest(sink, QStringLiteral("running"), {QStringLiteral("segment-000001.jsonl")}, {100});
        });
        TraceFollower follower;
        useFakeClock(follower);
        QSignalSpy notices(&follower, &TraceFollower::notice);
        QString error;
        QVERIFY2(follower.start(sink, &error), qPrintable(error));
        auto snapshot = follower.snapshot();
        QVERIFY(snapshot->form == TraceForm::SinkDirectory);
        QCOMPARE(snapshot->store.size(), size_t(100));
        QCOMPARE(snapshot->sessions.size(), size_t(1));
        QVERIFY(snapshot->sessions[0].status == SessionStatus::Running);

        // the first segment grows and a second one appears before the manifest names it
        writer.run([&] {
            appendBytes(seg1, joined(lines, 100, 50));
            appendBytes(seg2, joined(lines, 150, 60));
        });
        m_nowMs = 1000;
        QCOMPARE(follower.poll(), qint64(110));
        QCOMPARE(follower.snapshot()->store.size(), size_t(210));

        // manifest update names it; more lines, one split over two writes
        writer.run([&] {
            writeManifest(sink, QStringLiteral("running"),
                          {QStringLiteral("segment-000001.jsonl"), QStringLiteral("segment-000002.jsonl")},
                          {150, 60});
            appendBytes(seg2, joined(lines, 210, 10) + lines[220].left(30));
        });
        m_nowMs = 2000;
        QCOMPARE(follower.poll(), qint64(10));
        writer.run([&] { appendBytes(seg2, lines[220].mid(30) + joined(lines, 221, lines.size() - 221)); });
        m_nowMs = 3000;
        QCOMPARE(follower.poll(), qint64(lines.size() - 220));
        QCOMPARE(follower.snapshot()->store.size(), size_t(lines.size()));
        QVERIFY(sameTimestamps(*follower.snapshot(), lines, 0, lines.size()));
        QCOMPARE(follower.snapshot()->phases.size(),
                 loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/phases.jsonl"))
                     .data->phases.size());
        QCOMPARE(notices.count(), 0);

        // retention drops the first segment; the run completes
        writer.run([&] {
            QFile::remove(seg1);
            writeManifest(sink, QStringLiteral("completed"), {QStringLiteral("segment-000002.jsonl")},
                          {int(lines.size() - 150)});
        });
        m_nowMs = 4000;
        QCOMPARE(follower.poll(), qint64(0));
        follower.publishIfDue();
        snapshot = follower.snapshot();
        QCOMPARE(snapshot->store.size(), size_t(lines.size())); // pruned rows are kept
        QVERIFY(snapshot->sessions[0].status == SessionStatus::Completed);
        QCOMPARE(snapshot->sessions[0].manifestEventCount, qint64(lines.size() - 150));
        QCOMPARE(notices.count(), 1);
        QVERIFY(notices.first().at(0).toString().contains(QStringLiteral("segment-000001.jsonl was pruned")));
    }

    void sinkManifestSessionFields_data()
    {
        QTest::addColumn<QString>("status");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("expected"); // a SessionStatus
        QTest::newRow("running, rank") << QStringLiteral("running") << 7 << int(SessionStatus::Running);
        QTest::newRow("unknown status")
            << QStringLiteral("paused-by-operator") << 3 << int(SessionStatus::Unknown);
    }
    void sinkManifestSessionFields()
    {
        // The follower reads manifest.json as loadTrace does (one SinkManifest): the session's
        // rank is one of its ranks, and a status this version does not know stays Unknown
        // rather than giving way to inference.
        QFETCH(QString, status);
        QFETCH(int, rank);
        QFETCH(int, expected);
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("phases.jsonl"));
        QTemporaryDir dir;
        const QString sink = dir.path();
        appendBytes(QDir(sink).filePath(QStringLiteral("segment-000001.jsonl")), joined(lines, 0, 100));
        writeManifest(sink, status, {QStringLiteral("segment-000001.jsonl")}, {100}, rank);
        TraceFollower follower;
        useFakeClock(follower);
        QString error;
        QVERIFY2(follower.start(sink, &error), qPrintable(error));
        const auto snapshot = follower.snapshot();
        QCOMPARE(snapshot->sessions.size(), size_t(1));
        const SessionInfo& followed = snapshot->sessions[0];
        QCOMPARE(int(followed.status), expected);
        QVERIFY(std::find(followed.ranks.begin(), followed.ranks.end(), int64_t(rank)) !=
                followed.ranks.end());

        const LoadOutcome loaded = loadTrace(sink);
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        QCOMPARE(loaded.data->sessions.size(), size_t(1));
        QVERIFY(loaded.data->sessions[0].status == followed.status);
        QCOMPARE(loaded.data->sessions[0].ranks, followed.ranks);
        QCOMPARE(loaded.data->sessions[0].manifestEventCount, followed.manifestEventCount);
    }

    void watcherAndTimerFollowWithoutPolling()
    {
        const QList<QByteArray> lines = fixtureLines(QStringLiteral("mixed.jsonl"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        WriterThread writer;
        writer.run([&] { appendBytes(path, joined(lines, 0, 30)); });
        TraceFollower follower; // real clock, real timers
        follower.setAnalysisInterval(50);
        follower.setAnalysisRequest(AnalysisRequest{});
        QSignalSpy analysed(&follower, &TraceFollower::analysisFinished);
        QVERIFY(follower.start(path));
        for (qsizetype i = 30; i < lines.size(); i += 40) {
            const QByteArray bytes = joined(lines, i, std::min<qsizetype>(40, lines.size() - i));
            writer.post([&, bytes] { appendBytes(path, bytes); });
        }
        QTRY_COMPARE_WITH_TIMEOUT(follower.rowCount(), qint64(lines.size()), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(follower.snapshot()->store.size(), size_t(lines.size()), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(
            !analysed.isEmpty() && qvariant_cast<std::shared_ptr<const AnalysisResult>>(analysed.last().at(0))
                                           ->trace->store.size() == size_t(lines.size()),
            20000);
        QVERIFY(sameTimestamps(*follower.snapshot(), lines, 0, lines.size()));
    }

    void refusesWhatCannotBeFollowed()
    {
        QTemporaryDir dir;
        QString why;
        QVERIFY(!TraceFollower::canFollow(dir.path(), &why)); // no manifest
        QVERIFY(why.contains(QStringLiteral("manifest.json")));
        QVERIFY(!TraceFollower::canFollow(dir.filePath(QStringLiteral("missing.jsonl")), &why));
        const QString array = dir.filePath(QStringLiteral("array.json"));
        appendBytes(array,
                    QByteArray("[") + fixtureLines(QStringLiteral("drift.jsonl")).front().trimmed() + "]");
        TraceFollower follower;
        QString error;
        QVERIFY(!follower.start(array, &error));
        QVERIFY2(error.contains(QStringLiteral("only JSON lines files and sink directories")),
                 qPrintable(error));
        QVERIFY(!follower.snapshot());
    }
};

QTEST_GUILESS_MAIN(TestTraceFollower)
#include "tst_tracefollower.moc"
