// The fleet page on a real fleet index: tests/data/fleet/tree indexed by the library behind
// `gapscope index` into a temporary database, then recognised, loaded read only and shown.
// (a) recognition: a fleet index, another SQLite database, a text file;
// (b) the page opens it: a row per run, the models pass QAbstractItemModelTester;
// (c) filters (job, severity, notice, class, text) and sort;
// (d) a rubber band on the scatter selects the rows, a table selection highlights points;
// (e) the recurring issues equal the database's recurring_issues view, with their runs;
// (f) a double-click asks to open the run's path;
// (g) the exports: the runs shown as CSV, the issues as Markdown and HTML.
#include "app/pages/FleetPage.h"
#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "model/fleetdata/FleetQuery.h"
#include "model/items/FleetIssuesModel.h"
#include "model/items/FleetRunsModel.h"
#include "tests/FleetFixture.h"
#include "widgets/fleet/FleetScatterView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

class TestFleetPage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::shared_ptr<const FleetData> m_fleet;

    static int comboIndex(QComboBox* combo, const QString& value) { return combo->findData(value); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("fleet.sqlite"));
        const QString error = test::indexTestFleet(m_db);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void recognition_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("kind");
        QTest::newRow("fleet index") << QStringLiteral("fleet.sqlite") << int(InputKind::FleetDatabase);
        QTest::newRow("other sqlite") << QStringLiteral("other.sqlite") << int(InputKind::Foreign);
        QTest::newRow("text") << QStringLiteral("notes.txt") << int(InputKind::Unknown);
    }
    void recognition()
    {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("other"));
            db.setDatabaseName(m_dir.filePath(QStringLiteral("other.sqlite")));
            QVERIFY(db.open());
            QSqlQuery(db).exec(QStringLiteral("CREATE TABLE runs (id INTEGER, name TEXT)"));
            QSqlQuery(db).exec(QStringLiteral("INSERT INTO runs VALUES (1, 'x')"));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("other"));
        QFile text(m_dir.filePath(QStringLiteral("notes.txt")));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("SQLite format 3 is what the fleet index is written in\n");
        text.close();

        QFETCH(QString, file);
        QFETCH(int, kind);
        const InputRecognition input = recognizeInput(m_dir.filePath(file));
        QCOMPARE(toString(input.kind), toString(InputKind(kind)));
        if (input.kind == InputKind::Foreign)
            QVERIFY2(input.reason.contains(QStringLiteral("not a gapscope fleet index")),
                     qPrintable(input.reason));
        // another SQLite database is refused by name, not read as a trace
        if (file == QStringLiteral("other.sqlite")) {
            const DocumentOutcome outcome = loadDocument(m_dir.filePath(file));
            QVERIFY(!outcome.ok());
            QVERIFY2(outcome.fatalError.contains(QStringLiteral("SQLite")), qPrintable(outcome.fatalError));
        }
    }

    void loadsReadOnly()
    {
        const QByteArray before = [&] {
            QFile f(m_db);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        const DocumentOutcome outcome = loadDocument(m_db);
        QVERIFY2(outcome.ok(), qPrintable(outcome.failure()));
        QVERIFY(outcome.fleet);
        QCOMPARE(outcome.loaded().fleet, outcome.fleet);
        QCOMPARE(outcome.loaded().path(), m_db);
        m_fleet = outcome.fleet;
        QCOMPARE(m_fleet->runs.size(), size_t(12));
        QFile after(m_db);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before); // read only: not a byte changed
        // a database of another schema version is refused with the reason
        const QString copy = m_dir.filePath(QStringLiteral("v99.sqlite"));
        QVERIFY(QFile::copy(m_db, copy));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v99"));
            db.setDatabaseName(copy);
            QVERIFY(db.open());
            QVERIFY(QSqlQuery(db).exec(
                QStringLiteral("UPDATE meta SET value = '99' WHERE key = 'schema_version'")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v99"));
        const FleetLoadOutcome refused = loadFleetDatabase(copy);
        QVERIFY(!refused.data);
        QVERIFY2(refused.fatalError.contains(QStringLiteral("schema version 99")),
                 qPrintable(refused.fatalError));
    }

    void pageShowsTheFleet()
    {
        QAction resetZoom;
        FleetPage page(&resetZoom, nullptr);
        QAbstractItemModelTester runsTester(page.runsModel(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester issuesTester(page.issuesModel(),
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        LoadedDocument document;
        document.fleet = m_fleet;
        QString error;
        QVERIFY2(page.open(document, &error), qPrintable(error));
        QVERIFY(page.analyseOpened(OpenMode::Now, &error));
        QVERIFY(page.hasDocument());
        QCOMPARE(page.documentPath(), m_db);
        QCOMPARE(page.runsModel()->rowCount(), 12);
        // the scatter: a point per run with a duration and a peak gap
        QCOMPARE(page.scatter()->points().size(), size_t(10));

        // (c) filters
        page.jobFilter()->setCurrentIndex(comboIndex(page.jobFilter(), QStringLiteral("gapscope-real-ddp")));
        QCOMPARE(page.runsModel()->rowCount(), 4);
        page.noticeFilter()->setCurrentIndex(
            comboIndex(page.noticeFilter(), QStringLiteral("rank_divergence")));
        QCOMPARE(page.runsModel()->rowCount(), 1);
        QCOMPARE(page.runsModel()->index(0, int(FleetRunColumn::Rank)).data().toString(),
                 QStringLiteral("2"));
        page.resetZoom();
        QCOMPARE(page.runsModel()->rowCount(), 12);
        // the last 24 hours before the newest run's end: the runs of 2026-12-04, not those of
        // 2026-11-30 nor those without a time (a budget log, a snapshot)
        page.timeFilter()->setCurrentIndex(1);
        QCOMPARE(page.runsModel()->rowCount(), 8);
        page.resetZoom();
        page.severityFilter()->setCurrentIndex(page.severityFilter()->findData(int(FleetSeverity::Critical)));
        QCOMPARE(page.runsModel()->rowCount(), 3);
        page.resetZoom();
        page.classFilter()->setCurrentIndex(comboIndex(page.classFilter(), kFleetNoFinding));
        QCOMPARE(page.runsModel()->rowCount(), 4);
        page.resetZoom();
        page.textFilter()->setText(QStringLiteral("FRAG"));
        QCOMPARE(page.runsModel()->rowCount(), 2);            // the frag sink, the fragmented snapshot
        QCOMPARE(page.scatter()->points().size(), size_t(1)); // a snapshot has no gap series
        page.resetZoom();

        // sort: by rank descending, unknown ranks last
        page.runsModel()->sort(int(FleetRunColumn::Rank), Qt::DescendingOrder);
        QCOMPARE(page.runsModel()->index(0, int(FleetRunColumn::Rank)).data().toString(),
                 QStringLiteral("3"));
        QCOMPARE(page.runsModel()->index(11, int(FleetRunColumn::Rank)).data().toString(), QString());
        page.runsModel()->sort(int(FleetRunColumn::PeakGap), Qt::DescendingOrder);
        const QVariant top =
            page.runsModel()->index(0, int(FleetRunColumn::PeakGap)).data(FleetRunsModel::SortRole);
        for (int row = 1; row < 10; ++row)
            QVERIFY(page.runsModel()
                        ->index(row, int(FleetRunColumn::PeakGap))
                        .data(FleetRunsModel::SortRole)
                        .toLongLong() <= top.toLongLong());

        // (d) brushing: a band over the whole plot selects every plotted run's row
        page.resize(1400, 900);
        page.scatter()->resize(600, 400);
        QSignalSpy brushed(page.scatter(), &FleetScatterView::runsBrushed);
        QTest::mousePress(page.scatter(), Qt::LeftButton, {}, QPoint(1, 1));
        QTest::mouseMove(page.scatter(), QPoint(599, 399));
        QTest::mouseRelease(page.scatter(), Qt::LeftButton, {}, QPoint(599, 399));
        QCOMPARE(brushed.count(), 1);
        std::vector<int> plotted;
        for (const FleetScatterPoint& p : page.scatter()->points())
            plotted.push_back(p.run);
        std::sort(plotted.begin(), plotted.end());
        QCOMPARE(page.selectedRuns(), plotted);
        // and the table's selection is what the scatter highlights
        page.selectRuns({plotted.front()});
        QCOMPARE(page.selectedRuns(), std::vector<int>{plotted.front()});

        // (e) the recurring issues equal the database's view
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("check"));
            db.setDatabaseName(m_db);
            db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("SELECT fingerprint, run_count, hit_count FROM recurring_issues")));
            QHash<QString, std::pair<qint64, qint64>> expected;
            while (q.next())
                expected.insert(q.value(0).toString(), {q.value(1).toLongLong(), q.value(2).toLongLong()});
            QCOMPARE(page.issuesModel()->rowCount(), int(expected.size()));
            QVERIFY(expected.size() > 0);
            for (int row = 0; row < page.issuesModel()->rowCount(); ++row) {
                const FleetIssue* issue = page.issuesModel()->issueAt(row);
                QVERIFY(expected.contains(issue->fingerprint));
                QCOMPARE(issue->runCount, expected[issue->fingerprint].first);
                QCOMPARE(issue->hitCount, expected[issue->fingerprint].second);
                QCOMPARE(qint64(issue->runs.size()), issue->runCount);
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("check"));
        // selecting an issue lists its runs
        page.issuesView()->setCurrentIndex(page.issuesView()->model()->index(0, 0));
        const FleetIssue* first = page.issuesModel()->issueAt(
            page.issuesView()->model()->index(0, 0).data(FleetIssuesModel::IssueRole).toInt());
        QCOMPARE(page.issueRunsModel()->rowCount(), int(first->runs.size()));

        // (f) a double-click asks the window to open the run's path
        QSignalSpy open(&page, &DocumentPage::openPathRequested);
        const QModelIndex cell = page.runsModel()->index(2, 0);
        emit page.runsView()->doubleClicked(cell);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.front().front().toString(), cell.data(FleetRunsModel::PathRole).toString());
        QVERIFY(QFileInfo::exists(open.front().front().toString()));

        // (g) exports: the runs shown, the issues
        page.textFilter()->setText(QStringLiteral("ddp"));
        const PageExport exported = page.pageExport();
        QCOMPARE(exported.documents.size(), size_t(3));
        const QString csv = QString::fromUtf8(exported.documents[0].bytes());
        QVERIFY(csv.startsWith(QStringLiteral("path,job_id,rank,")));
        QCOMPARE(csv.count(QLatin1Char('\n')), 1 + 4);
        QVERIFY(csv.contains(QStringLiteral("gapscope-real-ddp,2,")));
        const QString markdown = QString::fromUtf8(exported.documents[1].bytes());
        const QString html = QString::fromUtf8(exported.documents[2].bytes());
        QVERIFY(markdown.startsWith(QStringLiteral("# Recurring issues of ")));
        QVERIFY(html.contains(QStringLiteral("<table>")));
        for (const FleetIssue& issue : m_fleet->issues) {
            QVERIFY2(markdown.contains(issue.fingerprint), qPrintable(issue.fingerprint));
            QVERIFY2(html.contains(issue.fingerprint), qPrintable(issue.fingerprint));
        }
        page.clear();
        QVERIFY(!page.hasDocument());
        QCOMPARE(page.runsModel()->rowCount(), 0);
    }
};

QTEST_MAIN(TestFleetPage)
#include "tst_fleetpage.moc"
