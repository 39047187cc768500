// The snapshot page (app/pages/SnapshotPage) on the real snapshot and on a fragmented one,
// driven as the tab drives it (open, analyseOpened OpenMode::Now): the summary's figures and
// tables, the segment map's segments and blocks, its order toggle and tooltip, the findings
// (with QAbstractItemModelTester on the findings model) and clear.

#include "app/pages/SnapshotPage.h"
#include "model/document/Document.h"
#include "model/items/FindingsModel.h"
#include "model/items/SnapshotSitesModel.h"
#include "model/snapshot/SnapshotData.h"
#include "model/snapshot/SnapshotTimelineLayout.h"
#include "model/text/Text.h"
#include "tests/DarkPalette.h"
#include "tests/SnapshotFixtures.h"
#include "widgets/common/SummaryView.h"
#include "widgets/snapshot/ActiveMemoryView.h"
#include "widgets/snapshot/SegmentMapExport.h"
#include "widgets/snapshot/SegmentMapView.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolTip>

using namespace gapscope;

namespace {

QString snapshotPath(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + name;
}

LoadedDocument loaded(const QString& name)
{
    const DocumentOutcome outcome = loadDocument(snapshotPath(name));
    if (!outcome.ok())
        qWarning("%s", qPrintable(outcome.failure()));
    return outcome.loaded();
}

QString figure(const SummaryContent& content, const QString& label)
{
    for (const SummaryFigure& f : content.figures)
        if (f.label == label)
            return f.value;
    return QStringLiteral("(no figure %1)").arg(label);
}

QString figureDetail(const SummaryContent& content, const QString& label)
{
    for (const SummaryFigure& f : content.figures)
        if (f.label == label)
            return f.detail;
    return QStringLiteral("(no figure %1)").arg(label);
}

const SummaryTable* table(const SummaryContent& content, const QString& title)
{
    for (const SummaryTable& t : content.tables)
        if (t.title == title)
            return &t;
    return nullptr;
}

} // namespace

class TestSnapshotPage : public QObject
{
    Q_OBJECT

private slots:
    void opensTheRealSnapshot()
    {
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        page.resize(1200, 800);
        QAbstractItemModelTester tester(page.findingsModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const LoadedDocument document = loaded(QStringLiteral("snapshot.pickle"));
        QVERIFY(document.snapshot);
        QCOMPARE(document.path(), snapshotPath(QStringLiteral("snapshot.pickle")));
        QVERIFY(document.problems());
        QString error;
        QVERIFY2(page.open(document, &error), qPrintable(error));
        QVERIFY(page.hasDocument());
        QVERIFY(!page.hasResult());
        QCOMPARE(page.documentPath(), snapshotPath(QStringLiteral("snapshot.pickle")));
        QCOMPARE(page.problems(), &document.snapshot->problems);
        QSignalSpy shown(&page, &DocumentPage::resultShown);
        QVERIFY2(page.analyseOpened(OpenMode::Now, &error), qPrintable(error));
        QCOMPARE(shown.size(), 1);
        QVERIFY(page.hasResult());

        // the totals memory_stats gives right after the dump (tests/data/snapshot/memory_stats.json)
        const SnapshotTotals& t = page.summary().totals;
        QCOMPARE(t.segmentCount, 74);
        QCOMPARE(t.blockCount, 262);
        QCOMPARE(t.reservedBytes, 1715470336);
        QCOMPARE(t.allocatedBytes, 278691840);
        QCOMPARE(t.activeBytes, 278691840);
        QCOMPARE(t.requestedBytes, 274432000);
        QCOMPARE(t.inactiveSplitBytes, 37978112);
        QCOMPARE(t.largestFreeBlockBytes, 75497472);
        const SummaryContent& content = page.summaryView()->content();
        QCOMPARE(content.title, QStringLiteral("snapshot.pickle"));
        QVERIFY2(content.subtitle.startsWith(QStringLiteral("PyTorch memory snapshot · device 0")),
                 qPrintable(content.subtitle));
        QCOMPARE(figure(content, QStringLiteral("Segments")), QStringLiteral("74"));
        QCOMPARE(figure(content, QStringLiteral("Reserved")), bytesText(int64_t(1715470336)));
        // 1.30 GiB of it in segments with no live block (torch.cuda.empty_cache() would return them)
        QCOMPARE(figureDetail(content, QStringLiteral("Reserved")),
                 QStringLiteral("%1 in segments with no live block").arg(bytesText(int64_t(1398800384))));
        QCOMPARE(figure(content, QStringLiteral("Allocated")), bytesText(int64_t(278691840)));
        QCOMPARE(figure(content, QStringLiteral("Active")), bytesText(int64_t(278691840)));
        QCOMPARE(figure(content, QStringLiteral("Requested")), bytesText(int64_t(274432000)));
        QCOMPARE(figure(content, QStringLiteral("Inactive split")), bytesText(int64_t(37978112)));
        QCOMPARE(figure(content, QStringLiteral("Largest free block")), bytesText(int64_t(75497472)));
        QCOMPARE(figure(content, QStringLiteral("Trace entries")), QStringLiteral("20000"));
        const SummaryTable* actions = table(content, QStringLiteral("Trace entries by action"));
        QVERIFY(actions);
        QCOMPARE(actions->rows, (std::vector<QStringList>{{"alloc", "6631"},
                                                          {"free_requested", "6678"},
                                                          {"free_completed", "6678"},
                                                          {"segment_alloc", "13"}}));
        const SummaryTable* settings = table(content, QStringLiteral("Allocator settings in force"));
        QVERIFY(settings);
        QVERIFY(std::find(settings->rows.begin(), settings->rows.end(),
                          QStringList{"expandable_segments", "False"}) != settings->rows.end());
        QVERIFY(std::find(settings->rows.begin(), settings->rows.end(),
                          QStringList{"max_split_size", "-1"}) != settings->rows.end());
        const SummaryTable* pools = table(content, QStringLiteral("Segments by stream and pool"));
        QVERIFY(pools);
        QCOMPARE(pools->rows.size(), size_t(1));
        QCOMPARE(pools->rows.front().value(2), QStringLiteral("74"));

        // no fragmentation finding, and the page says why
        QVERIFY(!page.hasFindings());
        QCOMPARE(page.findingsModel()->rowCount(), 0);
        QCOMPARE(content.findingCount, size_t(0));
        QVERIFY2(content.noFindings.contains(QStringLiteral("inactive split bytes are 36.22 MiB (2.2 %")),
                 qPrintable(content.noFindings));

        // the segment map: every segment and block, one group (stream 0, default pool)
        SegmentMapView* map = page.segmentMap();
        QCOMPARE(map->snapshot(), document.snapshot);
        QCOMPARE(map->layout().rows.size(), size_t(74));
        QCOMPARE(map->layout().blockCount, size_t(262));
        QCOMPARE(map->layout().groups.size(), size_t(1));
        QVERIFY(map->order() == SegmentOrder::Address);
        page.bySizeAction()->trigger();
        QVERIFY(map->order() == SegmentOrder::Size);
        QCOMPARE(document.snapshot->segments[map->layout().rows.front()].totalSize, 75497472);
        page.byAddressAction()->trigger();
        QVERIFY(map->order() == SegmentOrder::Address);

        // the timeline of its one device, by time, no device to choose
        ActiveMemoryView* timeline = page.activeMemoryView();
        QCOMPARE(timeline->snapshot(), document.snapshot);
        QVERIFY(timeline->timeline());
        QCOMPARE(timeline->timeline()->entryCount, 20000u);
        QCOMPARE(timeline->axis(), TimelineAxis::Time);
        QVERIFY(page.timelineDevices()->isHidden());
        QCOMPARE(page.timelineDevices()->count(), 1);
        QVERIFY(page.byEntryCheck()->isEnabled());
        page.byEntryCheck()->setChecked(true);
        QCOMPARE(timeline->axis(), TimelineAxis::Entries);
        QCOMPARE(timeline->visibleRange(), (TimelineRange{TimelineAxis::Entries, 0, 19999}));
        page.byEntryCheck()->setChecked(false);
        QCOMPARE(timeline->axis(), TimelineAxis::Time);
        page.reservedCheck()->setChecked(false);
        QVERIFY(!timeline->showsReserved());
        page.reservedCheck()->setChecked(true);
    }

    // The real pair/ snapshot's timeline on the page: its OOM, the state at a clicked moment,
    // the reset, the splitter kept in the settings.
    void showsTheTimeline()
    {
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        page.resize(1400, 900);
        page.show();
        QString error;
        const LoadedDocument document = loaded(QStringLiteral("pair/snapshot.pickle.gz"));
        QVERIFY2(page.open(document, &error), qPrintable(error));
        QVERIFY2(page.analyseOpened(OpenMode::Now, &error), qPrintable(error));
        page.showChart();
        ActiveMemoryView* timeline = page.activeMemoryView();
        QVERIFY(timeline->isVisible());
        QCOMPARE(timeline->timeline()->entryCount, 100000u);
        QVERIFY2(page.allocatorStateLabel()->text().startsWith(QStringLiteral("Click the timeline")),
                 qPrintable(page.allocatorStateLabel()->text()));
        const SnapshotTimelineLayout& layout = timeline->drawnLayout();
        QCOMPARE(layout.oomMarks.size(), size_t(1));
        QCOMPARE(layout.oomMarks.front().entry, 99999u);
        QCOMPARE(layout.segmentMarks.size(), size_t(121));

        // a click: the allocator's state after the entries under the mouse
        const QPointF at(timeline->plotRect().left() + timeline->plotRect().width() / 3,
                         timeline->plotRect().center().y());
        const uint32_t entry = *timeline->entryAtX(at.x());
        QTest::mouseClick(timeline, Qt::LeftButton, Qt::NoModifier, at.toPoint());
        const SnapshotAllocatorState state = timeline->timeline()->stateAfter(entry);
        const QString text = page.allocatorStateLabel()->text();
        QCOMPARE(text, allocatorStateText(*document.snapshot, *timeline->timeline(), entry));
        QVERIFY2(text.contains(QStringLiteral("allocated %1 · reserved %2 · active %3")
                                   .arg(bytesText(state.allocatedBytes), bytesText(state.reservedBytes),
                                        bytesText(state.activeBytes))),
                 qPrintable(text));

        // Reset Zoom shows the whole trace again
        timeline->setVisibleRange(timeline->fullRange().begin, timeline->fullRange().begin + 100000);
        QVERIFY(timeline->isZoomed());
        page.resetZoom();
        QVERIFY(!timeline->isZoomed());

        // the splitter between the timeline and the map is kept
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
        auto* splitter = page.findChild<QSplitter*>(QStringLiteral("timelineSplitter"));
        QVERIFY(splitter);
        splitter->setSizes({500, 200});
        const QList<int> sizes = splitter->sizes();
        page.savePageSettings(settings);
        QVERIFY(settings.contains(QStringLiteral("snapshotPage/timelineSplitter")));
        splitter->setSizes({200, 500});
        page.restorePageSettings(settings, true);
        QCOMPARE(splitter->sizes(), sizes);

        page.clear();
        QVERIFY(!timeline->snapshot());
        QVERIFY(!timeline->timeline());
    }

    // The fragmented layout: a Warning in the findings table, its remediation beside it, the
    // block under the mouse as the tooltip names it; the map drawn in either theme; clear.
    void showsFragmentation()
    {
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        page.resize(1200, 800);
        page.show();
        QAbstractItemModelTester tester(page.findingsModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY(page.open(loaded(QStringLiteral("layouts/fragmented.pickle")), &error));
        QVERIFY(page.analyseOpened(OpenMode::Now, &error));
        QVERIFY(page.hasFindings());
        QCOMPARE(page.findingsModel()->rowCount(), 1);
        const QModelIndex row = page.findingsModel()->index(0, FindingsModel::ClassificationColumn);
        QCOMPARE(row.data().toString(), QStringLiteral("Allocator fragmentation"));
        QCOMPARE(page.findingsModel()->index(0, FindingsModel::SeverityColumn).data().toString(),
                 QStringLiteral("Warning"));
        QCOMPARE(page.findingsModel()->index(0, FindingsModel::TimeColumn).data().toString(),
                 QStringLiteral("—"));
        // the table shows no phase and no time for a moment's findings
        QVERIFY(page.findingsView()->isColumnHidden(FindingsModel::PhaseColumn));
        QVERIFY(page.findingsView()->isColumnHidden(FindingsModel::TimeColumn));
        QVERIFY(!page.findingsView()->isColumnHidden(FindingsModel::ClassificationColumn));
        QCOMPARE(page.summaryView()->content().findingCount, size_t(1));
        // the first finding is selected: its text and remediation beside the table
        const QString text = page.findingText()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("max_split_size_mb")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("garbage_collection_threshold")), qPrintable(text));

        // the block under a point of the first bar: the segment at the lowest address, its
        // first block active (64 MiB of 512), then 200 MiB free
        page.showChart();
        SegmentMapView* map = page.segmentMap();
        QCOMPARE(map->layout().groups.size(), size_t(2));
        QCOMPARE(map->layout().rows.size(), size_t(3));
        const SnapshotData& data = *page.snapshot();
        const QImage picture = map->viewport()->grab().toImage();
        const QColor active = SegmentMapView::stateColor(BlockState::ActiveAllocated, map->palette());
        const QColor inactive = SegmentMapView::stateColor(BlockState::Inactive, map->palette());
        // the first bar: the first run of the active colour wider than the legend's swatch
        QPoint hitActive(-1, -1);
        for (int y = 0; y < picture.height() && hitActive.x() < 0; ++y)
            for (int x = 0; x + 40 < picture.width(); ++x)
                if (picture.pixelColor(x, y) == active && picture.pixelColor(x + 40, y) == active) {
                    hitActive = QPoint(x + 2, y + 2);
                    break;
                }
        QVERIFY(hitActive.x() >= 0);
        const auto block = map->blockAt(hitActive);
        QVERIFY(block);
        QVERIFY(data.blocks[*block].state == BlockState::ActiveAllocated);
        QCOMPARE(data.blocks[*block].size, 64 << 20);
        // the bar of that row: from its first to its last pixel of a block's colour
        int barEnd = hitActive.x();
        for (int x = hitActive.x(); x < picture.width(); ++x) {
            const QColor c = picture.pixelColor(x, hitActive.y());
            if (c == active || c == inactive)
                barEnd = x;
        }
        const int barStart = hitActive.x() - 2;
        const int barWidth = barEnd - barStart + 1;
        QVERIFY(barWidth > 100);
        // a quarter of the way along the 512 MiB bar: inside the free 200 MiB after the 64 active
        const QPoint free(barStart + barWidth / 4, hitActive.y());
        QCOMPARE(picture.pixelColor(free), inactive);
        const auto freeBlock = map->blockAt(free);
        QVERIFY(freeBlock);
        QVERIFY(data.blocks[*freeBlock].state == BlockState::Inactive);
        QVERIFY(!map->blockAt(QPoint(2, hitActive.y()))); // the label column
        // the tooltip of the block under the mouse: size, state, its stack Python first
        QHelpEvent help(QEvent::ToolTip, hitActive, map->viewport()->mapToGlobal(hitActive));
        QCoreApplication::sendEvent(map->viewport(), &help);
        const QString tip = QToolTip::text();
        QVERIFY2(tip.startsWith(QStringLiteral("64.00 MiB block, active_allocated\nrequested 64.00 MiB")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("allocated at:\n  forward (/work/model.py:42)\n  train_step")),
                 qPrintable(tip));
        QToolTip::hideText();

        // the dark theme draws other colours, distinct from each other and from the base
        const QPalette dark = test::darkPalette();
        QSet<QRgb> colours;
        for (const BlockState state :
             {BlockState::ActiveAllocated, BlockState::ActivePendingFree, BlockState::Inactive}) {
            const QColor c = SegmentMapView::stateColor(state, dark);
            QVERIFY(c != SegmentMapView::stateColor(state, QPalette(Qt::white)));
            QVERIFY(std::abs(c.lightness() - dark.color(QPalette::Base).lightness()) > 20);
            colours.insert(c.rgb());
        }
        QCOMPARE(colours.size(), 3);
        map->setPalette(dark);
        const QImage darkPicture = map->viewport()->grab().toImage();
        QCOMPARE(darkPicture.pixelColor(hitActive),
                 SegmentMapView::stateColor(BlockState::ActiveAllocated, dark));

        page.clear();
        QVERIFY(!page.hasDocument());
        QVERIFY(!page.hasResult());
        QCOMPARE(page.findingsModel()->rowCount(), 0);
        QVERIFY(!map->snapshot());
        QCOMPARE(map->layout().rows.size(), size_t(0));
    }

    // A snapshot of two devices: the device selector shows, and switching it shows the other
    // device's trace. Device 0's trace is empty: device 1 is shown first.
    void severalDevices()
    {
        SnapshotData data = test::makeSnapshot({{1024, BlockState::Inactive}}, {});
        SnapshotData other = test::makeSnapshot(
            {{1024, BlockState::Inactive}},
            {{TraceAction::Alloc, 0x1000, 256, 10}, {TraceAction::FreeCompleted, 0x1000, 256, 20}});
        data.traces.push_back(other.traces[0]);
        data.traces[1].device = 1;
        SnapshotData third =
            test::makeSnapshot({{1024, BlockState::Inactive}}, {{TraceAction::Alloc, 0x2000, 512, 10},
                                                                {TraceAction::Alloc, 0x3000, 128, 30}});
        data.traces.push_back(third.traces[0]);
        data.traces[2].device = 2;
        data.path = QStringLiteral("devices.pickle");
        LoadedDocument document;
        document.snapshot = std::make_shared<const SnapshotData>(std::move(data));
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        page.resize(1200, 800);
        page.show();
        QString error;
        QVERIFY2(page.open(document, &error), qPrintable(error));
        QVERIFY2(page.analyseOpened(OpenMode::Now, &error), qPrintable(error));
        page.showChart();
        QComboBox* devices = page.timelineDevices();
        QCOMPARE(devices->count(), 2);
        QVERIFY(devices->isVisible());
        QCOMPARE(devices->itemText(0), QStringLiteral("device 1"));
        QCOMPARE(devices->itemText(1), QStringLiteral("device 2"));
        ActiveMemoryView* timeline = page.activeMemoryView();
        QCOMPARE(timeline->timelineIndex(), size_t(1));
        QCOMPARE(timeline->timeline()->device, int64_t(1));
        QCOMPARE(timeline->drawnLayout().maxBytes, int64_t(256));
        devices->setCurrentIndex(1);
        QCOMPARE(timeline->timelineIndex(), size_t(2));
        QCOMPARE(timeline->timeline()->device, int64_t(2));
        QCOMPARE(timeline->drawnLayout().maxBytes, int64_t(640));
    }

    // The segment map's picture (SegmentMapExport, fitted to its size): nothing to scroll, and every
    // segment in it, found by the tooltip's hit test somewhere in the picture; wide pictures flow
    // into columns, and bars too thin for their labels drop them.
    void exportPictureHoldsEverySegment_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("scrollsOnPage"); // at that size, unfitted
        QTest::newRow("snapshot.pickle 1200x600")
            << QStringLiteral("snapshot.pickle") << QSize(1200, 600) << true;
        QTest::newRow("snapshot.pickle 640x360")
            << QStringLiteral("snapshot.pickle") << QSize(640, 360) << true;
        QTest::newRow("snapshot.pickle 400x2400")
            << QStringLiteral("snapshot.pickle") << QSize(400, 2400) << false;
        QTest::newRow("pair 1200x600")
            << QStringLiteral("pair/snapshot.pickle.gz") << QSize(1200, 600) << true;
        QTest::newRow("two devices 500x300")
            << QStringLiteral("layouts/two-devices.pickle") << QSize(500, 300) << false;
    }

    void exportPictureHoldsEverySegment()
    {
        QFETCH(QString, name);
        QFETCH(QSize, size);
        QFETCH(bool, scrollsOnPage);
        const auto data = loaded(name).snapshot;
        QVERIFY(data);
        const auto map = createExportSegmentMap(data, size);
        QCOMPARE(map->size(), size);
        QCOMPARE(map->verticalScrollBar()->maximum(), 0);
        QSet<uint32_t> segments;
        for (int y = 0; y < size.height(); ++y)
            for (int x = 0; x < size.width(); x += 2)
                if (const auto block = map->blockAt(QPoint(x, y)))
                    segments.insert(data->blocks[*block].segment);
        QCOMPARE(qsizetype(segments.size()), qsizetype(data->segments.size()));
        // the same map on the page scrolls instead
        map->setFitToSize(false);
        QCOMPARE(map->verticalScrollBar()->maximum() > 0, scrollsOnPage);
    }

    // A report's picture of a few segments is no higher than they need; one of many is the size asked.
    void reportPictureShrinksToItsSegments()
    {
        const auto few = loaded(QStringLiteral("layouts/two-devices.pickle")).snapshot;
        const auto fewMap = createExportSegmentMap(few, QSize(800, 600), true);
        QCOMPARE(fewMap->width(), 800);
        QVERIFY2(fewMap->height() >= 120 && fewMap->height() < 300,
                 qPrintable(QString::number(fewMap->height())));
        QCOMPARE(fewMap->height(), fewMap->drawnHeight());
        const auto many = loaded(QStringLiteral("snapshot.pickle")).snapshot;
        QCOMPARE(createExportSegmentMap(many, QSize(800, 600), true)->size(), QSize(800, 600));
        QCOMPARE(createExportSegmentMap(few, QSize(800, 600))->size(), QSize(800, 600));
    }

    // "Where it came from": the sites table under the map; selecting a site outlines its blocks in
    // the map, dims the others, shows its stack and says so (siteSelected); clearing undoes it.
    // GAPSCOPE_SNAPSHOT_SITES_PNG=file saves the page as it looks with a site selected.
    void sitesHighlightTheirBlocks()
    {
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        page.resize(1400, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QAbstractItemModelTester tester(page.sitesModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY(page.open(loaded(QStringLiteral("snapshot.pickle")), &error));
        QVERIFY(page.analyseOpened(OpenMode::Now, &error));
        page.showChart();
        SnapshotSitesModel* model = page.sitesModel();
        QCOMPARE(model->rowCount(), 57); // tests/data/snapshot/expected.py
        QVERIFY2(page.findChild<QLabel*>(QStringLiteral("sitesNote"))
                     ->text()
                     .contains(QStringLiteral("at the peak: 944.88 MiB active after entry 1443 of 20000")),
                 qPrintable(page.findChild<QLabel*>(QStringLiteral("sitesNote"))->text()));
        QCOMPARE(page.sitesView()->model()->rowCount(), 57);

        // the site with the most bytes at the peak among those with blocks at the snapshot
        int row = -1;
        for (int r = 0; r < model->rowCount() && row < 0; ++r)
            if (model->siteAt(r)->bytesAtSnapshot > 0)
                row = r;
        QVERIFY(row >= 0);
        const SnapshotSite site = *model->siteAt(row);
        QSignalSpy selected(&page, &SnapshotPage::siteSelected);
        page.selectSite(row);
        QCOMPARE(selected.size(), 1);
        const QList<uint> stacks = selected.front().front().value<QList<uint>>();
        QCOMPARE(stacks, QList<uint>(site.stacks.begin(), site.stacks.end()));
        QCOMPARE(page.selectedSiteStacks(), stacks);
        SegmentMapView* map = page.segmentMap();
        QCOMPARE(map->highlightedFrames(), site.stacks);
        QCOMPARE(int64_t(map->highlightedBlocks().size()), site.blocksAtSnapshot);
        const SnapshotData& data = *page.snapshot();
        int64_t highlightedBytes = 0;
        for (const uint32_t block : map->highlightedBlocks())
            highlightedBytes += data.blocks[block].size;
        QCOMPARE(highlightedBytes, site.bytesAtSnapshot);
        // and its allocations on the timeline
        std::vector<FrameStackId> siteStacks(site.stacks.begin(), site.stacks.end());
        std::sort(siteStacks.begin(), siteStacks.end());
        QCOMPARE(page.activeMemoryView()->highlightedFrames(), siteStacks);
        QVERIFY(page.activeMemoryView()->drawnLayout().highlighting);
        const QString stack = page.siteStackText()->toPlainText();
        QVERIFY2(stack.startsWith(site.name + QLatin1Char('\n')), qPrintable(stack));
        // Python frames first, as the map's tooltip lists a block's: the site's name is the first
        QVERIFY2(stack.contains(QStringLiteral("allocated at:\n  ") + site.name + QLatin1Char('\n')),
                 qPrintable(stack));

        // the map: the first highlighted block in full colour (in view: the map scrolled to it),
        // the other active blocks faded
        QApplication::processEvents();
        const QImage picture = map->viewport()->grab().toImage();
        const QColor active = SegmentMapView::stateColor(BlockState::ActiveAllocated, map->palette());
        int full = 0, faded = 0;
        const QColor base = map->palette().color(QPalette::Base);
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x) {
                const QColor c = picture.pixelColor(x, y);
                full += c == active;
                faded += c.lightness() > active.lightness() && c.lightness() < base.lightness() &&
                         c.blue() > c.red() + 20;
            }
        QVERIFY2(full > 0, "no highlighted block in view");
        QVERIFY2(faded > 0, "no faded block in view");
        if (const QByteArray png = qgetenv("GAPSCOPE_SNAPSHOT_SITES_PNG"); !png.isEmpty()) {
            QVERIFY(page.grab().save(QString::fromLocal8Bit(png)));
            page.setPalette(test::darkPalette());
            QVERIFY(page.grab().save(
                QString::fromLocal8Bit(png).replace(QStringLiteral(".png"), QStringLiteral("-dark.png"))));
            page.setPalette(QPalette());
        }

        // sorted by another column, the selection follows the site
        page.sitesView()->sortByColumn(SnapshotSitesModel::AllocationsColumn, Qt::DescendingOrder);
        QCOMPARE(page.selectedSiteStacks(), stacks);

        // cleared: nothing outlined, nothing dimmed, said once
        page.selectSite(-1);
        QCOMPARE(selected.size(), 2);
        QVERIFY(selected.back().front().value<QList<uint>>().isEmpty());
        QVERIFY(map->highlightedFrames().empty());
        QVERIFY(page.siteStackText()->toPlainText().isEmpty());
        QVERIFY(page.activeMemoryView()->highlightedFrames().empty());

        // by function: fewer sites, the selection gone with the old ones
        page.selectSite(0);
        QCOMPARE(selected.size(), 3);
        page.setSiteGrouping(SiteGrouping::Function);
        QCOMPARE(model->rowCount(), 17);
        QCOMPARE(selected.size(), 4);
        QVERIFY(map->highlightedFrames().empty());
        QCOMPARE(page.siteGroupingBox()->currentText(), QStringLiteral("By function"));
        page.selectSite(0);
        QVERIFY(map->highlightedFrames().size() > 1); // dropout: several stacks

        page.clear();
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(page.selectedSiteStacks().isEmpty());
        QCOMPARE(selected.size(), 6);
    }

    // What the page does not take: another kind of document, or none.
    void refusesOtherDocuments()
    {
        QAction resetZoom{QStringLiteral("Reset Zoom")};
        SnapshotPage page{&resetZoom, nullptr};
        QString error;
        QVERIFY(!page.open(LoadedDocument{}, &error));
        QVERIFY(!page.hasDocument());
        QVERIFY(!page.analyseOpened(OpenMode::Now, &error));
    }
};

QTEST_MAIN(TestSnapshotPage)
#include "tst_snapshotpage.moc"
