// Every input kind agrees across the GUI and the CLI: each fixture in tests/data/fixtures (the
// stormlog parity vectors, the real CPU trace in its JSON, CSV and sink forms, the distributed
// runs, the memory-budget logs, and the real GPU captures: pandas' CSV and an OOM bundle's
// oom_dumps folder) is run through the real `gapscope analyze` and
// `gapscope export` binary and opened in a MainWindow both ways (openPath in the background
// and showTraceNow on the calling thread), over the whole run and over a window (--from/--to,
// "Analyse Window"); the findings of all four (classification, severity, confidence, evidence
// numbers and timestamp) and the window must be the same, or all four must refuse the input.
// A job folder (several per-rank inputs) is analyze's and export's alone until the job page
// opens it: the two agree on it rank by rank.
#include "app/ExportActions.h"
#include "app/MainWindow.h"
#include "app/cli/ExportCommand.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/TracePage.h"
#include "model/document/Document.h"
#include "model/items/FindingsModel.h"
#include "model/store/BudgetData.h"
#include "model/store/TraceData.h"
#include "model/trace/AnalysisRunner.h"
#include "tests/WindowAccess.h"
#include "widgets/export/ChartExport.h"

#include "tests/GapscopeProcess.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <optional>
#include <vector>

using namespace gapscope;

namespace {

constexpr int kTimeoutMs = 120000;

const QString kFixtures = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures");

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What the four must agree on: the kind of report and, per finding, what a reader compares.
QJsonObject findingsOf(const QByteArray& report)
{
    QJsonParseError error;
    const QJsonObject object = QJsonDocument::fromJson(report, &error).object();
    if (error.error != QJsonParseError::NoError)
        return {{QStringLiteral("parse_error"), error.errorString()}};
    QJsonArray findings;
    // upstream's list, then gapscope's own findings on the allocator's counters, which the
    // findings table lists with them
    for (const char* list : {"gap_analysis", "allocator_findings"}) {
        for (const QJsonValue& value : object.value(QLatin1String(list)).toArray()) {
            const QJsonObject finding = value.toObject();
            QJsonObject kept;
            for (const char* key :
                 {"classification", "severity", "confidence", "evidence", "phase_attribution"})
                kept.insert(QLatin1String(key), finding.value(QLatin1String(key)));
            findings.append(kept);
        }
    }
    return {{QStringLiteral("kind"), object.value(QStringLiteral("kind"))},
            {QStringLiteral("window"), object.value(QStringLiteral("window"))},
            {QStringLiteral("findings"), findings}};
}

// The gap analyses of a job's ranks, one per rank (null for a missing one); empty for one trace.
QJsonArray rankFindingsOf(const QByteArray& report)
{
    QJsonArray ranks;
    for (const QJsonValue rank :
         QJsonDocument::fromJson(report).object().value(QStringLiteral("ranks")).toArray())
        ranks.append(rank.toObject().value(QStringLiteral("gap_analysis")));
    return ranks;
}

// ns timestamps exceed 2^53: the JSON above holds them as doubles, so they are compared as text
// (those of the report's own findings, not of a job's ranks after them).
QStringList evidenceTimestamps(const QByteArray& report)
{
    QStringList stamps;
    const qsizetype ranks = report.indexOf("\n  \"ranks\": [");
    for (const QByteArray& line : report.left(ranks < 0 ? report.size() : ranks).split('\n')) {
        if (line.contains("\"evidence_timestamp_ns\""))
            stamps << QString::fromUtf8(line.trimmed());
    }
    return stamps;
}

// The GUI's report of what the window shows: the JSON "Export Report..." writes.
QByteArray guiReport(MainWindow& window, const QString& file, QString* error)
{
    QFile::remove(file);
    if (!window.exportActions()->writeReport(file, ExportFormat::Json, kDefaultChartSize, true, error))
        return {};
    return readFile(file);
}

// The middle half of what the window loaded (every event of a trace, every tick of a budget
// log); nullopt when nothing is loaded.
std::optional<TimeWindow> middleHalf(const MainWindow& window)
{
    std::vector<int64_t> times;
    if (const auto budget = front(window).budgetData())
        times = budget->ticks.timestampNs;
    else if (const auto trace = front(window).trace())
        times = trace->store.timestampNs;
    if (times.empty())
        return std::nullopt;
    const auto [first, last] = std::minmax_element(times.begin(), times.end());
    const int64_t quarter = (*last - *first) / 4;
    return TimeWindow{*first + quarter, *last - quarter};
}

size_t guiFindingCount(const MainWindow& window)
{
    if (const auto budget = front(window).budgetAnalysis())
        return budget->findings.size();
    return front(window).analysis() ? front(window).analysis()->findings.size() : 0;
}

} // namespace

class TestDocumentAgreement : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // a settings file of its own, so the window runs with the default thresholds as the CLI does
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(
            QStringLiteral("tst_documentagreement-%1").arg(QCoreApplication::applicationPid()));
    }

    void cleanupTestCase() { QFile::remove(QSettings().fileName()); }

    void jobAgrees(const QString& path, bool windowed, const QTemporaryDir& dir)
    {
        QStringList windowArgs;
        if (windowed) {
            const JobOutcome job = loadJob({path});
            QVERIFY2(job.job, qPrintable(job.fatalError));
            const int64_t quarter = (job.job->lastTimestampNs - job.job->firstTimestampNs) / 4;
            windowArgs = {QStringLiteral("--from"), QString::number(job.job->firstTimestampNs + quarter),
                          QStringLiteral("--to"), QString::number(job.job->lastTimestampNs - quarter)};
        }
        const GapscopeRun analysed = runGapscope(
            QStringList{QStringLiteral("analyze"), path, QStringLiteral("--format"), QStringLiteral("json")} +
            windowArgs);
        QVERIFY2(analysed.exitCode == 0, analysed.err.constData());
        const QString exportFile = dir.filePath(QStringLiteral("export.json"));
        const GapscopeRun exported =
            runGapscope(QStringList{QStringLiteral("export"), path, QStringLiteral("--format"),
                                    QStringLiteral("json"), QStringLiteral("--output"), exportFile} +
                        windowArgs);
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        const QByteArray cliExport = readFile(exportFile);
        QCOMPARE(findingsOf(cliExport), findingsOf(analysed.out));
        QCOMPARE(evidenceTimestamps(cliExport), evidenceTimestamps(analysed.out));
        const QJsonArray ranks = rankFindingsOf(analysed.out);
        QVERIFY(ranks.size() > 1);
        QCOMPARE(rankFindingsOf(cliExport), ranks);
    }

    void everyFixtureAgrees_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("windowed"); // --from/--to and "Analyse Window" on the middle half
        // every input of the fixture folders: files (not the upstream .expected.json answers)
        // and the sink and job directories, each as one row
        int rows = 0;
        for (const char* folder : {"stormlog/parity", "stormlog/real", "stormlog/distributed", "budget",
                                   "real-gpu/single", "real-gpu/oom"}) {
            const QDir dir(kFixtures + QLatin1Char('/') + QLatin1String(folder));
            const QFileInfoList entries =
                dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
            for (const QFileInfo& entry : entries) {
                // the upstream answers and the notes on how a fixture was made are no inputs
                if (entry.fileName().endsWith(QLatin1String(".expected.json")) ||
                    entry.fileName() == QLatin1String("README.md"))
                    continue;
                // real-gpu/single: its files (the CSV, the sink's head); a folder there is one run
                // of one rank, which opens as a document, not as a job of several ranks
                if (QLatin1String(folder) == QLatin1String("real-gpu/single") && entry.isDir())
                    continue;
                const QString name = QLatin1String(folder) + QLatin1Char('/') + entry.fileName();
                QTest::newRow(qPrintable(name)) << entry.absoluteFilePath() << false;
                QTest::newRow(qPrintable(name + QStringLiteral(" window")))
                    << entry.absoluteFilePath() << true;
                ++rows;
            }
        }
        // the parity vectors, cpu_phases.{json,csv}, cpu_sink, the distributed runs, seven budget
        // logs, the GPU CSV with its sink's head, oom_dumps
        QVERIFY(rows >= 7 + 3 + 6 + 7 + 2 + 1);
    }

    void everyFixtureAgrees()
    {
        QFETCH(QString, path);
        QFETCH(bool, windowed);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        if (detectDocumentKind(path) == DocumentKind::Job) {
            // A job folder opens on the job page, not in a trace window: analyze and export
            // agree on the rank shown and on every rank's own analysis.
            jobAgrees(path, windowed, dir);
            return;
        }

        MainWindow background;
        background.openPath(path);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !background.isBusy() &&
                       (front(background).analysis() || front(background).budgetAnalysis() ||
                        background.isWelcomeShown());
            },
            kTimeoutMs));
        MainWindow now;
        QString nowError;
        const bool shownNow = now.showTraceNow(path, &nowError);

        QStringList windowArgs;
        if (const auto window = middleHalf(background); windowed && window) {
            windowArgs = {QStringLiteral("--from"), QString::number(window->beginNs), QStringLiteral("--to"),
                          QString::number(window->endNs)};
            for (MainWindow* shown : {&background, &now}) {
                // the rank's page (a session of several ranks shows its job page first)
                DocumentPage* page = front(*shown).budgetAnalysis()
                                         ? static_cast<DocumentPage*>(front(*shown).budgetPage())
                                         : static_cast<DocumentPage*>(front(*shown).tracePage());
                page->analyseWindow(window->beginNs, window->endNs);
                QVERIFY(QTest::qWaitFor([&] { return !shown->isBusy() && page->isWindowAnalysis(); },
                                        kTimeoutMs));
            }
        }

        const GapscopeRun analysed = runGapscope(
            QStringList{QStringLiteral("analyze"), path, QStringLiteral("--format"), QStringLiteral("json")} +
            windowArgs);
        const QString exportFile = dir.filePath(QStringLiteral("export.json"));
        const GapscopeRun exported =
            runGapscope(QStringList{QStringLiteral("export"), path, QStringLiteral("--format"),
                                    QStringLiteral("json"), QStringLiteral("--output"), exportFile} +
                        windowArgs);

        if (analysed.exitCode != 0) {
            // an input the CLI refuses: export refuses it too and neither window shows it
            QCOMPARE(analysed.exitCode, 2);
            QCOMPARE(exported.exitCode, 2);
            QVERIFY(!QFile::exists(exportFile));
            QVERIFY2(!shownNow, qPrintable(path));
            QVERIFY(!nowError.isEmpty());
            QVERIFY(!front(background).analysis() && !front(background).budgetAnalysis());
            return;
        }
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QVERIFY2(shownNow, qPrintable(nowError));

        QString error;
        const QByteArray guiBackground =
            guiReport(background, dir.filePath(QStringLiteral("gui1.json")), &error);
        QVERIFY2(!guiBackground.isEmpty(), qPrintable(error));
        const QByteArray guiNow = guiReport(now, dir.filePath(QStringLiteral("gui2.json")), &error);
        QVERIFY2(!guiNow.isEmpty(), qPrintable(error));
        const QByteArray cliExport = readFile(exportFile);

        const QJsonObject expected = findingsOf(analysed.out);
        QVERIFY2(!expected.contains(QStringLiteral("parse_error")), analysed.out.left(400).constData());
        QCOMPARE(findingsOf(cliExport), expected);
        QCOMPARE(findingsOf(guiBackground), expected);
        QCOMPARE(findingsOf(guiNow), expected);
        const QStringList stamps = evidenceTimestamps(analysed.out);
        QCOMPARE(evidenceTimestamps(cliExport), stamps);
        QCOMPARE(evidenceTimestamps(guiBackground), stamps);
        QCOMPARE(evidenceTimestamps(guiNow), stamps);

        // the findings table lists what the report lists
        const qsizetype count = expected.value(QStringLiteral("findings")).toArray().size();
        QCOMPARE(qsizetype(guiFindingCount(background)), count);
        // (the rank's page: a session of several ranks opens on its job page, whose table lists
        // the cross-rank findings; the rank shown is one click away)
        const auto pageFindings = [](const MainWindow& window) {
            return front(window).budgetAnalysis() ? front(window).findingsModel()
                                                  : front(window).tracePage()->findingsModel();
        };
        QCOMPARE(qsizetype(pageFindings(background)->rowCount()), count);
        QCOMPARE(qsizetype(pageFindings(now)->rowCount()), count);
    }
};

QTEST_MAIN(TestDocumentAgreement)
#include "tst_documentagreement.moc"
