// A tab holds one page of every entry of the page registry (app/pages/PageRegistry) and hands
// a loaded document to the page registered for it; its other pages forget theirs, except the
// job page, which shows the job of a trace of several ranks and goes in front of the trace's
// first result. A rank opened on the job page is shown on the trace page of the same tab, at
// the job page's range moved to the rank's own clock, with the job's collective intervals.

#include "app/DocumentTab.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/PageRegistry.h"
#include "app/pages/TracePage.h"
#include "app/pages/ViewState.h"
#include "model/document/Document.h"
#include "model/job/JobLoader.h"
#include "widgets/trace/GapChartView.h"

#include <QAction>
#include <QSignalSpy>
#include <QString>
#include <QTest>

using namespace gapscope;

namespace {

constexpr int kTimeoutMs = 30000;

QString data(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/") + name;
}

LoadedDocument load(const QString& path)
{
    if (opensAsJob({path}))
        return LoadedDocument{nullptr, nullptr, loadJob({path}).job};
    return loadDocument(path).loaded();
}

} // namespace

class TestDocumentTab : public QObject
{
    Q_OBJECT
private slots:
    void onePagePerRegistration()
    {
        QAction resetZoom;
        DocumentTab tab(&resetZoom, GapThresholds{}, nullptr);
        QCOMPARE(size_t(tab.pages().size()), pageRegistry().size());
        for (size_t i = 0; i < pageRegistry().size(); ++i) {
            QCOMPARE(tab.pages()[qsizetype(i)]->objectName(), QLatin1String(pageRegistry()[i].objectName));
            QCOMPARE(tab.widget(int(i)), static_cast<QWidget*>(tab.pages()[qsizetype(i)]));
        }
        QVERIFY(tab.tracePage() && tab.budgetPage() && tab.jobPage());
        QVERIFY(!tab.hasDocument());
        QCOMPARE(tab.documentPage(), static_cast<DocumentPage*>(tab.tracePage())); // the first
    }

    // The page that takes the document holds it; every other page holds nothing, but the job
    // page shows the job of a trace of several ranks (in the background only).
    void handsTheDocumentToThePageThatTakesIt_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("taker");
        QTest::addColumn<bool>("jobBeside");
        const QString merged = QStringLiteral("fixtures/stormlog/distributed/collective-merged.jsonl");
        QTest::newRow("trace") << data(QStringLiteral("fixtures/stormlog/parity/mixed.jsonl"))
                               << int(OpenMode::Background) << QStringLiteral("tracePage") << false;
        QTest::newRow("trace of several ranks")
            << data(merged) << int(OpenMode::Background) << QStringLiteral("tracePage") << true;
        QTest::newRow("trace of several ranks, now")
            << data(merged) << int(OpenMode::Now) << QStringLiteral("tracePage") << false;
        QTest::newRow("budget log") << data(QStringLiteral("budget_mixed.text")) << int(OpenMode::Now)
                                    << QStringLiteral("budgetPage") << false;
        QTest::newRow("job") << data(QStringLiteral("fixtures/stormlog/distributed/firstcause-job"))
                             << int(OpenMode::Background) << QStringLiteral("jobPage") << false;
        QTest::newRow("PyTorch snapshot") << data(QStringLiteral("snapshot/snapshot.pickle"))
                                          << int(OpenMode::Now) << QStringLiteral("snapshotPage") << false;
        QTest::newRow("PyTorch snapshot, gzip")
            << data(QStringLiteral("snapshot/pair/snapshot.pickle.gz")) << int(OpenMode::Background)
            << QStringLiteral("snapshotPage") << false;
        QTest::newRow("fleet index") << data(QStringLiteral("recognition/fleet.sqlite"))
                                     << int(OpenMode::Background) << QStringLiteral("fleetPage") << false;
    }

    void handsTheDocumentToThePageThatTakesIt()
    {
        QFETCH(QString, path);
        QFETCH(int, mode);
        QFETCH(QString, taker);
        QFETCH(bool, jobBeside);
        QAction resetZoom;
        DocumentTab tab(&resetZoom, GapThresholds{}, nullptr);
        // something else first: the new document replaces it
        QString error;
        QVERIFY(tab.openDocument(load(data(QStringLiteral("budget_snapshot.jsonl"))), OpenMode::Now, &error));
        QSignalSpy shown(&tab, &DocumentTab::pageShown);
        const LoadedDocument document = load(path);
        DocumentPage* page = tab.openDocument(document, OpenMode(mode), &error);
        QVERIFY2(page, qPrintable(error));
        QCOMPARE(page->objectName(), taker);
        QVERIFY(page->hasDocument());
        QCOMPARE(tab.state().displayPath, page->documentPath());
        QVERIFY(page->analyseOpened(OpenMode(mode), &error));
        for (DocumentPage* other : tab.pages())
            if (other != page)
                QCOMPARE(other->hasDocument(), jobBeside && other == tab.jobPage());
        if (jobBeside) {
            tab.jobPage()->waitForWork();
            QVERIFY(tab.jobPage()->jobFindings());
            // the trace's first result shows the job page; its ranks' intervals shade the trace
            QVERIFY(QTest::qWaitFor([&] { return tab.tracePage()->hasResult(); }, kTimeoutMs));
            QVERIFY(!shown.isEmpty());
            QCOMPARE(shown.last().at(0).value<QWidget*>(), static_cast<QWidget*>(tab.jobPage()));
            QVERIFY(!tab.jobPage()->collectiveIntervalsOf(tab.tracePage()->trace()).empty());
            for (const JobCollectiveInterval& interval : tab.tracePage()->chart()->collectiveIntervals())
                QCOMPARE(std::optional<int64_t>(interval.rank), tab.tracePage()->analysis()->rank);
        }
        QCOMPARE(tab.hasDocument(), true);
        tab.clear();
        QVERIFY(!tab.hasDocument());
    }

    // A rank of the job page opens on the trace page of the same tab.
    void opensARankOnTheTracePage_data()
    {
        QTest::addColumn<QString>("job");
        QTest::addColumn<qlonglong>("rank");
        QTest::newRow("skew-job rank 5") << QStringLiteral("skew-job") << 5LL;
        QTest::newRow("missing-files rank 1") << QStringLiteral("missing-files") << 1LL;
    }

    void opensARankOnTheTracePage()
    {
        QFETCH(QString, job);
        QFETCH(qlonglong, rank);
        QAction resetZoom;
        DocumentTab tab(&resetZoom, GapThresholds{}, nullptr);
        tab.resize(1400, 900); // the scrubber places the cursor on its pixels
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        QString error;
        DocumentPage* page = tab.openDocument(
            load(data(QStringLiteral("fixtures/stormlog/distributed/") + job)), OpenMode::Now, &error);
        QVERIFY2(page == tab.jobPage(), qPrintable(error));
        QVERIFY(page->analyseOpened(OpenMode::Now, &error));
        JobPage* jobPage = tab.jobPage();
        const auto input = jobPage->rankInput(rank);
        QVERIFY(input);
        const qint64 aligned = (jobPage->job()->firstTimestampNs + jobPage->job()->lastTimestampNs) / 2;
        jobPage->viewState()->setCursor(aligned);
        const int64_t offset = jobPage->jobFindings()->summary->offsetOf(rank);

        const TimeRange jobRange = jobPage->viewState()->visibleRange();
        QSignalSpy shown(&tab, &DocumentTab::pageShown);
        emit jobPage->rankActivated(rank);
        QVERIFY(!shown.isEmpty());
        QCOMPARE(shown.first().at(0).value<QWidget*>(), static_cast<QWidget*>(tab.tracePage()));
        QCOMPARE(tab.tracePage()->trace(), input->trace);
        QCOMPARE(tab.state().displayPath, input->path);
        QVERIFY(jobPage->hasDocument()); // the job stays, one click away
        QVERIFY(QTest::qWaitFor([&] { return tab.tracePage()->hasResult(); }, kTimeoutMs));
        QCOMPARE(tab.tracePage()->analysis()->rank, int64_t(rank));
        // the job page's range on the rank's clock (the cursor goes there too, then to the rank's
        // most severe finding, which a newly opened trace selects)
        QCOMPARE(tab.tracePage()->viewState()->visibleRange().beginNs, jobRange.beginNs + offset);
        QCOMPARE(tab.tracePage()->viewState()->visibleRange().endNs, jobRange.endNs + offset);
        QVERIFY(!jobPage->takeRankView()); // applied once
        for (const JobCollectiveInterval& interval : tab.tracePage()->chart()->collectiveIntervals())
            QCOMPARE(interval.rank, int64_t(rank));

        // a rank without events stays where it is, with a message
        QSignalSpy message(&tab, &DocumentTab::statusMessage);
        emit jobPage->rankActivated(9999);
        QCOMPARE(message.size(), 1);
        QVERIFY(message.first().at(0).toString().contains(QStringLiteral("9999")));
        QVERIFY(tab.showJobOverview());
    }
};

QTEST_MAIN(TestDocumentTab)
#include "tst_documenttab.moc"
