// What a folder or file given to open is (issue 30 item 5), decided once in
// model/document/OpenPlan for every caller, on real captures (tests/data/fixtures/real-gpu/
// folders, cut by cut.py):
//  (a) single/ holds two runs of rank 0 (stock and truth trackers, each a sink beside its
//      export): two runs, not a one-rank job; each run's export is a copy of its sink;
//  (b) frag/ holds one run: it opens as that run (the sink), not as a job;
//  (c) a sink's manifest.json or segment file opens the sink, with a note;
//  (d) loadDocument (Compare With, `compare`) reads a run folder as its sink;
//  (e) a run is named by what it is ("truth — rank 0", "gapscope-real-ddp rank 2");
//  (f) files gapscope does not read are named for what they are (nvidia-smi's log, a PyTorch
//      snapshot pickle, a CSV of other columns), by loadDocument (a snapshot: its reader's
//      words), in a job's notes and in the window's explanation, and a stormlog CSV or sink
//      segment is not taken for one.
#include "model/document/Document.h"
#include "model/document/LoadFailure.h"
#include "model/document/OpenPlan.h"
#include "model/job/JobLoader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

const QString kReal = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/folders");

QString real(const QString& name)
{
    return name.isEmpty() ? kReal : kReal + QLatin1Char('/') + name;
}

QStringList reals(const QStringList& names)
{
    QStringList paths;
    for (const QString& name : names)
        paths << real(name);
    return paths;
}

bool copyFolder(const QString& from, const QString& to)
{
    bool ok = QDir().mkpath(to);
    for (const QFileInfo& entry : QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot))
        ok = ok && (entry.isDir() ? copyFolder(entry.filePath(), to + QLatin1Char('/') + entry.fileName())
                                  : QFile::copy(entry.filePath(), to + QLatin1Char('/') + entry.fileName()));
    return ok;
}

} // namespace

class TestOpenPlan : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // the DDP job with nvidia-smi's log beside its ranks, as the capture has it
        QVERIFY(copyFolder(real(QStringLiteral("ddp")), m_dir.filePath(QStringLiteral("ddp"))));
        QVERIFY(QFile::copy(real(QStringLiteral("single/nvidia-smi.csv")),
                            m_dir.filePath(QStringLiteral("ddp/nvidia-smi.csv"))));
    }

    void whatThePathsAre_data()
    {
        QTest::addColumn<QStringList>("paths"); // in the real captures
        QTest::addColumn<OpenKind>("kind");
        QTest::addColumn<QStringList>("opened"); // plan.paths, in the real captures
        QTest::addColumn<QStringList>("names");  // of plan.runs
        QTest::addColumn<QString>("note");       // one of plan.notes contains it ("" none at all)
        // (a)
        QTest::newRow("a folder of two runs of rank 0")
            << QStringList{QStringLiteral("single")} << OpenKind::SeveralRuns
            << QStringList{QStringLiteral("single/stock/telemetry_sink"),
                           QStringLiteral("single/truth/telemetry_sink")}
            << QStringList{QStringLiteral("stock — rank 0"), QStringLiteral("truth — rank 0")} << QString();
        QTest::newRow("two runs of rank 0 given together")
            << QStringList{QStringLiteral("single/truth/telemetry_sink"),
                           QStringLiteral("single/stock/telemetry_sink")}
            << OpenKind::SeveralRuns
            << QStringList{QStringLiteral("single/truth/telemetry_sink"),
                           QStringLiteral("single/stock/telemetry_sink")}
            << QStringList{QStringLiteral("truth — rank 0"), QStringLiteral("stock — rank 0")} << QString();
        QTest::newRow("a sink and its export given together: one run, the sink")
            << QStringList{QStringLiteral("single/stock_events.json"),
                           QStringLiteral("single/stock/telemetry_sink")}
            << OpenKind::Document << QStringList{QStringLiteral("single/stock/telemetry_sink")}
            << QStringList{QStringLiteral("stock — rank 0")}
            << QStringLiteral("stock_events.json holds the same run as ");
        // (b)
        QTest::newRow("a folder of one run")
            << QStringList{QStringLiteral("frag")} << OpenKind::Document
            << QStringList{QStringLiteral("frag/telemetry_sink")}
            << QStringList{QStringLiteral("frag — rank 0")} << QStringLiteral("holds one run; opened it");
        QTest::newRow("a sink folder")
            << QStringList{QStringLiteral("frag/telemetry_sink")} << OpenKind::Document
            << QStringList{QStringLiteral("frag/telemetry_sink")} << QStringList{} << QString();
        QTest::newRow("a job folder of four ranks")
            << QStringList{QStringLiteral("ddp")} << OpenKind::Job << QStringList{QStringLiteral("ddp")}
            << QStringList{QStringLiteral("gapscope-real-ddp rank 0"),
                           QStringLiteral("gapscope-real-ddp rank 1"),
                           QStringLiteral("gapscope-real-ddp rank 2"),
                           QStringLiteral("gapscope-real-ddp rank 3")}
            << QString();
        // (c)
        QTest::newRow("a sink's manifest.json")
            << QStringList{QStringLiteral("single/truth/telemetry_sink/manifest.json")} << OpenKind::Document
            << QStringList{QStringLiteral("single/truth/telemetry_sink")} << QStringList{}
            << QStringLiteral("is part of the sink");
        QTest::newRow("a sink's segment")
            << QStringList{QStringLiteral("frag/telemetry_sink/segment-000001.jsonl")} << OpenKind::Document
            << QStringList{QStringLiteral("frag/telemetry_sink")} << QStringList{}
            << QStringLiteral("opened the sink (its manifest and every segment)");
        QTest::newRow("a file") << QStringList{QStringLiteral("single/truth_events.csv")}
                                << OpenKind::Document
                                << QStringList{QStringLiteral("single/truth_events.csv")} << QStringList{}
                                << QString();
    }

    void whatThePathsAre()
    {
        QFETCH(QStringList, paths);
        QFETCH(OpenKind, kind);
        QFETCH(QStringList, opened);
        QFETCH(QStringList, names);
        QFETCH(QString, note);
        const OpenPlan plan = planOpen(reals(paths));
        QCOMPARE(plan.kind, kind);
        QCOMPARE(plan.paths, reals(opened));
        if (!names.isEmpty()) {
            QStringList runNames;
            for (const FoundRun& run : plan.runs)
                runNames << run.name;
            QCOMPARE(runNames, names);
        }
        if (note.isEmpty())
            QVERIFY2(plan.notes.isEmpty(), qPrintable(plan.notes.join(QLatin1Char('\n'))));
        else
            QVERIFY2(plan.notes.join(QLatin1Char('\n')).contains(note),
                     qPrintable(plan.notes.join(QLatin1Char('\n'))));
    }

    // (a) each run found with its copies: a sink's export is the same session and rank
    void theRunsOfSingleHoldTheirExports()
    {
        const OpenPlan plan = planOpen({real(QStringLiteral("single"))});
        QCOMPARE(plan.runs.size(), size_t(2));
        QCOMPARE(plan.runs[0].paths, reals({QStringLiteral("single/stock/telemetry_sink"),
                                            QStringLiteral("single/stock_events.json")}));
        QCOMPARE(plan.runs[1].paths, reals({QStringLiteral("single/truth/telemetry_sink"),
                                            QStringLiteral("single/truth_events.csv")}));
        QCOMPARE(plan.runs[0].sessionId, QStringLiteral("014998b3-13f3-4f4d-961c-d5c31438b453"));
        QCOMPARE(plan.runs[1].sessionId, QStringLiteral("47530a86-a996-47e0-827b-d216117551c8"));
        // what `analyze single/` says: the runs, where each is, and how to read one
        const QString text = plan.severalRunsText(real(QStringLiteral("single")));
        QVERIFY2(text.contains(QStringLiteral("2 runs that are not ranks of one job")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("truth — rank 0: ") +
                               real(QStringLiteral("single/truth/telemetry_sink"))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("give one of them")), qPrintable(text));
    }

    // (b, c, d) loadDocument goes through the plan: a run folder or a sink's file loads the sink
    void loadDocumentReadsTheRun_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("read");
        QTest::addColumn<QString>("note"); // "" none
        QTest::newRow("a run folder") << QStringLiteral("frag") << QStringLiteral("frag/telemetry_sink")
                                      << QStringLiteral("holds one run");
        QTest::newRow("a manifest.json")
            << QStringLiteral("frag/telemetry_sink/manifest.json") << QStringLiteral("frag/telemetry_sink")
            << QStringLiteral("is part of the sink");
        QTest::newRow("a sink") << QStringLiteral("single/truth/telemetry_sink")
                                << QStringLiteral("single/truth/telemetry_sink") << QString();
    }

    void loadDocumentReadsTheRun()
    {
        QFETCH(QString, path);
        QFETCH(QString, read);
        QFETCH(QString, note);
        const DocumentOutcome outcome = loadDocument(real(path));
        QVERIFY2(outcome.trace, qPrintable(outcome.failure()));
        QCOMPARE(outcome.path, real(read));
        QCOMPARE(outcome.trace->path, real(read));
        QVERIFY(outcome.trace->form == TraceForm::SinkDirectory);
        QCOMPARE(outcome.notes.join(QString()).contains(note), true);
        QCOMPARE(outcome.notes.isEmpty(), note.isEmpty());
    }

    void loadDocumentRefusesSeveralRuns()
    {
        const DocumentOutcome outcome = loadDocument(real(QStringLiteral("single")));
        QVERIFY(!outcome.ok());
        QVERIFY2(outcome.failure().contains(QStringLiteral("2 runs that are not ranks of one job")),
                 qPrintable(outcome.failure()));
    }

    // (e)
    void documentNames_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("name");
        QTest::newRow("a run's sink")
            << QStringLiteral("single/truth/telemetry_sink") << QStringLiteral("truth — rank 0");
        QTest::newRow("a rank's sink of a job")
            << QStringLiteral("ddp/rank2/telemetry_sink") << QStringLiteral("gapscope-real-ddp rank 2");
        QTest::newRow("an export") << QStringLiteral("single/stock_events.json")
                                   << QStringLiteral("stock_events.json");
    }

    void documentNames()
    {
        QFETCH(QString, path);
        QFETCH(QString, name);
        const DocumentOutcome outcome = loadDocument(real(path));
        QVERIFY2(outcome.trace, qPrintable(outcome.failure()));
        QCOMPARE(documentName(outcome.path, outcome.trace.get()), name);
    }

    // (f)
    void foreignFilesAreNamed_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("what"); // "" : not foreign (a reader of gapscope's judges it)
        const QString smi = QStringLiteral("an nvidia-smi device-usage log (");
        QTest::newRow("nvidia-smi --query-gpu") << QStringLiteral("single/nvidia-smi.csv") << smi;
        QTest::newRow("nvidia-smi --query-compute-apps")
            << QStringLiteral("foreign/nvidia-smi-apps.csv") << smi;
        QTest::newRow("a PyTorch snapshot pickle")
            << QStringLiteral("foreign/snapshot.pickle")
            << QStringLiteral("a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot");
        QTest::newRow("a CSV of other columns")
            << QStringLiteral("single/truth_samples.csv")
            << QStringLiteral("a CSV file of other columns (timestamp_s, device_used_bytes, allocated_bytes, "
                              "reserved_bytes)");
        QTest::newRow("a stormlog CSV") << QStringLiteral("single/truth_events.csv") << QString();
        QTest::newRow("a stormlog JSON array") << QStringLiteral("single/stock_events.json") << QString();
        QTest::newRow("a sink segment")
            << QStringLiteral("frag/telemetry_sink/segment-000001.jsonl") << QString();
        QTest::newRow("a memory-budget log")
            << QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl") << QString();
    }

    void foreignFilesAreNamed()
    {
        QFETCH(QString, path);
        QFETCH(QString, what);
        const QString file = QFileInfo(path).isAbsolute() ? path : real(path);
        const QString recognized = recognizeForeignInput(file);
        if (what.isEmpty()) {
            QVERIFY2(recognized.isEmpty(), qPrintable(recognized));
            return;
        }
        QVERIFY2(recognized.startsWith(what), qPrintable(recognized));
        if (what.contains(QStringLiteral("nvidia-smi")))
            QVERIFY2(
                recognized.contains(QStringLiteral("attach it to a trace with --device-log FILE / File > "
                                                   "Attach Device Log")),
                qPrintable(recognized));
        // loadDocument refuses it with that text, not as a broken trace; a PyTorch snapshot is read
        // by the snapshot reader (the snapshot page), and this one, a head cut at 4 KiB, is
        // refused in its words
        const DocumentOutcome outcome = loadDocument(file);
        QVERIFY(!outcome.ok());
        if (what.startsWith(QStringLiteral("a PyTorch memory snapshot")))
            QVERIFY2(outcome.failure().startsWith(file + QStringLiteral(": ")) &&
                         outcome.failure() != QStringLiteral("%1: %2").arg(file, recognized),
                     qPrintable(outcome.failure()));
        else
            QCOMPARE(outcome.failure(), QStringLiteral("%1: %2").arg(file, recognized));
        // the window's explanation says what it is
        const LoadFailureExplanation explanation = explainLoadFailure(file, outcome.failure());
        QCOMPARE(explanation.looksLike, recognized);
    }

    // (f) in a job folder nvidia-smi's log is left out with what it is
    void aJobFolderNamesTheDeviceLog()
    {
        const JobOutcome outcome = loadJob({m_dir.filePath(QStringLiteral("ddp"))});
        QVERIFY2(outcome.job, qPrintable(outcome.fatalError));
        QCOMPARE(outcome.job->ranks.size(), size_t(4));
        QStringList notes;
        for (const LoadProblem& p : outcome.job->problems.kept())
            notes << p.toString();
        const QString file = m_dir.filePath(QStringLiteral("ddp/nvidia-smi.csv"));
        QVERIFY2(std::any_of(notes.begin(), notes.end(),
                             [&](const QString& n) {
                                 return n.startsWith(file + QStringLiteral(": ")) &&
                                        n.contains(QStringLiteral("an nvidia-smi device-usage log (")) &&
                                        n.endsWith(QStringLiteral("; left out of the job"));
                             }),
                 qPrintable(notes.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestOpenPlan)
#include "tst_openplan.moc"
