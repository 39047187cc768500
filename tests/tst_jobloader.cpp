// The job loader (model/job/JobLoader): which inputs the three layouts of a distributed job
// give (sink folders, trace files in a folder, one merged file), the ranks, world size, job id
// and missing ranks each yields (checked against upstream's answers in the fixtures'
// .expected.json), and the notes on everything that is not as it should be (a rank twice, an
// input that fails, a budget log, disagreeing world sizes and job ids, too few samples): each
// names the file and the rest of the job loads. Loading: progress increasing to the total of
// all inputs, cancel, LoadJob's job signals.
#include "model/document/Document.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobLoader.h"
#include "model/job/JobRanks.h"
#include "model/work/LoadJob.h"
#include "model/report/JobAnalysisJson.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

using namespace gapscope;

namespace {

const QString kDistributed = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed");
const QString kBudgetLog = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");

QString fixture(const QString& name)
{
    return kDistributed + QLatin1Char('/') + name;
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

bool copyFile(const QString& from, const QString& to)
{
    return QDir().mkpath(QFileInfo(to).path()) && QFile::copy(from, to);
}

bool copyFolder(const QString& from, const QString& to)
{
    bool ok = QDir().mkpath(to);
    for (const QFileInfo& entry : QDir(from).entryInfoList(QDir::Files))
        ok = ok && QFile::copy(entry.filePath(), to + QLatin1Char('/') + entry.fileName());
    return ok;
}

// The paths of the inputs relative to base ("rank0/telemetry_sink").
QStringList relativeTo(const QString& base, const QStringList& paths)
{
    QStringList relative;
    for (const QString& path : paths)
        relative << QDir(base).relativeFilePath(path);
    return relative;
}

QStringList noteTexts(const ProblemLog& problems)
{
    QStringList texts;
    for (const LoadProblem& p : problems.kept())
        texts << p.toString();
    return texts;
}

// A JSON lines file with one field replaced on every line: "world_size": 4 -> 8, say.
QByteArray withReplaced(const QString& path, const QByteArray& from, const QByteArray& to)
{
    QByteArray bytes = readFile(path);
    return bytes.replace(from, to);
}

} // namespace

class TestJobLoader : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir; // layouts built from the fixtures

    QString temp(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // sinks one level down, named so that a plain name order would put rank10 first
        for (int rank : {0, 1, 2, 3})
            QVERIFY(copyFolder(fixture(QStringLiteral("firstcause-job/rank%1/telemetry_sink").arg(rank)),
                               temp(QStringLiteral("depth1/rank%1").arg(rank == 3 ? 10 : rank))));
        // trace files beside a note, a budget log and a hidden file
        for (int rank : {0, 1, 2})
            QVERIFY(copyFile(fixture(QStringLiteral("missing-files/rank%1.jsonl").arg(rank)),
                             temp(QStringLiteral("mixed/rank%1.jsonl").arg(rank))));
        QVERIFY(writeFile(temp(QStringLiteral("mixed/README.txt")), "copied from the cluster on Monday\n"));
        QVERIFY(copyFile(kBudgetLog, temp(QStringLiteral("mixed/budget.jsonl"))));
        QVERIFY(writeFile(temp(QStringLiteral("mixed/.hidden.jsonl")), "not read\n"));
        QVERIFY(QDir().mkpath(temp(QStringLiteral("empty"))));
        // rank 0 under a second name
        QVERIFY(copyFile(fixture(QStringLiteral("missing-files/rank0.jsonl")),
                         temp(QStringLiteral("again.jsonl"))));
        QVERIFY(writeFile(temp(QStringLiteral("garbage.jsonl")), "this is not JSON\n{\"neither\": \n"));
        // rank 2 of another world size, of another job; a rank with a single sample
        QVERIFY(writeFile(temp(QStringLiteral("world8/rank2.jsonl")),
                          withReplaced(fixture(QStringLiteral("missing-files/rank2.jsonl")),
                                       "\"world_size\": 4", "\"world_size\": 8")));
        QVERIFY(writeFile(temp(QStringLiteral("otherjob/rank2.jsonl")),
                          withReplaced(fixture(QStringLiteral("missing-files/rank2.jsonl")),
                                       "\"job_id\": \"job-898\"", "\"job_id\": \"job-111\"")));
        QByteArray oneSample;
        for (const QByteArray& line :
             readFile(fixture(QStringLiteral("missing-files/rank0.jsonl"))).split('\n'))
            if (line.contains("\"event_type\": \"sample\"")) {
                oneSample = line;
                break;
            }
        QVERIFY(!oneSample.isEmpty());
        // issue 32, item 7: beside two ranks, entries that cannot be read, each to be named: a
        // FIFO, a link to a device, a link loop, a name that is not UTF-8, and a hard-linked
        // copy of rank 0 (the same file by device and inode)
        for (int rank : {0, 1})
            QVERIFY(copyFile(fixture(QStringLiteral("missing-files/rank%1.jsonl").arg(rank)),
                             temp(QStringLiteral("odd/rank%1.jsonl").arg(rank))));
        QVERIFY(::mkfifo(QFile::encodeName(temp(QStringLiteral("odd/pipe.jsonl"))).constData(), 0600) == 0);
        QVERIFY(QFile::link(QStringLiteral("/dev/urandom"), temp(QStringLiteral("odd/random.jsonl"))));
        QVERIFY(QFile::link(temp(QStringLiteral("odd/loop.jsonl")), temp(QStringLiteral("odd/loop.jsonl"))));
        {
            const QByteArray raw = QFile::encodeName(temp(QStringLiteral("odd"))) + "/rank\xff.jsonl";
            const int fd = ::open(raw.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            QVERIFY(fd >= 0);
            const QByteArray content = readFile(fixture(QStringLiteral("missing-files/rank2.jsonl")));
            QCOMPARE(::write(fd, content.constData(), size_t(content.size())), ssize_t(content.size()));
            ::close(fd);
        }
        QVERIFY(::link(QFile::encodeName(temp(QStringLiteral("odd/rank0.jsonl"))).constData(),
                       QFile::encodeName(temp(QStringLiteral("odd/rank9-copy.jsonl"))).constData()) == 0);
        QVERIFY(writeFile(temp(QStringLiteral("lonely/rank3.jsonl")),
                          oneSample.replace("\"rank\": 0", "\"rank\": 3")
                                  .replace("\"local_rank\": 0", "\"local_rank\": 3") +
                              '\n'));
    }

    void cleanupTestCase()
    {
        // QDir cannot name the non-UTF-8 file to remove it with the rest of m_dir
        ::unlink((QFile::encodeName(temp(QStringLiteral("odd"))) + "/rank\xff.jsonl").constData());
    }

    // ------------------------------------------------------------------ discovery

    void discovery_data()
    {
        QTest::addColumn<QStringList>("paths");    // @NAME: in the temporary layouts; else a fixture
        QTest::addColumn<QString>("base");         // inputs are compared relative to this
        QTest::addColumn<QStringList>("expected"); // inputs, relative to base
        QTest::addColumn<bool>("sessionMode");
        QTest::addColumn<QStringList>("notesNaming"); // one note per entry, naming that file
        const QStringList sinks{
            QStringLiteral("rank0/telemetry_sink"), QStringLiteral("rank1/telemetry_sink"),
            QStringLiteral("rank2/telemetry_sink"), QStringLiteral("rank3/telemetry_sink")};
        QTest::newRow("sink folders two levels down")
            << QStringList{QStringLiteral("firstcause-job")} << QStringLiteral("firstcause-job") << sinks
            << false << QStringList();
        QTest::newRow("sink folders one level down, in rank order")
            << QStringList{QStringLiteral("@depth1")} << QStringLiteral("@depth1")
            << QStringList{QStringLiteral("rank0"), QStringLiteral("rank1"), QStringLiteral("rank2"),
                           QStringLiteral("rank10")}
            << false << QStringList();
        QTest::newRow("trace files in a folder")
            << QStringList{QStringLiteral("missing-files")} << QStringLiteral("missing-files")
            << QStringList{QStringLiteral("rank0.jsonl"), QStringLiteral("rank1.jsonl"),
                           QStringLiteral("rank2.jsonl")}
            << false << QStringList();
        QTest::newRow("one merged file")
            << QStringList{QStringLiteral("collective-merged.jsonl")} << QString()
            << QStringList{QStringLiteral("collective-merged.jsonl")} << true << QStringList();
        QTest::newRow("one sink alone")
            << QStringList{QStringLiteral("firstcause-job/rank2/telemetry_sink")}
            << QStringLiteral("firstcause-job") << QStringList{QStringLiteral("rank2/telemetry_sink")} << true
            << QStringList();
        QTest::newRow("several files, as given")
            << QStringList{QStringLiteral("missing-files/rank2.jsonl"),
                           QStringLiteral("missing-files/rank0.jsonl")}
            << QStringLiteral("missing-files")
            << QStringList{QStringLiteral("rank2.jsonl"), QStringLiteral("rank0.jsonl")} << false
            << QStringList();
        QTest::newRow("a note, a budget log and a hidden file beside the traces")
            << QStringList{QStringLiteral("@mixed")} << QStringLiteral("@mixed")
            << QStringList{QStringLiteral("rank0.jsonl"), QStringLiteral("rank1.jsonl"),
                           QStringLiteral("rank2.jsonl")}
            << false
            << QStringList{QStringLiteral("@mixed/budget.jsonl"), QStringLiteral("@mixed/README.txt")};
        QTest::newRow("a budget log given")
            << QStringList{QStringLiteral("missing-files/rank0.jsonl"), kBudgetLog}
            << QStringLiteral("missing-files") << QStringList{QStringLiteral("rank0.jsonl")} << false
            << QStringList{kBudgetLog};
        QTest::newRow("the same file twice, once through the folder")
            << QStringList{QStringLiteral("missing-files/rank1.jsonl"), QStringLiteral("missing-files")}
            << QStringLiteral("missing-files")
            << QStringList{QStringLiteral("rank1.jsonl"), QStringLiteral("rank0.jsonl"),
                           QStringLiteral("rank2.jsonl")}
            << false << QStringList{QStringLiteral("missing-files/rank1.jsonl")};
        QTest::newRow("a FIFO, links to nowhere, a non-UTF-8 name and a hard-linked copy")
            << QStringList{QStringLiteral("@odd")} << QStringLiteral("@odd")
            << QStringList{QStringLiteral("rank0.jsonl"), QStringLiteral("rank1.jsonl")} << false
            << QStringList{QStringLiteral("@odd/loop.jsonl"), QStringLiteral("@odd/pipe.jsonl"),
                           QStringLiteral("@odd/random.jsonl"),
                           QStringLiteral("@odd/") + QFile::decodeName("rank\xff.jsonl"),
                           QStringLiteral("@odd/rank9-copy.jsonl")};
        QTest::newRow("an empty folder") << QStringList{QStringLiteral("@empty")} << QStringLiteral("@empty")
                                         << QStringList() << false << QStringList{QStringLiteral("@empty")};
        QTest::newRow("a path that does not exist stays an input (its load says why)")
            << QStringList{QStringLiteral("@nope.jsonl"), QStringLiteral("missing-files/rank0.jsonl")}
            << QStringLiteral("@")
            << QStringList{QStringLiteral("nope.jsonl"), fixture("missing-files/rank0.jsonl")} << false
            << QStringList();
    }

    void discovery()
    {
        QFETCH(QStringList, paths);
        QFETCH(QString, base);
        QFETCH(QStringList, expected);
        QFETCH(bool, sessionMode);
        QFETCH(QStringList, notesNaming);
        const auto resolve = [&](const QString& name) {
            if (name.startsWith(QLatin1Char('@')))
                return temp(name.mid(1));
            return QFileInfo(name).isAbsolute() ? name : fixture(name);
        };
        QStringList given;
        for (const QString& path : paths)
            given << resolve(path);
        const JobInputs found = discoverJobInputs(given);
        QStringList relative = relativeTo(resolve(base), found.paths);
        for (qsizetype i = 0; i < relative.size(); ++i)
            if (relative[i].startsWith(QLatin1String("..")))
                relative[i] = found.paths[i]; // outside base: compared whole
        QCOMPARE(relative, expected);
        QCOMPARE(found.mode == JobMode::Session, sessionMode);
        QCOMPARE(qsizetype(found.problems.kept().size()), notesNaming.size());
        for (qsizetype i = 0; i < notesNaming.size(); ++i) {
            const QString file = resolve(notesNaming[i]);
            const auto& notes = found.problems.kept();
            QVERIFY2(
                std::any_of(notes.begin(), notes.end(), [&](const LoadProblem& p) { return p.file == file; }),
                qPrintable(noteTexts(found.problems).join(QLatin1Char('\n'))));
        }
        // what the app and the CLI decide from the same paths
        QCOMPARE(opensAsJob(given), given.size() > 1 || (!sessionMode && !found.paths.isEmpty()));
    }

    void jobFolderIsItsOwnKind()
    {
        QCOMPARE(detectDocumentKind(fixture(QStringLiteral("firstcause-job"))), DocumentKind::Job);
        QCOMPARE(detectDocumentKind(fixture(QStringLiteral("missing-files"))), DocumentKind::Job);
        QCOMPARE(detectDocumentKind(temp(QStringLiteral("depth1"))), DocumentKind::Job);
        // a sink stays one trace, a folder of nothing is not a job
        QCOMPARE(detectDocumentKind(fixture(QStringLiteral("firstcause-job/rank0/telemetry_sink"))),
                 DocumentKind::StormlogTrace);
        QCOMPARE(detectDocumentKind(temp(QStringLiteral("empty"))), DocumentKind::StormlogTrace);
        const DocumentOutcome refused = loadDocument(fixture(QStringLiteral("firstcause-job")));
        QVERIFY(!refused.ok());
        QVERIFY2(
            refused.fatalError.startsWith(fixture(QStringLiteral("firstcause-job")) + QStringLiteral(": ")) &&
                refused.fatalError.contains(QLatin1String("job")),
            qPrintable(refused.fatalError));
    }

    // ------------------------------------------------------------------ ranks

    // Each layout of the fixtures yields upstream's world size, job id, ranks and sample counts.
    void ranksAsUpstream_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QString>("expectedFile");
        QTest::addColumn<bool>("sessionMode");
        for (const char* name : {"firstcause-job", "skew-job", "missing-files"})
            QTest::newRow(name) << QStringList{fixture(QLatin1String(name))}
                                << fixture(QLatin1String(name) + QStringLiteral(".expected.json")) << false;
        for (const char* name : {"collective-merged.jsonl", "nomarker-merged.jsonl", "quiet-merged.jsonl"})
            QTest::newRow(name) << QStringList{fixture(QLatin1String(name))}
                                << fixture(QLatin1String(name) + QStringLiteral(".expected.json")) << true;
        QStringList files;
        for (int rank : {0, 1, 2})
            files << fixture(QStringLiteral("missing-files/rank%1.jsonl").arg(rank));
        QTest::newRow("missing-files given file by file")
            << files << fixture(QStringLiteral("missing-files.expected.json")) << false;
    }

    void ranksAsUpstream()
    {
        QFETCH(QStringList, paths);
        QFETCH(QString, expectedFile);
        QFETCH(bool, sessionMode);
        const QJsonObject expected = QJsonDocument::fromJson(readFile(expectedFile))
                                         .object()
                                         .value(QStringLiteral("cross_rank_analysis"))
                                         .toObject();
        QVERIFY(!expected.isEmpty());
        const JobOutcome outcome = loadJob(paths);
        QVERIFY2(outcome.job, qPrintable(outcome.fatalError));
        const JobData& job = *outcome.job;
        QCOMPARE(job.mode == JobMode::Session, sessionMode);
        QCOMPARE(job.jobId, expected.value(QStringLiteral("job_id")).toString());
        QCOMPARE(job.worldSize, expected.value(QStringLiteral("world_size")).toInteger());

        QList<qint64> present, missing;
        for (const JobRank& rank : job.ranks) {
            (rank.present ? present : missing) << rank.rank;
            QCOMPARE(rank.present, !rank.parts.empty());
            if (rank.present)
                QCOMPARE(qint64(rank.sampleCount), expected.value(QStringLiteral("rank_sample_counts"))
                                                       .toObject()
                                                       .value(QString::number(rank.rank))
                                                       .toInteger());
            else
                QCOMPARE(rank.sampleCount, size_t(0));
        }
        QList<qint64> participating, expectedMissing;
        for (const QJsonValue v : expected.value(QStringLiteral("participating_ranks")).toArray())
            participating << v.toInteger();
        for (const QJsonValue v : expected.value(QStringLiteral("missing_ranks")).toArray())
            expectedMissing << v.toInteger();
        QCOMPARE(present, participating);
        QCOMPARE(missing, expectedMissing);
        // ascending, every rank of the world once
        QCOMPARE(qint64(job.ranks.size()), job.worldSize);
        for (size_t i = 0; i < job.ranks.size(); ++i)
            QCOMPARE(job.ranks[i].rank, int64_t(i));
        // a missing rank is the one note of a clean job
        QCOMPARE(qsizetype(job.problems.kept().size()), missing.isEmpty() ? 0 : 1);
        if (!missing.isEmpty())
            QVERIFY2(job.problems.kept().front().reason.contains(QLatin1String("rank 3 missing")),
                     qPrintable(noteTexts(job.problems).join(QLatin1Char('\n'))));

        // the parts: a rank's partition of its input's selected session
        for (const JobRank& rank : job.ranks) {
            if (!rank.present)
                continue;
            const Partition& partition = job.partitionOf(rank);
            QCOMPARE(partition.rank, rank.rank);
            QCOMPARE(size_t(partition.sessionIndex), job.inputs[rank.parts.front().inputIndex].sessionIndex);
            QCOMPARE(rank.host, QStringLiteral("gpu-node-0"));
            QVERIFY(job.firstTimestampNs <= job.traceOf(rank).store.timestampNs[partition.begin]);
            QVERIFY(job.lastTimestampNs >= job.traceOf(rank).store.timestampNs[partition.end - 1]);
        }
    }

    void sessionOfOneTrace()
    {
        const LoadOutcome loaded = loadTrace(fixture(QStringLiteral("collective-merged.jsonl")));
        QVERIFY(loaded.data);
        const auto session = loaded.data->defaultSessionIndex();
        QVERIFY(session);
        const auto job = jobFromTraceSession(loaded.data, *session);
        QVERIFY(job);
        QCOMPARE(job->mode, JobMode::Session);
        QCOMPARE(job->inputs.size(), size_t(1));
        QCOMPARE(job->inputs.front().trace, loaded.data);
        QCOMPARE(job->ranks.size(), size_t(3));
        for (const JobRank& rank : job->ranks)
            QCOMPARE(rank.parts.size(), size_t(1));
        QVERIFY(!jobFromTraceSession(loaded.data, loaded.data->sessions.size()));
    }

    // Every rank analysed alone is what runAnalysis gives for that input and rank.
    void ranksAnalysedAlone()
    {
        const JobOutcome outcome = loadJob({fixture(QStringLiteral("skew-job"))});
        QVERIFY(outcome.job);
        const auto results = analyzeJobRanks(*outcome.job);
        QCOMPARE(results.size(), outcome.job->ranks.size());
        for (size_t i = 0; i < results.size(); ++i) {
            const JobRank& rank = outcome.job->ranks[i];
            QVERIFY(results[i]);
            AnalysisRequest alone;
            alone.rank = rank.rank;
            const auto expected =
                runAnalysis(outcome.job->inputs[rank.parts.front().inputIndex].trace, alone);
            QVERIFY(expected);
            QCOMPARE(results[i]->rank, rank.rank);
            QCOMPARE(results[i]->usableRows, expected->usableRows);
            QCOMPARE(results[i]->findings.size(), expected->findings.size());
            for (size_t f = 0; f < expected->findings.size(); ++f) {
                QVERIFY(results[i]->findings[f].classification == expected->findings[f].classification);
                QCOMPARE(results[i]->findings[f].confidence, expected->findings[f].confidence);
                QCOMPARE(results[i]->findings[f].evidenceTimestampNs,
                         expected->findings[f].evidenceTimestampNs);
            }
        }
    }

    // ------------------------------------------------------------------ notes

    void notesNameTheFiles_data()
    {
        QTest::addColumn<QStringList>("paths"); // @NAME in the temporary layouts, else a fixture
        QTest::addColumn<QList<qint64>>("present");
        QTest::addColumn<QList<qint64>>("missing");
        QTest::addColumn<qint64>("worldSize");
        QTest::addColumn<QString>("noteContains");
        QTest::addColumn<QStringList>("noteNames"); // files the note must name
        const QString rank0 = QStringLiteral("missing-files/rank0.jsonl");
        const QString rank1 = QStringLiteral("missing-files/rank1.jsonl");
        QTest::newRow("the same rank in two inputs")
            << QStringList{rank0, QStringLiteral("@again.jsonl"), rank1} << QList<qint64>{0, 1}
            << QList<qint64>{2, 3} << qint64(4) << QStringLiteral("rank 0 is in")
            << QStringList{rank0, QStringLiteral("@again.jsonl")};
        QTest::newRow("an input that is not a trace among good ones")
            << QStringList{rank0, QStringLiteral("@garbage.jsonl"), rank1} << QList<qint64>{0, 1}
            << QList<qint64>{2, 3} << qint64(4) << QStringLiteral("garbage.jsonl: ")
            << QStringList{QStringLiteral("@garbage.jsonl")};
        QTest::newRow("an input that does not exist")
            << QStringList{rank0, QStringLiteral("@gone.jsonl"), rank1} << QList<qint64>{0, 1}
            << QList<qint64>{2, 3} << qint64(4) << QStringLiteral("gone.jsonl: no such file")
            << QStringList{QStringLiteral("@gone.jsonl")};
        QTest::newRow("a budget log")
            << QStringList{rank0, kBudgetLog, rank1} << QList<qint64>{0, 1} << QList<qint64>{2, 3}
            << qint64(4) << QStringLiteral("memory-budget log") << QStringList{kBudgetLog};
        // two inputs say 4 (120 samples), one says 8 (60): upstream takes the most common
        QTest::newRow("world sizes disagree")
            << QStringList{rank0, rank1, QStringLiteral("@world8/rank2.jsonl")} << QList<qint64>{0, 1, 2}
            << QList<qint64>{3} << qint64(4) << QStringLiteral("world_size disagrees: 4 in")
            << QStringList{rank0, rank1, QStringLiteral("@world8/rank2.jsonl")};
        QTest::newRow("two job ids") << QStringList{rank0, rank1, QStringLiteral("@otherjob/rank2.jsonl")}
                                     << QList<qint64>{0, 1, 2} << QList<qint64>{3} << qint64(4)
                                     << QStringLiteral("several job ids: job-898 in")
                                     << QStringList{QStringLiteral("@otherjob/rank2.jsonl")};
        QTest::newRow("a rank with a single sample")
            << QStringList{rank0, rank1, QStringLiteral("@lonely/rank3.jsonl")} << QList<qint64>{0, 1, 3}
            << QList<qint64>{2} << qint64(4) << QStringLiteral("rank 3 has 1 sample")
            << QStringList{QStringLiteral("@lonely/rank3.jsonl")};
    }

    void notesNameTheFiles()
    {
        QFETCH(QStringList, paths);
        QFETCH(QList<qint64>, present);
        QFETCH(QList<qint64>, missing);
        QFETCH(qint64, worldSize);
        QFETCH(QString, noteContains);
        QFETCH(QStringList, noteNames);
        const auto resolve = [&](const QString& name) {
            if (name.startsWith(QLatin1Char('@')))
                return temp(name.mid(1));
            return QFileInfo(name).isAbsolute() ? name : fixture(name);
        };
        QStringList given;
        for (const QString& path : paths)
            given << resolve(path);
        const JobOutcome outcome = loadJob(given);
        QVERIFY2(outcome.job, qPrintable(outcome.fatalError));
        QList<qint64> presentRanks, missingRanks;
        for (const JobRank& rank : outcome.job->ranks)
            (rank.present ? presentRanks : missingRanks) << rank.rank;
        QCOMPARE(presentRanks, present);
        QCOMPARE(missingRanks, missing);
        QCOMPARE(outcome.job->worldSize, worldSize);
        const QStringList notes = noteTexts(outcome.job->problems);
        const auto note = std::find_if(notes.begin(), notes.end(),
                                       [&](const QString& text) { return text.contains(noteContains); });
        QVERIFY2(note != notes.end(), qPrintable(notes.join(QLatin1Char('\n'))));
        for (const QString& name : noteNames)
            QVERIFY2(note->contains(resolve(name)), qPrintable(*note));
    }

    // ------------------------------------------------------------------ bytes

    // loadJobBytes (the fuzz target's entry point) gives the job loadJob gives for the same
    // content in files: ranks, their parts and samples, job id, world size, mode and notes.
    void bytesGiveTheJobOfTheFiles_data()
    {
        QTest::addColumn<QStringList>("paths"); // @NAME in the temporary layouts, else a fixture
        const QString rank0 = QStringLiteral("missing-files/rank0.jsonl");
        const QString rank1 = QStringLiteral("missing-files/rank1.jsonl");
        const QString rank2 = QStringLiteral("missing-files/rank2.jsonl");
        QTest::newRow("three ranks, one missing") << QStringList{rank0, rank1, rank2};
        QTest::newRow("one merged input (a session)")
            << QStringList{QStringLiteral("collective-merged.jsonl")};
        QTest::newRow("the same rank in two inputs")
            << QStringList{rank0, QStringLiteral("@again.jsonl"), rank1};
        QTest::newRow("an input that is not a trace")
            << QStringList{rank0, QStringLiteral("@garbage.jsonl"), rank1};
        QTest::newRow("world sizes disagree")
            << QStringList{rank0, rank1, QStringLiteral("@world8/rank2.jsonl")};
        QTest::newRow("two job ids") << QStringList{rank0, rank1, QStringLiteral("@otherjob/rank2.jsonl")};
        QTest::newRow("a rank with a single sample")
            << QStringList{rank0, rank1, QStringLiteral("@lonely/rank3.jsonl")};
        QTest::newRow("no input loads")
            << QStringList{QStringLiteral("@garbage.jsonl"), QStringLiteral("@empty")};
    }

    void bytesGiveTheJobOfTheFiles()
    {
        QFETCH(QStringList, paths);
        QStringList given;
        std::vector<QByteArray> contents;
        for (const QString& path : paths) {
            given << (path.startsWith(QLatin1Char('@')) ? temp(path.mid(1)) : fixture(path));
            contents.push_back(QFileInfo(given.back()).isFile() ? readFile(given.back()) : QByteArray());
        }
        std::vector<JobBytes> inputs;
        for (size_t i = 0; i < contents.size(); ++i)
            inputs.push_back(JobBytes{given[qsizetype(i)],
                                      std::string_view(contents[i].constData(), size_t(contents[i].size()))});
        const JobOutcome files = loadJob(given);
        const JobOutcome bytes = loadJobBytes(inputs);
        QCOMPARE(bool(bytes.job), bool(files.job));
        QCOMPARE(bytes.cancelled, false);
        if (!files.job) {
            // the same inputs fail for the same reasons (an empty folder and empty bytes alike)
            QCOMPARE(bytes.fatalError.count(QLatin1Char('\n')), files.fatalError.count(QLatin1Char('\n')));
            QVERIFY2(bytes.fatalError.contains(given.front()), qPrintable(bytes.fatalError));
            return;
        }
        const JobData& a = *files.job;
        const JobData& b = *bytes.job;
        QCOMPARE(b.mode, a.mode);
        QCOMPARE(b.jobId, a.jobId);
        QCOMPARE(b.worldSize, a.worldSize);
        QCOMPARE(b.firstTimestampNs, a.firstTimestampNs);
        QCOMPARE(b.lastTimestampNs, a.lastTimestampNs);
        QCOMPARE(b.inputs.size(), a.inputs.size());
        QCOMPARE(b.ranks.size(), a.ranks.size());
        for (size_t i = 0; i < a.ranks.size(); ++i) {
            QCOMPARE(b.ranks[i].rank, a.ranks[i].rank);
            QCOMPARE(b.ranks[i].present, a.ranks[i].present);
            QCOMPARE(b.ranks[i].parts.size(), a.ranks[i].parts.size());
            QCOMPARE(b.ranks[i].sampleCount, a.ranks[i].sampleCount);
            QCOMPARE(b.ranks[i].host, a.ranks[i].host);
        }
        QCOMPARE(noteTexts(b.problems), noteTexts(a.problems));
    }

    // ------------------------------------------------------------------ threads

    // A small job is analysed in the calling thread, a large one on threads (its ranks on a
    // pool, the collective attribution beside the cross-rank analysis): both give what each
    // analysis gives run alone, one after the other.
    void analysesAloneOrOnThreads_data()
    {
        QTest::addColumn<int>("repeats"); // each sample line of every rank, shifted by the trace's span
        QTest::newRow("small job, calling thread") << 1;
        QTest::newRow("large job, threads") << 30;
    }

    void analysesAloneOrOnThreads()
    {
        QFETCH(int, repeats);
        std::vector<QByteArray> contents;
        QStringList names;
        for (int r : {0, 1, 2}) {
            names << QStringLiteral("rank%1.jsonl").arg(r);
            const QByteArray original =
                readFile(fixture(QStringLiteral("missing-files/rank%1.jsonl").arg(r)));
            QByteArray repeated;
            for (const QByteArray& line : original.split('\n')) {
                if (line.isEmpty())
                    continue;
                const bool sample = line.contains("\"event_type\": \"sample\"");
                for (int k = 0; k < (sample ? repeats : 1); ++k) {
                    QByteArray copy = line;
                    if (k > 0) {
                        // 60 s later per copy: the fixture spans a few seconds
                        const qsizetype at = copy.indexOf("\"timestamp_ns\": ") + 16;
                        const qsizetype end = copy.indexOf(',', at);
                        const qint64 ts = copy.mid(at, end - at).toLongLong();
                        copy.replace(at, end - at, QByteArray::number(ts + qint64(k) * 60'000'000'000));
                    }
                    repeated += copy + '\n';
                }
            }
            contents.push_back(repeated);
        }
        std::vector<JobBytes> inputs;
        for (size_t i = 0; i < contents.size(); ++i)
            inputs.push_back(JobBytes{names[qsizetype(i)],
                                      std::string_view(contents[i].constData(), size_t(contents[i].size()))});
        const JobOutcome outcome = loadJobBytes(inputs);
        QVERIFY2(outcome.job, qPrintable(outcome.fatalError));
        const JobData& job = *outcome.job;
        size_t rows = 0;
        for (const JobRank& rank : job.ranks)
            if (rank.present)
                rows += job.partitionOf(rank).size();
        QCOMPARE(rows >= kRowsWorthThreads, repeats > 1);

        const auto results = analyzeJobRanks(job);
        QCOMPARE(results.size(), job.ranks.size());
        for (size_t i = 0; i < results.size(); ++i) {
            const JobRank& rank = job.ranks[i];
            if (!rank.present) {
                QVERIFY(!results[i]);
                continue;
            }
            QVERIFY(results[i]);
            const auto alone =
                runAnalysis(job.inputs[rank.parts.front().inputIndex].trace, jobRankRequest(job, rank));
            QVERIFY(alone);
            QCOMPARE(results[i]->usableRows, alone->usableRows);
            QCOMPARE(results[i]->findings.size(), alone->findings.size());
        }

        const JobEventsBuild build = buildJobEvents(job);
        QCOMPARE(build.events.size() >= kEventsWorthAThread, repeats > 1);
        JobAnalysisResult oneByOne;
        oneByOne.eventCount = build.events.size();
        oneByOne.rankCount = build.events.rankCount();
        oneByOne.collective =
            attributeCollectiveMemory(build.events, oneByOne.collectiveConfig, build.phases);
        if (oneByOne.rankCount > 1)
            oneByOne.crossRank = summarizeCrossRankAnalysis(build.events, build.phases);
        QCOMPARE(jobAnalysisJson(*analyzeJob(job)), jobAnalysisJson(oneByOne));
    }

    void noInputLoads()
    {
        const QString garbage = temp(QStringLiteral("garbage.jsonl"));
        const QString gone = temp(QStringLiteral("gone.jsonl"));
        const JobOutcome outcome = loadJob({garbage, gone, kBudgetLog});
        QVERIFY(!outcome.job);
        QVERIFY(!outcome.cancelled);
        const QStringList lines = outcome.fatalError.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        for (const QString& file : {garbage, gone, kBudgetLog})
            QVERIFY2(std::count_if(lines.begin(), lines.end(),
                                   [&](const QString& line) {
                                       return line.startsWith(file + QStringLiteral(": "));
                                   }) == 1,
                     qPrintable(outcome.fatalError));
        QVERIFY(
            loadJob({temp(QStringLiteral("empty"))}).fatalError.startsWith(temp(QStringLiteral("empty"))));
    }

    // ------------------------------------------------------------------ loading

    void progressIncreasesToTheTotal_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("windowBytes");
        QTest::newRow("sink folders") << QStringList{fixture(QStringLiteral("skew-job"))} << 0 << 0;
        QTest::newRow("files, one thread each, small windows")
            << QStringList{fixture(QStringLiteral("missing-files"))} << 1 << 4096;
        QTest::newRow("one merged file")
            << QStringList{fixture(QStringLiteral("collective-merged.jsonl"))} << 0 << 0;
        QTest::newRow("with an input that fails")
            << QStringList{fixture(QStringLiteral("missing-files/rank0.jsonl")),
                           temp(QStringLiteral("garbage.jsonl"))}
            << 0 << 0;
    }

    void progressIncreasesToTheTotal()
    {
        QFETCH(QStringList, paths);
        QFETCH(int, threads);
        QFETCH(int, windowBytes);
        std::mutex mutex;
        QList<QPair<qint64, qint64>> reports;
        LoadControl control;
        control.threads = threads;
        control.windowBytesPerThread = size_t(windowBytes);
        control.progress = [&](qint64 read, qint64 total) {
            std::lock_guard lock(mutex);
            reports.append({read, total});
        };
        const JobOutcome outcome = loadJob(paths, control);
        QVERIFY(outcome.job);
        qint64 expectedTotal = 0;
        for (const QString& path : discoverJobInputs(paths).paths) {
            const QFileInfo info(path);
            if (!info.isDir())
                expectedTotal += info.size();
            else
                for (const QFileInfo& entry : QDir(path).entryInfoList(QDir::Files))
                    expectedTotal += entry.size();
        }
        QVERIFY(!reports.isEmpty());
        for (qsizetype i = 0; i < reports.size(); ++i) {
            QCOMPARE(reports[i].second, expectedTotal);
            if (i > 0)
                QVERIFY2(reports[i].first > reports[i - 1].first,
                         qPrintable(QStringLiteral("report %1: %2 after %3")
                                        .arg(i)
                                        .arg(reports[i].first)
                                        .arg(reports[i - 1].first)));
        }
        QCOMPARE(reports.back().first, expectedTotal);
    }

    // Cancel stops every input: set before the load, nothing loads; set at the first report of
    // a job of many inputs, the load returns before reading them all.
    void cancelStopsEveryInput()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // 24 ranks of a few MB each (rank 0 of missing-files repeated, renumbered)
        const QByteArray base = readFile(fixture(QStringLiteral("missing-files/rank0.jsonl")));
        for (int rank = 0; rank < 24; ++rank) {
            QByteArray bytes = QByteArray(base)
                                   .replace("\"rank\": 0", QStringLiteral("\"rank\": %1").arg(rank).toUtf8())
                                   .replace("\"world_size\": 4", "\"world_size\": 24");
            QByteArray big;
            while (big.size() < (2 << 20))
                big += bytes;
            QVERIFY(writeFile(dir.filePath(QStringLiteral("rank%1.jsonl").arg(rank)), big));
        }
        std::atomic<bool> cancel{true};
        LoadControl control;
        control.cancel = &cancel;
        const JobOutcome before = loadJob({dir.path()}, control);
        QVERIFY(before.cancelled);
        QVERIFY(!before.job);

        cancel = false;
        qint64 lastRead = 0;
        qint64 total = 0;
        std::mutex mutex;
        control.progress = [&](qint64 read, qint64 all) {
            std::lock_guard lock(mutex);
            lastRead = read;
            total = all;
            cancel = true;
        };
        const JobOutcome during = loadJob({dir.path()}, control);
        QVERIFY(during.cancelled);
        QVERIFY(!during.job);
        QVERIFY(total > 0);
        QVERIFY2(lastRead < total, qPrintable(QStringLiteral("%1 of %2 read").arg(lastRead).arg(total)));

        // not cancelled, the same folder loads whole: 24 ranks
        control.cancel = nullptr;
        control.progress = nullptr;
        const JobOutcome whole = loadJob({dir.path()}, control);
        QVERIFY(whole.job);
        QCOMPARE(whole.job->ranks.size(), size_t(24));
    }

    void loadJobSignals()
    {
        LoadJob loader;
        QSignalSpy started(&loader, &LoadJob::started);
        QSignalSpy progress(&loader, &LoadJob::progress);
        QSignalSpy jobLoaded(&loader, &LoadJob::jobLoaded);
        QSignalSpy failed(&loader, &LoadJob::failed);
        QSignalSpy cancelled(&loader, &LoadJob::cancelled);
        const quint64 generation = loader.startJob({fixture(QStringLiteral("firstcause-job"))});
        QCOMPARE(started.size(), 1);
        QVERIFY(loader.isRunning());
        loader.waitForDone();
        QCOMPARE(jobLoaded.size(), 1);
        QCOMPARE(jobLoaded.front().at(0).value<quint64>(), generation);
        const auto job = jobLoaded.front().at(1).value<std::shared_ptr<const JobData>>();
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t(4));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.back().at(1).toLongLong(), progress.back().at(2).toLongLong());
        QVERIFY(!loader.isRunning());

        // a job none of whose inputs loads fails with every reason
        loader.startJob({temp(QStringLiteral("garbage.jsonl")), temp(QStringLiteral("gone.jsonl"))});
        loader.waitForDone();
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed.front().at(1).toString().count(QLatin1Char('\n')), 1);

        // a newer load supersedes an older one: only its result arrives
        loader.startJob({fixture(QStringLiteral("skew-job"))});
        const quint64 newer = loader.startJob({fixture(QStringLiteral("missing-files"))});
        loader.waitForDone();
        QCOMPARE(jobLoaded.size(), 2);
        QCOMPARE(jobLoaded.back().at(0).value<quint64>(), newer);
        QCOMPARE(jobLoaded.back().at(1).value<std::shared_ptr<const JobData>>()->ranks.size(), size_t(4));
        QCOMPARE(cancelled.size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestJobLoader)
#include "tst_jobloader.moc"
