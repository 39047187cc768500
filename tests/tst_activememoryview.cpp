// The active memory timeline (widgets/snapshot/ActiveMemoryView, issue 34) on the real pair/
// snapshot (100 000 entries ending in an OOM): what it draws (columns, bands, marks), the OOM at
// the last entry, the segment ticks, the tooltip of an allocation, zoom and pan, the click that
// selects a state, the axis toggle and the highlight of a stack.

#include "model/snapshot/SnapshotTimelineLayout.h"
#include "model/text/Text.h"
#include "tests/DarkPalette.h"
#include "tests/SnapshotFixtures.h"
#include "widgets/snapshot/ActiveMemoryView.h"

#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

using namespace gapscope;

namespace {

std::shared_ptr<const SnapshotData> pair()
{
    static const std::shared_ptr<const SnapshotData> data =
        test::loadSnapshotFixture(QStringLiteral("pair/snapshot.pickle.gz"));
    return data;
}

// A point in the middle of a band's widest run.
QPointF middleOf(const ActiveMemoryView& view, const TimelineBand& band)
{
    const TimelineBandRun* widest = &band.runs.front();
    for (const TimelineBandRun& run : band.runs)
        if (run.lastColumn - run.firstColumn > widest->lastColumn - widest->firstColumn)
            widest = &run;
    const QRectF plot = view.plotRect();
    const double x = plot.left() + (widest->firstColumn + widest->lastColumn) / 2 + 0.5;
    const double bytes = double(widest->bottomBytes) + double(band.size) / 2;
    return {x, plot.bottom() - bytes / view.yMaxBytes() * plot.height()};
}

void savePicture(QWidget& view, const char* name)
{
    if (const QByteArray dir = qgetenv("GAPSCOPE_TIMELINE_PICTURES"); !dir.isEmpty())
        QVERIFY(view.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name) +
                                 QStringLiteral(".png")));
}

void sendMouse(QWidget* widget, QEvent::Type type, QPointF pos, Qt::MouseButtons buttons)
{
    QMouseEvent event(type, pos, widget->mapToGlobal(pos), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(widget, &event);
}

} // namespace

class TestActiveMemoryView : public QObject
{
    Q_OBJECT
private slots:
    void drawsTheRealTrace()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.setSnapshot(pair());
        const SnapshotTimeline* t = view.timeline();
        QVERIFY(t);
        QCOMPARE(t->entryCount, 100000u);
        QCOMPARE(view.axis(), TimelineAxis::Time);
        QVERIFY(!view.isZoomed());
        const SnapshotTimelineLayout& layout = view.drawnLayout();
        QCOMPARE(int(layout.columns.size()), int(std::floor(view.plotRect().width())));
        QCOMPARE(layout.firstEntry, 0u);
        QCOMPARE(layout.lastEntry, 99999u);
        QCOMPARE(layout.maxBytes, t->peakActiveBytes);
        QCOMPARE(layout.bands.size(), size_t(TimelineLayoutRequest::kDefaultDistinct));
        QCOMPARE(layout.visibleAllocations, layout.bands.size() + layout.foldedAllocations);
        for (const TimelineColumn& column : layout.columns)
            QVERIFY(column.distinctTopBytes <= column.maxBytes);
        // axes: bytes up, seconds since the first entry across
        QVERIFY(view.yMaxBytes() >= double(t->peakActiveBytes));
        const QStringList y = view.yTickLabels();
        QVERIFY(y.size() >= 2);
        QVERIFY2(y.back().endsWith(QStringLiteral(" GiB")), qPrintable(y.join(QLatin1Char('|'))));
        const QStringList x = view.xTickLabels();
        QVERIFY(x.size() >= 2);
        QCOMPARE(x.front(), QStringLiteral("0.0 s"));
        QVERIFY2(x.back().endsWith(QStringLiteral(" s")), qPrintable(x.join(QLatin1Char('|'))));

        // the marks: 121 segment entries along the bottom, the OOM (the last entry) across
        const QList<ActiveMemoryView::DrawnMark> marks = view.drawnMarks();
        int segments = 0;
        QList<ActiveMemoryView::DrawnMark> ooms;
        for (const ActiveMemoryView::DrawnMark& mark : marks) {
            if (mark.action == TraceAction::Oom)
                ooms << mark;
            else
                ++segments;
        }
        QCOMPARE(segments, 121);
        QCOMPARE(ooms.size(), 1);
        QCOMPARE(ooms.front().entry, 99999u);
        QCOMPARE(ooms.front().label, QStringLiteral("OOM"));
        QVERIFY(ooms.front().x >= view.plotRect().right() - 1.5); // the last column
        QVERIFY(view.plotRect().contains(ooms.front().rect.center()));
        // its tooltip: the size asked for and the device's free memory then
        const QString oom = view.toolTipAt(QPointF(ooms.front().x, view.plotRect().center().y()));
        QVERIFY2(oom.startsWith(QStringLiteral("OOM: an allocation of ")), qPrintable(oom));
        QVERIFY2(oom.contains(QStringLiteral("device free then: ")), qPrintable(oom));
        QVERIFY2(oom.contains(QStringLiteral("at entry %1 · ").arg(countText(99999))), qPrintable(oom));
        // a segment tick's tooltip, zoomed to the entries around the first one
        const uint32_t first = t->segmentEntries.front();
        view.setAxis(TimelineAxis::Entries);
        view.setVisibleRange(int64_t(first) - 20, int64_t(first) + 20);
        const ActiveMemoryView::DrawnMark* tick = nullptr;
        const QList<ActiveMemoryView::DrawnMark> zoomedMarks = view.drawnMarks();
        for (const ActiveMemoryView::DrawnMark& mark : zoomedMarks)
            if (mark.entry == first)
                tick = &mark;
        QVERIFY(tick);
        const QString segment = view.toolTipAt(tick->rect.center());
        QVERIFY2(
            segment.startsWith(QStringLiteral("%1 of ").arg(QString::fromLatin1(toString(tick->action)))),
            qPrintable(segment));
        QVERIFY2(segment.contains(QStringLiteral("entry %1").arg(countText(first))), qPrintable(segment));
        view.setAxis(TimelineAxis::Time);
        view.resetZoom();

        // the picture: the OOM red, bands in their colours
        const QImage picture = view.grab().toImage();
        QCOMPARE(picture.size(), QSize(1400, 420));
        savePicture(view, "whole");
    }

    // The tooltip of the largest allocation drawn, through a help event.
    void tooltipOfAnAllocation()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.show();
        view.setSnapshot(pair());
        const SnapshotTimeline& t = *view.timeline();
        const SnapshotTimelineLayout& layout = view.drawnLayout();
        const auto largest = std::max_element(
            layout.bands.begin(), layout.bands.end(), [](const TimelineBand& a, const TimelineBand& b) {
                return a.size * (a.runs.front().lastColumn + 1 - a.runs.front().firstColumn) <
                       b.size * (b.runs.front().lastColumn + 1 - b.runs.front().firstColumn);
            });
        const QPointF at = middleOf(view, *largest);
        QCOMPARE(view.allocationAt(at), std::optional<uint32_t>(largest->allocation));
        const SnapshotAllocation& a = t.allocations[largest->allocation];
        QHelpEvent help(QEvent::ToolTip, at.toPoint(), view.mapToGlobal(at.toPoint()));
        QApplication::sendEvent(&view, &help);
        const QString tip = QToolTip::text();
        QCOMPARE(tip, allocationDescription(*pair(), t, largest->allocation));
        QVERIFY2(tip.startsWith(QStringLiteral("%1 allocation at 0x%2 (stream %3)")
                                    .arg(bytesText(a.size), QString::number(a.address, 16))
                                    .arg(a.stream)),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("allocated at:\n  ")), qPrintable(tip)); // its frames
        QToolTip::hideText();
        // the folded band above the distinct ones, and nothing above the level
        const TimelineColumn& column = layout.columns[layout.columns.size() / 2];
        const QRectF plot = view.plotRect();
        const double xMiddle = plot.left() + double(layout.columns.size() / 2) + 0.5;
        if (column.maxBytes > column.distinctTopBytes + int64_t(view.yMaxBytes() / plot.height() * 4)) {
            const double bytes = double(column.maxBytes + column.distinctTopBytes) / 2;
            const QString folded =
                view.toolTipAt(QPointF(xMiddle, plot.bottom() - bytes / view.yMaxBytes() * plot.height()));
            QVERIFY2(folded.startsWith(QStringLiteral("Other allocations: ")), qPrintable(folded));
        }
        QCOMPARE(view.toolTipAt(QPointF(xMiddle, plot.top() + 2)), QString());
    }

    // The wheel zooms about the mouse, a drag pans, a double-click shows all; the axis toggle.
    void zoomAndPan()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.show();
        view.setSnapshot(pair());
        const TimelineRange whole = view.visibleRange();
        QCOMPARE(whole, view.fullRange());
        QSignalSpy changed(&view, &ActiveMemoryView::visibleRangeChanged);
        const QPointF middle = view.plotRect().center();
        for (int notch = 0; notch < 10; ++notch) {
            QWheelEvent wheel(middle, view.mapToGlobal(middle), QPoint(), QPoint(0, 120), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(&view, &wheel);
        }
        QVERIFY(changed.size() >= 1);
        QVERIFY(view.isZoomed());
        const TimelineRange zoomed = view.visibleRange();
        savePicture(view, "zoomed");
        QVERIFY(zoomed.end - zoomed.begin < (whole.end - whole.begin) / 5);
        QVERIFY(zoomed.begin > whole.begin && zoomed.end < whole.end);
        // fewer entries in view, each column's level still inside the data
        const SnapshotTimelineLayout& layout = view.drawnLayout();
        QVERIFY(layout.lastEntry - layout.firstEntry < 40000);
        // a drag to the right shows earlier times
        sendMouse(&view, QEvent::MouseButtonPress, middle, Qt::LeftButton);
        sendMouse(&view, QEvent::MouseMove, middle + QPointF(200, 0), Qt::LeftButton);
        sendMouse(&view, QEvent::MouseButtonRelease, middle + QPointF(200, 0), Qt::NoButton);
        QVERIFY(view.visibleRange().begin < zoomed.begin);
        QCOMPARE(view.visibleRange().end - view.visibleRange().begin, zoomed.end - zoomed.begin);
        // by entry: the same entries in view
        const uint32_t firstEntry = view.drawnLayout().firstEntry;
        view.setAxis(TimelineAxis::Entries);
        QCOMPARE(view.axis(), TimelineAxis::Entries);
        QVERIFY(view.isZoomed());
        QVERIFY(std::abs(int64_t(view.visibleRange().begin) - int64_t(firstEntry)) <= 1);
        savePicture(view, "zoomed-by-entry");
        for (const QString& label : view.xTickLabels()) {
            bool number = false;
            QString(label).remove(QLatin1Char(',')).toLongLong(&number);
            QVERIFY2(number, qPrintable(label));
        }
        // a double-click shows all of it
        QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, middle.toPoint());
        QVERIFY(!view.isZoomed());
        QCOMPARE(view.visibleRange(), (TimelineRange{TimelineAxis::Entries, 0, 99999}));
        savePicture(view, "whole-by-entry");
        view.setAxis(TimelineAxis::Time);
        view.setVisibleRange(whole.begin + 10, whole.begin + 20000);
        QVERIFY(view.isZoomed());
        view.resetZoom();
        QCOMPARE(view.visibleRange(), whole);
    }

    // A click selects the state after the entries under the mouse.
    void clickSelectsAState()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.show();
        view.setSnapshot(pair());
        QSignalSpy selected(&view, &ActiveMemoryView::entrySelected);
        const QPointF at(view.plotRect().left() + 700.5, view.plotRect().center().y());
        const std::optional<uint32_t> expected = view.entryAtX(at.x());
        QVERIFY(expected);
        QCOMPARE(*expected, view.drawnLayout().columns[700].shownEntry());
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, at.toPoint());
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.front().front().value<quint32>(), *expected);
        QCOMPARE(view.selectedEntry(), expected);
        QVERIFY(!view.isZoomed()); // a click is no drag
    }

    // The allocations of a stack outlined and in their colours, the others dimmed.
    void highlightsAStack()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.setSnapshot(pair());
        const SnapshotTimeline& t = *view.timeline();
        QVERIFY(!view.drawnLayout().highlighting);
        // the stack of the widest band drawn
        const SnapshotTimelineLayout plain = view.drawnLayout();
        const TimelineBand* widest = nullptr;
        int widestColumns = 0;
        for (const TimelineBand& band : plain.bands)
            for (const TimelineBandRun& run : band.runs)
                if (run.lastColumn - run.firstColumn + 1 > widestColumns &&
                    t.allocations[band.allocation].frames != 0 &&
                    double(band.size) / view.yMaxBytes() * view.plotRect().height() > 6) {
                    widestColumns = run.lastColumn - run.firstColumn + 1;
                    widest = &band;
                }
        QVERIFY(widest);
        const FrameStackId stack = t.allocations[widest->allocation].frames;
        const QPointF inside = middleOf(view, *widest);
        const QColor own = ActiveMemoryView::bandColor(widest->allocation, view.palette());
        QCOMPARE(view.grab().toImage().pixelColor(inside.toPoint()), own);

        view.setHighlightedFrames(stack);
        QCOMPARE(view.highlightedFrames(), std::vector<FrameStackId>{stack});
        const SnapshotTimelineLayout& layout = view.drawnLayout();
        QVERIFY(layout.highlighting);
        size_t highlighted = 0;
        for (const TimelineBand& band : layout.bands) {
            QCOMPARE(band.highlighted, t.allocations[band.allocation].frames == stack);
            highlighted += band.highlighted;
        }
        QVERIFY(highlighted >= 1);
        QImage picture = view.grab().toImage();
        savePicture(view, "highlighted");
        QCOMPARE(picture.pixelColor(middleOf(view, *std::find_if(layout.bands.begin(), layout.bands.end(),
                                                                 [&](const TimelineBand& b) {
                                                                     return b.allocation ==
                                                                            widest->allocation;
                                                                 }))
                                        .toPoint()),
                 own);
        // a band of another stack: dimmed toward the background
        for (const TimelineBand& band : layout.bands) {
            if (band.highlighted || double(band.size) / view.yMaxBytes() * view.plotRect().height() < 6)
                continue;
            const QPointF other = middleOf(view, band);
            if (view.allocationAt(other) != band.allocation)
                continue;
            const QColor c = picture.pixelColor(other.toPoint());
            QVERIFY(c != ActiveMemoryView::bandColor(band.allocation, view.palette()));
            QVERIFY(c.lightness() > ActiveMemoryView::bandColor(band.allocation, view.palette()).lightness());
            break;
        }
        view.clearHighlight();
        QVERIFY(!view.drawnLayout().highlighting);
        QCOMPARE(view.grab().toImage().pixelColor(inside.toPoint()), own);
    }

    // The dark theme: the plot on the palette's base, bands in the lighter qualitative colours.
    void darkTheme()
    {
        ActiveMemoryView view;
        view.resize(1400, 420);
        view.setPalette(test::darkPalette());
        view.setSnapshot(pair());
        view.setVisibleRange(view.fullRange().begin,
                             view.fullRange().begin + (view.fullRange().end - view.fullRange().begin) / 20);
        const QImage picture = view.grab().toImage();
        savePicture(view, "dark");
        const QPalette dark = test::darkPalette();
        QCOMPARE(picture.pixelColor(2, 2), dark.color(QPalette::Base));
        QVERIFY(ActiveMemoryView::bandColor(0, dark) != ActiveMemoryView::bandColor(0, QPalette(Qt::white)));
        QVERIFY(std::abs(ActiveMemoryView::foldedColor(dark).lightness() -
                         dark.color(QPalette::Base).lightness()) > 20);
        const SnapshotTimelineLayout& layout = view.drawnLayout();
        for (const TimelineBand& band : layout.bands) {
            if (double(band.size) / view.yMaxBytes() * view.plotRect().height() < 6)
                continue;
            const QPointF at = middleOf(view, band);
            if (view.allocationAt(at) != band.allocation)
                continue;
            QCOMPARE(picture.pixelColor(at.toPoint()), ActiveMemoryView::bandColor(band.allocation, dark));
            break;
        }
    }

    // A trace without times is drawn by entry; a snapshot without a trace says why it is empty.
    void withoutTimesOrTrace()
    {
        ActiveMemoryView view;
        view.resize(800, 300);
        const auto untimed = std::make_shared<SnapshotData>(
            test::makeSnapshot({{512, BlockState::Inactive}}, {{TraceAction::Alloc, 0x1000, 512},
                                                               {TraceAction::FreeCompleted, 0x1000, 512}}));
        view.setSnapshot(untimed);
        QVERIFY(view.timeline()); // built by the view: the data came without the loader
        QCOMPARE(view.axis(), TimelineAxis::Entries);
        QCOMPARE(view.visibleRange(), (TimelineRange{TimelineAxis::Entries, 0, 1}));
        QCOMPARE(view.drawnLayout().maxBytes, int64_t(512));
        const auto none =
            std::make_shared<SnapshotData>(test::makeSnapshot({{512, BlockState::Inactive}}, {}));
        view.setSnapshot(none);
        QVERIFY(view.drawnLayout().empty());
        QVERIFY(view.xTickLabels().isEmpty());
        QVERIFY(!view.grab().isNull());
        view.setSnapshot(nullptr);
        QVERIFY(!view.timeline());
        QVERIFY(!view.grab().isNull());
    }
};

QTEST_MAIN(TestActiveMemoryView)
#include "tst_activememoryview.moc"
