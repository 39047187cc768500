// Keyboard and tables (issue 17 item 14): Tab leaves the findings table and the phases tree
// instead of walking their cells, the pane with focus shows it, both can be sorted by a
// header and filtered by a line of text, and a legend entry hides its series.

#include "app/MainWindow.h"
#include "app/pages/TracePage.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "tests/OwnSettings.h"
#include "tests/WindowAccess.h"
#include "widgets/trace/FindingDetailView.h"
#include "widgets/trace/GapChartView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace gapscope;

namespace {

QString parityPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
}

bool open(MainWindow& window, const QString& name)
{
    QString error;
    const bool ok = window.showTraceNow(parityPath(name), &error);
    if (!ok)
        qWarning("%s", qPrintable(error));
    return ok;
}

QStringList column(const QAbstractItemModel* model, int col, const QModelIndex& parent = {})
{
    QStringList values;
    for (int row = 0; row < model->rowCount(parent); ++row)
        values << model->index(row, col, parent).data().toString();
    return values;
}

// How far the colour of the view's left edge is from the palette's highlight, mid-height.
int edgeDistanceToHighlight(QWidget* view)
{
    const QImage image = view->grab().toImage();
    const QColor edge = image.pixelColor(0, image.height() / 2);
    const QColor highlight = view->palette().color(QPalette::Highlight);
    return std::abs(edge.red() - highlight.red()) + std::abs(edge.green() - highlight.green()) +
           std::abs(edge.blue() - highlight.blue());
}

} // namespace

class TestTableKeys : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::useOwnSettings(QStringLiteral("tst_tablekeys")); }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void tabMovesBetweenPanes()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        // a trace with phases and findings: both panes are shown
        QVERIFY(open(window, QStringLiteral("phasespike.jsonl")));
        for (QAbstractItemView* view : {static_cast<QAbstractItemView*>(front(window).findingsView()),
                                        static_cast<QAbstractItemView*>(front(window).phasesView())}) {
            QVERIFY(!view->tabKeyNavigation());
            view->setFocus(Qt::TabFocusReason);
            QTRY_VERIFY(view->hasFocus());
            const QModelIndex before = view->currentIndex();
            QTest::keyClick(view, Qt::Key_Tab);
            QVERIFY2(!view->hasFocus(), qPrintable(view->objectName()));
            QCOMPARE(view->currentIndex(), before); // no cell walked
        }
    }

    void focusIsVisible()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(open(window, QStringLiteral("mixed.jsonl")));
        QTableView* findings = front(window).findingsView();
        QWidget* detail = front(window).detailView()->focusProxy(); // its text
        QVERIFY(detail);
        front(window).detailView()->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(detail->hasFocus());
        QVERIFY(edgeDistanceToHighlight(findings) > 60);
        QVERIFY(edgeDistanceToHighlight(detail) < 30);
        findings->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(findings->hasFocus());
        QVERIFY2(edgeDistanceToHighlight(findings) < 30, "the focused table has no visible frame");
        QVERIFY(edgeDistanceToHighlight(detail) > 60);
    }

    void findingsSortAndFilter()
    {
        MainWindow window;
        window.show();
        QVERIFY(open(window, QStringLiteral("mixed.jsonl")));
        QTableView* view = front(window).findingsView();
        QAbstractItemModelTester tester(view->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // the source order (most severe first) until a header is clicked
        QCOMPARE(column(view->model(), FindingsModel::ClassificationColumn),
                 (QStringList{QStringLiteral("Transient spike"), QStringLiteral("Persistent drift")}));
        QVERIFY(view->isSortingEnabled());
        // no room taken by a sort arrow until the user sorts
        QVERIFY(!view->horizontalHeader()->isSortIndicatorShown());
        view->horizontalHeader()->setSortIndicator(FindingsModel::ConfidenceColumn, Qt::AscendingOrder);
        QVERIFY(view->horizontalHeader()->isSortIndicatorShown());
        QCOMPARE(column(view->model(), FindingsModel::ClassificationColumn),
                 (QStringList{QStringLiteral("Persistent drift"), QStringLiteral("Transient spike")}));
        // finding indices still mean findings, whatever the order
        front(window).selectFinding(0);
        QCOMPARE(view->currentIndex().data(FindingsModel::ClassificationKeyRole).toString(),
                 QStringLiteral("transient_spike"));
        QCOMPARE(front(window).detailView()->findingIndex(), 0);
        // the next finding is the next row shown
        front(window).selectFinding(1);
        QCOMPARE(view->currentIndex().row(), 0);

        QLineEdit* filter = front(window).tracePage()->findingsFilter();
        QVERIFY(filter);
        filter->setText(QStringLiteral("DRIFT"));
        QCOMPARE(view->model()->rowCount(), 1);
        QCOMPARE(column(view->model(), FindingsModel::ClassificationColumn),
                 QStringList{QStringLiteral("Persistent drift")});
        filter->setText(QStringLiteral("no such text")); // matches no column
        QCOMPARE(view->model()->rowCount(), 0);
        // a finding asked for by index is shown even when filtered out
        front(window).selectFinding(0);
        QVERIFY(filter->text().isEmpty());
        QCOMPARE(view->currentIndex().data(FindingsModel::ClassificationKeyRole).toString(),
                 QStringLiteral("transient_spike"));
        // a new trace is shown whole: sorted as chosen, unfiltered
        QVERIFY(open(window, QStringLiteral("frag.jsonl")));
        // (the table of the tab in front: frag opens in a tab of its own, and with 3 findings
        // against mixed's 2 the old tab's table no longer has the same count by chance)
        view = front(window).findingsView();
        QCOMPARE(view->model()->rowCount(), front(window).findingsModel()->rowCount());
        QCOMPARE(front(window).findingsModel()->rowCount(), 3);
    }

    void phasesSortAndFilter()
    {
        MainWindow window;
        window.show();
        QVERIFY(open(window, QStringLiteral("phasespike.jsonl")));
        QTreeView* tree = front(window).phasesView();
        QAbstractItemModelTester tester(tree->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(tree->isSortingEnabled());
        // in time order until a header is clicked
        QCOMPARE(column(tree->model(), PhasesModel::NameColumn), (QStringList{"train", "step", "evaluate"}));
        tree->header()->setSortIndicator(PhasesModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(column(tree->model(), PhasesModel::NameColumn), (QStringList{"evaluate", "step", "train"}));
        tree->header()->setSortIndicator(PhasesModel::DurationColumn, Qt::DescendingOrder);
        QCOMPARE(column(tree->model(), PhasesModel::NameColumn).front(), QStringLiteral("train")); // 29.9 s
        QLineEdit* filter = front(window).tracePage()->phasesFilter();
        QVERIFY(filter);
        filter->setText(QStringLiteral("STEP"));
        QCOMPARE(column(tree->model(), PhasesModel::NameColumn), QStringList{"step"});
        // F7/F8 still walk the spans in time order
        filter->clear();
        tree->header()->setSortIndicator(-1, Qt::AscendingOrder);
        front(window).selectPhase(1);
        QCOMPARE(tree->currentIndex().data(PhasesModel::SpanIndexRole).toInt(), 1);
    }

    void legendEntryHidesItsSeries()
    {
        MainWindow window;
        window.show();
        QVERIFY(open(window, QStringLiteral("phasespike.jsonl")));
        QAction* reserved = nullptr;
        for (const auto& [overlay, action] : front(window).tracePage()->overlayActions())
            if (overlay == ChartOverlay::Reserved)
                reserved = action;
        QVERIFY(reserved);
        reserved->setChecked(true);
        QVERIFY(front(window).chart()->isOverlayVisible(ChartOverlay::Reserved));
        auto* chartView = front(window).chart()->findChild<QChartView*>();
        QVERIFY(chartView);
        QLegendMarker* marker = nullptr;
        for (QLegendMarker* m : chartView->chart()->legend()->markers())
            if (m->label() == QLatin1String("Reserved"))
                marker = m;
        QVERIFY(marker);
        QVERIFY(marker->isVisible());
        emit marker->clicked();
        QVERIFY(!reserved->isChecked());
        QVERIFY(!front(window).chart()->isOverlayVisible(ChartOverlay::Reserved));
        QVERIFY(front(window).chart()->drawnPoints(ChartLine::Reserved).isEmpty());
        // the gap itself has no toggle: its entry stays
        for (QLegendMarker* m : chartView->chart()->legend()->markers())
            if (m->label().startsWith(QLatin1String("Gap")))
                emit m->clicked();
        QVERIFY(!front(window).chart()->drawnPoints(ChartLine::Gap).isEmpty());
    }
};

QTEST_MAIN(TestTableKeys)
#include "tst_tablekeys.moc"
