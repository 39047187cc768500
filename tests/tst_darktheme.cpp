// View > Theme: the Fusion dark palette applied to the whole application, remembered, and
// every main view readable in it. The views are grabbed offscreen (trace chart page, its
// summary, a CPU capture, the budget page and its summary, the compare window) and checked
// for contrast (text against its background >= 4.5, the gap and other lines against the chart
// background >= 3) and for no large white areas. GAPSCOPE_DARK_PNG=path saves the trace page.
#include "app/MainWindow.h"
#include "app/Theme.h"
#include "app/pages/BudgetPage.h"
#include "app/pages/TracePage.h"
#include "model/trace/TraceLoader.h"
#include "tests/WindowAccess.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/CompareWindow.h"
#include "widgets/trace/GapChartView.h"

#include "tests/PictureChecks.h"

#include <QAction>
#include <QApplication>
#include <QHash>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QTest>

#include <cmath>

using namespace gapscope;
using namespace gapscope::test;

namespace {

QString fixture(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/") + relative;
}

QImage settledGrab(QWidget* widget)
{
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    return widget->grab().toImage();
}

} // namespace

class TestDarkTheme : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("view/theme"));
    }

    void cleanupTestCase() { applyTheme(Theme::System); }

    // View > Theme offers the three, applies the one chosen and remembers it.
    void themeMenu()
    {
        MainWindow window;
        QMenu* themeMenu = nullptr;
        for (QMenu* menu : window.menuBar()->findChildren<QMenu*>()) {
            if (menu->title() == QStringLiteral("&Theme"))
                themeMenu = menu;
        }
        QVERIFY(themeMenu);
        QCOMPARE(themeMenu->actions().size(), 3);
        QVERIFY(themeMenu->actions()[0]->isChecked()); // System
        QVERIFY(savedTheme() == Theme::System);
        themeMenu->actions()[2]->trigger();
        QVERIFY(currentTheme() == Theme::Dark);
        QVERIFY(savedTheme() == Theme::Dark);
        QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
        QTRY_VERIFY(window.palette().color(QPalette::Base).lightness() < 60); // the windows follow
        themeMenu->actions()[1]->trigger();
        QVERIFY(savedTheme() == Theme::Light);
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() > 200);
        themeMenu->actions()[0]->trigger();
        QVERIFY(savedTheme() == Theme::System);
        QVERIFY(themeFromString(QStringLiteral("dark")) == Theme::Dark);
        QVERIFY(themeFromString(QStringLiteral("purple")) == std::nullopt);
    }

    // The palette's own pairs and the chart colours derived from it.
    void paletteContrast()
    {
        const QPalette dark = darkFusionPalette();
        for (auto [fore, back] : {std::pair{QPalette::Text, QPalette::Base},
                                  {QPalette::WindowText, QPalette::Window},
                                  {QPalette::ButtonText, QPalette::Button},
                                  {QPalette::HighlightedText, QPalette::Highlight},
                                  {QPalette::ToolTipText, QPalette::ToolTipBase}})
            QVERIFY2(contrast(dark.color(fore), dark.color(back)) >= 4.5,
                     qPrintable(QString::number(int(fore))));
        QVERIFY(contrast(dark.color(QPalette::PlaceholderText), dark.color(QPalette::Base)) >= 4.5);
        const ChartColors colors = chartColors(dark);
        QVERIFY(colors.dark);
        for (const QColor& line :
             {colors.gap, colors.allocated, colors.reserved, colors.deviceUsed, colors.regression,
              colors.spike, colors.maxSpike, colors.cursor, colors.comparison})
            QVERIFY2(contrast(line, colors.background) >= 3.0, qPrintable(line.name()));
    }

    void viewsAreReadable_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("summary");
        QTest::newRow("trace chart") << fixture(QStringLiteral("stormlog/parity/phasespike.jsonl")) << false;
        QTest::newRow("trace summary") << fixture(QStringLiteral("stormlog/parity/phasespike.jsonl")) << true;
        QTest::newRow("cpu capture") << fixture(QStringLiteral("stormlog/real/cpu_phases.json")) << false;
        QTest::newRow("budget chart") << fixture(QStringLiteral("budget/retention.text")) << false;
        QTest::newRow("budget summary") << fixture(QStringLiteral("budget/retention.text")) << true;
    }

    void viewsAreReadable()
    {
        QFETCH(QString, path);
        QFETCH(bool, summary);
        applyTheme(Theme::Dark);
        MainWindow window;
        window.resize(1400, 900);
        QString error;
        QVERIFY2(window.showTraceNow(path, &error), qPrintable(error));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        DocumentPage* page = front(window).isBudgetShown()
                                 ? static_cast<DocumentPage*>(front(window).budgetPage())
                                 : static_cast<DocumentPage*>(front(window).tracePage());
        if (summary)
            page->showSummary();
        const QImage shot = settledGrab(&window);
        if (const QByteArray png = qgetenv("GAPSCOPE_DARK_PNG");
            !png.isEmpty() && QTest::currentDataTag() == QByteArray("trace chart"))
            QVERIFY(shot.save(QString::fromLocal8Bit(png)));
        // no light widget left: under 1 % of the window near white (text glyphs are less)
        const double white = whiteShare(shot);
        QVERIFY2(white < 0.01, qPrintable(QStringLiteral("%1 % white").arg(white * 100, 0, 'f', 2)));
        // the window is dark where nothing is drawn
        QVERIFY(luminance(dominantColor(shot)) < 0.05);

        if (!summary) {
            QWidget* chart = page->chartWidget();
            const QImage chartShot = settledGrab(chart);
            const ChartColors colors = chartColors(chart->palette());
            QVERIFY(colors.dark);
            // most of the chart is its background or the phase shading over it: dark
            const QColor background = dominantColor(chartShot);
            QVERIFY2(luminance(background) < 0.06, qPrintable(background.name()));
            // the main line is drawn in its colour and stands out from what it is drawn over:
            // the gap, or a CPU capture's counters (allocated, reserved and used are one RSS
            // line there: the last drawn, allocated, is the one seen)
            QColor line = colors.text;
            if (!front(window).isBudgetShown()) {
                line = front(window).analysis()->usableRows.empty() ? colors.allocated : colors.gap;
                QVERIFY2(pixelsNear(chartShot, line) > 100, qPrintable(line.name()));
            }
            QVERIFY(contrast(line, background) >= 3.0);
            QVERIFY(contrast(line, colors.background) >= 3.0);
            // axis labels: text colour against the background
            QVERIFY(contrast(colors.text, background) >= 4.5);
        }
        applyTheme(Theme::System);
    }

    void compareWindowIsReadable()
    {
        applyTheme(Theme::Dark);
        CompareWindow window;
        window.setTrace(CompareWindow::Side::A,
                        loadTrace(fixture(QStringLiteral("stormlog/parity/phases.jsonl"))).data);
        window.setTrace(CompareWindow::Side::B,
                        loadTrace(fixture(QStringLiteral("stormlog/parity/phasespike.jsonl"))).data);
        window.waitForIdle();
        window.resize(1200, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage shot = settledGrab(&window);
        QVERIFY2(whiteShare(shot) < 0.01, qPrintable(QString::number(whiteShare(shot))));
        const ChartColors colors = chartColors(window.palette());
        QVERIFY(pixelsNear(settledGrab(window.chartView(CompareWindow::Side::B)), colors.comparison) > 50);
        applyTheme(Theme::System);
    }
};

QTEST_MAIN(TestDarkTheme)
#include "tst_darktheme.moc"
