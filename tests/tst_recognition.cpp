// What an input is, decided in one place (model/document/Recognition, issue 33): every kind of
// input in tests/data (the stormlog trace forms, a sink and its manifest and segment, the three
// budget log forms, an OOM bundle from every path into it, a PyTorch snapshot pickle, nvidia-smi
// logs, job folders and several rank files, files gapscope does not read, an empty file, folders
// without traces) is recognised with its kind, its form and its reason, and the document loader
// then does what the recognition said (it reads it, or refuses it with that reason).

#include "model/budget/BudgetLoader.h"
#include "model/document/Document.h"
#include "model/document/LoadFailure.h"
#include "model/document/Recognition.h"
#include "model/trace/TraceLoader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

namespace {

const QString kData = QStringLiteral(GAPSCOPE_TEST_DATA_DIR);

QString data(const QString& relative)
{
    return relative.isEmpty() ? QString() : kData + QLatin1Char('/') + relative;
}

// The form a recognition names: a trace form, a budget log form, or none.
QString formOf(const InputRecognition& input)
{
    if (input.traceForm)
        return toString(*input.traceForm);
    if (input.budgetForm)
        return QString::fromLatin1(toString(*input.budgetForm));
    return {};
}

QByteArray headOf(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return readInputHead(file);
}

} // namespace

class TestRecognition : public QObject
{
    Q_OBJECT
private slots:
    void everyInput_data()
    {
        QTest::addColumn<QStringList>("paths"); // relative to tests/data
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("form");
        QTest::addColumn<QString>("reason"); // what the reason starts with; empty: none
        QTest::addColumn<QString>("read");   // what is read (relative); empty: the path given, or none
        QTest::addColumn<bool>("grows");     // Follow can follow it

        const QString trace = toString(InputKind::StormlogTrace);
        const QString budget = toString(InputKind::BudgetLog);
        const QString job = toString(InputKind::Job);
        const QString bundle = toString(InputKind::OomBundle);
        const QString unknown = toString(InputKind::Unknown);
        const QString foreign = toString(InputKind::Foreign);
        const QString smi = toString(InputKind::NvidiaSmiLog);
        const QString lines = toString(TraceForm::JsonLines);
        const QString sink = toString(TraceForm::SinkDirectory);
        const QString legacy = toString(TraceForm::Legacy);
        const QString bundleFolder =
            QStringLiteral("fixtures/real-gpu/oom/oom_dumps/oom_dump_20261204T172219Z_601_cuda_1");
        const QString notATrace = QStringLiteral("neither a stormlog trace nor a memory-budget log");

        // the stormlog trace forms
        QTest::newRow("JSON lines") << QStringList{"fixtures/stormlog/parity/drift.jsonl"} << trace << lines
                                    << ""
                                    << "" << true;
        QTest::newRow("JSON lines, real")
            << QStringList{"fixtures/real-gpu/steps/truth_warmup_to_train.jsonl"} << trace << lines << ""
            << "" << true;
        QTest::newRow("JSON array") << QStringList{"fixtures/stormlog/real/cpu_phases.json"} << trace
                                    << toString(TraceForm::JsonArray) << ""
                                    << "" << false;
        QTest::newRow("JSON array, real export")
            << QStringList{"fixtures/real-gpu/folders/single/stock_events.json"} << trace
            << toString(TraceForm::JsonArray) << ""
            << "" << false;
        QTest::newRow("CSV") << QStringList{"fixtures/stormlog/real/cpu_phases.csv"} << trace
                             << toString(TraceForm::Csv) << ""
                             << "" << false;
        QTest::newRow("CSV, real export") << QStringList{"fixtures/real-gpu/single/truth_events.csv"} << trace
                                          << toString(TraceForm::Csv) << ""
                                          << "" << false;
        QTest::newRow("legacy lines")
            << QStringList{"recognition/legacy-lines.ndjson"} << trace << legacy << ""
            << "" << true;
        QTest::newRow("legacy array") << QStringList{"recognition/legacy.json"} << trace << legacy << ""
                                      << "" << false;
        QTest::newRow("diagnose timeline") << QStringList{"recognition/timeline.json"} << trace
                                           << toString(TraceForm::DiagnoseTimeline) << ""
                                           << "" << false;
        QTest::newRow("merged ranks")
            << QStringList{"fixtures/stormlog/distributed/collective-merged.jsonl"} << trace << lines << ""
            << "" << true;
        // a sink, from its folder, its manifest, its segment and the folder holding its one run
        QTest::newRow("sink") << QStringList{"fixtures/stormlog/real/cpu_sink"} << trace << sink << ""
                              << "" << true;
        QTest::newRow("sink manifest")
            << QStringList{"fixtures/stormlog/real/cpu_sink/manifest.json"} << trace << sink << ""
            << "fixtures/stormlog/real/cpu_sink" << true;
        QTest::newRow("sink segment")
            << QStringList{"fixtures/stormlog/real/cpu_sink/segment-000001.jsonl"} << trace << sink << ""
            << "fixtures/stormlog/real/cpu_sink" << true;
        QTest::newRow("folder of one run") << QStringList{"fixtures/real-gpu/frag"} << trace << sink << ""
                                           << "fixtures/real-gpu/frag/telemetry_sink" << true;
        // the memory-budget log forms
        QTest::newRow("budget text") << QStringList{"fixtures/budget/leak.text"} << budget << "text"
                                     << ""
                                     << "" << false;
        QTest::newRow("budget text, preamble") << QStringList{"budget_mixed.text"} << budget << "text"
                                               << ""
                                               << "" << false;
        QTest::newRow("budget tracing JSON")
            << QStringList{"fixtures/budget/leak.json"} << budget << "tracing-json"
            << ""
            << "" << false;
        QTest::newRow("budget snapshots")
            << QStringList{"fixtures/budget/leak.jsonl"} << budget << "snapshot-jsonl"
            << ""
            << "" << false;
        // an OOM bundle, from every path into it
        QTest::newRow("OOM bundle") << QStringList{bundleFolder} << bundle << legacy << ""
                                    << "" << false;
        QTest::newRow("OOM bundle manifest")
            << QStringList{bundleFolder + "/manifest.json"} << bundle << legacy << ""
            << "" << false;
        QTest::newRow("OOM bundle events")
            << QStringList{bundleFolder + "/events.json"} << bundle << legacy << ""
            << "" << false;
        QTest::newRow("oom_dumps") << QStringList{"fixtures/real-gpu/oom/oom_dumps"} << bundle << legacy << ""
                                   << bundleFolder << false;
        QTest::newRow("folder holding oom_dumps")
            << QStringList{"fixtures/real-gpu/oom"} << bundle << legacy << "" << bundleFolder << false;
        // named, not read
        QTest::newRow("PyTorch snapshot") << QStringList{"fixtures/real-gpu/folders/foreign/snapshot.pickle"}
                                          << toString(InputKind::PytorchSnapshot) << ""
                                          << "a PyTorch memory snapshot"
                                          << "" << false;
        QTest::newRow("PyTorch snapshot, the real one")
            << QStringList{"snapshot/snapshot.pickle"} << toString(InputKind::PytorchSnapshot) << ""
            << "a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot"
            << "" << false;
        QTest::newRow("PyTorch snapshot, gzip-compressed")
            << QStringList{"snapshot/pair/snapshot.pickle.gz"} << toString(InputKind::PytorchSnapshot) << ""
            << "a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot, a Python pickle, "
               "gzip-compressed)"
            << "" << false;
        QTest::newRow("nvidia-smi --query-gpu")
            << QStringList{"fixtures/real-gpu/devicelog/single-nvidia-smi.csv"} << smi << ""
            << "an nvidia-smi device-usage log"
            << "" << false;
        QTest::newRow("nvidia-smi --query-compute-apps")
            << QStringList{"fixtures/real-gpu/folders/foreign/nvidia-smi-apps.csv"} << smi << ""
            << "an nvidia-smi device-usage log"
            << "" << false;
        QTest::newRow("gzip") << QStringList{"recognition/trace.jsonl.gz"} << foreign << ""
                              << "a gzip-compressed file"
                              << "" << false;
        QTest::newRow("CSV of other columns") << QStringList{"recognition/other-columns.csv"} << foreign << ""
                                              << "a CSV file of other columns (name, value)"
                                              << "" << false;
        // a fleet index (gapscope index's SQLite database, its schema only) and another SQLite
        // database (a text file: "text" below)
        QTest::newRow("fleet index") << QStringList{"recognition/fleet.sqlite"}
                                     << toString(InputKind::FleetDatabase) << ""
                                     << "a gapscope fleet index"
                                     << "" << false;
        QTest::newRow("other SQLite database") << QStringList{"recognition/other.sqlite"} << foreign << ""
                                               << "an SQLite database that is not a gapscope fleet index"
                                               << "" << false;
        // neither: the trace reader's own reason
        QTest::newRow("PNG") << QStringList{"recognition/pixel.png"} << unknown << ""
                             << "binary file, not JSON or CSV"
                             << "" << false;
        QTest::newRow("zip") << QStringList{"recognition/trace.zip"} << unknown << ""
                             << "binary file, not JSON or CSV"
                             << "" << false;
        QTest::newRow("text") << QStringList{"recognition/notes.txt"} << unknown << "" << notATrace << ""
                              << false;
        QTest::newRow("empty file") << QStringList{"recognition/empty.txt"} << unknown << ""
                                    << "empty file"
                                    << "" << false;
        QTest::newRow("folder without traces") << QStringList{"recognition/no-traces"} << unknown << ""
                                               << "directory without manifest.json"
                                               << "" << false;
        QTest::newRow("missing") << QStringList{"recognition/missing.jsonl"} << unknown << ""
                                 << "no such file or directory"
                                 << "" << false;
        // a distributed job: a folder of ranks (sinks or files), several rank files, several sinks
        QTest::newRow("job of sinks")
            << QStringList{"fixtures/stormlog/distributed/firstcause-job"} << job << ""
            << ""
            << "" << false;
        QTest::newRow("job of files") << QStringList{"fixtures/synthetic-jobs/gapleak-job"} << job << ""
                                      << ""
                                      << "" << false;
        QTest::newRow("job, real") << QStringList{"fixtures/real-gpu/ddp"} << job << ""
                                   << ""
                                   << "" << false;
        QTest::newRow("several rank files") << QStringList{"fixtures/synthetic-jobs/gapleak-job/rank0.jsonl",
                                                           "fixtures/synthetic-jobs/gapleak-job/rank1.jsonl"}
                                            << job << ""
                                            << ""
                                            << "" << false;
        QTest::newRow("several rank sinks")
            << QStringList{"fixtures/real-gpu/folders/ddp/rank0/telemetry_sink",
                           "fixtures/real-gpu/folders/ddp/rank3/telemetry_sink"}
            << job << ""
            << ""
            << "" << false;
        // the same rank recorded twice (two trackers of one process): each opens on its own
        QTest::newRow("several runs")
            << QStringList{"fixtures/real-gpu/folders/single"} << toString(InputKind::SeveralRuns) << ""
            << ""
            << "" << false;
    }

    void everyInput()
    {
        QFETCH(QStringList, paths);
        QFETCH(QString, kind);
        QFETCH(QString, form);
        QFETCH(QString, reason);
        QFETCH(QString, read);
        QFETCH(bool, grows);
        QStringList given;
        for (const QString& path : paths)
            given << data(path);
        const InputRecognition input = recognizeInputs(given);
        QCOMPARE(toString(input.kind), kind);
        QCOMPARE(formOf(input), form);
        if (reason.isEmpty() && input.kind != InputKind::SeveralRuns)
            QVERIFY2(input.reason.isEmpty(), qPrintable(input.reason));
        else if (!reason.isEmpty())
            QVERIFY2(input.reason.startsWith(reason), qPrintable(input.reason));
        QCOMPARE(input.growsByLines, grows);
        QCOMPARE(input.bundle.has_value(), input.kind == InputKind::OomBundle);
        if (input.kind == InputKind::Job || input.kind == InputKind::SeveralRuns) {
            QVERIFY(input.path.isEmpty());
            QVERIFY(!input.plan.paths.isEmpty());
        } else {
            QCOMPARE(QDir::cleanPath(input.path),
                     QDir::cleanPath(read.isEmpty() ? given.front() : data(read)));
        }
        if (input.kind == InputKind::OomBundle) // the one bundle of tests/data, from every path into it
            QVERIFY2(input.bundle->folder.endsWith(QStringLiteral("/oom_dump_20261204T172219Z_601_cuda_1")),
                     qPrintable(input.bundle->folder));

        // One path or several: the same function answers, and opensAsJob is what it says.
        QCOMPARE(opensAsJob(given), input.kind == InputKind::Job);
        if (given.size() != 1)
            return;
        const QString& path = given.front();
        QCOMPARE(toString(recognizeInput(path).kind), kind);

        // A file read as itself: its kind and form follow from its head alone.
        if (QFileInfo(path).isFile() && input.path == path && input.kind != InputKind::OomBundle) {
            const InputRecognition byHead = recognizeHead(headOf(path));
            QCOMPARE(toString(byHead.kind), kind);
            QCOMPARE(formOf(byHead), form);
            QCOMPARE(byHead.reason, input.reason);
            QCOMPARE(byHead.growsByLines, grows);
        }

        // The document loader does what the recognition said.
        const DocumentOutcome loaded = loadDocument(path);
        switch (input.kind) {
        case InputKind::StormlogTrace:
        case InputKind::OomBundle:
            QVERIFY2(loaded.trace, qPrintable(loaded.failure()));
            QCOMPARE(detectDocumentKind(path), DocumentKind::StormlogTrace);
            if (input.kind == InputKind::StormlogTrace && *input.traceForm != TraceForm::Legacy)
                QCOMPARE(toString(loaded.trace->form), toString(*input.traceForm));
            QCOMPARE(loaded.path, input.path);
            break;
        case InputKind::BudgetLog:
            QVERIFY2(loaded.budget, qPrintable(loaded.failure()));
            QCOMPARE(detectDocumentKind(path), DocumentKind::BudgetLog);
            QCOMPARE(QString::fromLatin1(toString(loaded.budget->form)),
                     QString::fromLatin1(toString(*input.budgetForm)));
            break;
        case InputKind::Job:
            QVERIFY(!loaded.ok());
            QCOMPARE(detectDocumentKind(path), DocumentKind::Job);
            QVERIFY2(loaded.fatalError.endsWith(QStringLiteral("it is opened as a job")),
                     qPrintable(loaded.fatalError));
            break;
        case InputKind::SeveralRuns:
            QVERIFY(!loaded.ok());
            QCOMPARE(loaded.fatalError, input.reason);
            break;
        case InputKind::PytorchSnapshot:
            // read by the snapshot reader (model/snapshot) for the snapshot page: the real ones
            // load; the head cut at 4 KiB in folders/foreign is refused in the reader's words
            QCOMPARE(detectDocumentKind(path), DocumentKind::PytorchSnapshot);
            QCOMPARE(recognizeForeignInput(path), input.reason);
            if (path.contains(QStringLiteral("/folders/foreign/"))) {
                QVERIFY(!loaded.ok());
                QVERIFY2(loaded.fatalError.startsWith(path + QStringLiteral(": ")) &&
                             loaded.fatalError != path + QStringLiteral(": ") + input.reason,
                         qPrintable(loaded.fatalError));
            } else {
                QVERIFY2(loaded.snapshot, qPrintable(loaded.failure()));
                QCOMPARE(loaded.snapshot->path, path);
                QCOMPARE(loaded.loaded().snapshot, loaded.snapshot);
                QCOMPARE(loaded.loaded().path(), path);
            }
            break;
        case InputKind::FleetDatabase:
            // read only by model/fleetdata for the fleet page (this one: the schema, no run)
            QCOMPARE(detectDocumentKind(path), DocumentKind::FleetDatabase);
            QVERIFY2(loaded.fleet, qPrintable(loaded.failure()));
            QCOMPARE(loaded.fleet->runs.size(), size_t(0));
            QCOMPARE(loaded.loaded().path(), path);
            break;
        case InputKind::NvidiaSmiLog:
        case InputKind::Foreign:
            QVERIFY(!loaded.ok());
            QCOMPARE(loaded.fatalError, path + QStringLiteral(": ") + input.reason);
            QCOMPARE(recognizeForeignInput(path), input.reason);
            break;
        case InputKind::Unknown:
            // the trace loader refuses it, in the words the recognition gave
            QVERIFY(!loaded.ok());
            QCOMPARE(loaded.fatalError, path + QStringLiteral(": ") + input.reason);
            QCOMPARE(recognizeForeignInput(path), QString());
            break;
        }
    }

    // A folder with nothing in it (git keeps no empty folder: made here).
    void emptyFolder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const InputRecognition input = recognizeInput(dir.path());
        QCOMPARE(toString(input.kind), toString(InputKind::Unknown));
        QVERIFY2(input.reason.startsWith(QStringLiteral("directory without manifest.json")),
                 qPrintable(input.reason));
        QCOMPARE(detectDocumentKind(dir.path()), DocumentKind::StormlogTrace);
    }

    // A trace whose session holds several ranks opens as a job, decided in one place for the
    // window's open and for analyze / export.
    void jobSession_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("job");
        QTest::newRow("merged ranks") << "fixtures/stormlog/distributed/collective-merged.jsonl" << true;
        QTest::newRow("merged ranks, no markers")
            << "fixtures/stormlog/distributed/nomarker-merged.jsonl" << true;
        QTest::newRow("one rank") << "fixtures/stormlog/parity/drift.jsonl" << false;
        QTest::newRow("one rank of a job") << "fixtures/synthetic-jobs/gapleak-job/rank0.jsonl" << false;
    }
    void jobSession()
    {
        QFETCH(QString, path);
        QFETCH(bool, job);
        const DocumentOutcome loaded = loadDocument(data(path));
        QVERIFY2(loaded.trace, qPrintable(loaded.failure()));
        const auto session = jobSessionOf(*loaded.trace);
        QCOMPARE(session.has_value(), job);
        if (session) {
            QCOMPARE(*session, *loaded.trace->defaultSessionIndex());
            QVERIFY(loaded.trace->sessions[*session].ranks.size() > 1);
        }
        // analyze and export read it as the job of that session
        const InputsAnalysis analysed = analyzeInputs({data(path)}, DocumentRequest{});
        QVERIFY2(analysed.analysis.ok(), qPrintable(analysed.analysis.error));
        QCOMPARE(analysed.job.job != nullptr, job);
    }
};

QTEST_GUILESS_MAIN(TestRecognition)
#include "tst_recognition.moc"
