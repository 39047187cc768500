#pragma once
// The page of a PyTorch memory snapshot (model/snapshot): a summary of its totals as the
// allocator's own counters name them, the active memory timeline of its trace
// (widgets/snapshot/ActiveMemoryView: the allocations over the trace, one device at a time; a
// click shows the allocator's state at that moment; a selected site's allocations highlighted)
// above the segment map (widgets/snapshot/SegmentMapView: every segment as a bar of its blocks,
// grouped by stream and pool, by address or by size), the allocation sites under it ("where it
// came from", model/snapshot/SnapshotSites: a sortable table beside the selected site's stack;
// selecting one highlights its blocks in the map and its allocations on the timeline, and emits
// siteSelected) and the fragmentation findings (model/snapshot/SnapshotFragmentation) with their
// remediation. The page has no window analysis and no cursor; its sums are linear in the blocks
// and run on the calling thread, the timelines come built by the loader.

#include "app/pages/DocumentPage.h"
#include "model/snapshot/SnapshotSites.h"
#include "model/snapshot/SnapshotSummary.h"

#include <memory>
#include <vector>

class QActionGroup;
class QCheckBox;
class QComboBox;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTextBrowser;

namespace gapscope {

class ActiveMemoryView;
class SegmentMapView;
class SnapshotSitesModel;
struct SnapshotData;

class SnapshotPage : public DocumentPage
{
    Q_OBJECT
public:
    SnapshotPage(QAction* resetZoomAction, QWidget* parent);
    ~SnapshotPage() override;

    std::shared_ptr<const SnapshotData> snapshot() const { return m_data; }
    // The totals shown; valid once analyseOpened ran.
    const SnapshotSummary& summary() const { return m_summary; }
    SegmentMapView* segmentMap() const { return m_map; }
    QAction* byAddressAction() const { return m_byAddress; }
    QAction* bySizeAction() const { return m_bySize; }
    ActiveMemoryView* activeMemoryView() const { return m_timeline; }
    // The devices whose trace the timeline can show (hidden with one), "by entry", the reserved
    // line, and the allocator's state at the moment clicked.
    QComboBox* timelineDevices() const { return m_devices; }
    QCheckBox* byEntryCheck() const { return m_byEntry; }
    QCheckBox* reservedCheck() const { return m_showReserved; }
    QLabel* allocatorStateLabel() const { return m_stateLabel; }
    // The selected finding's text and remediation.
    QTextBrowser* findingText() const { return m_findingText; }
    // The allocation sites: the table (over a sorting proxy of sitesModel), how they are grouped
    // (by stack or by the function of their top frame) and the selected site's stack.
    QTableView* sitesView() const { return m_sitesView; }
    SnapshotSitesModel* sitesModel() const { return m_sitesModel; }
    QComboBox* siteGroupingBox() const { return m_siteGrouping; }
    QPlainTextEdit* siteStackText() const { return m_siteStack; }
    void setSiteGrouping(SiteGrouping grouping);
    // Selects the site of row (in SnapshotSitesModel's order, bytes at the peak descending) in the
    // table, as a click does; -1 clears the selection.
    void selectSite(int row);
    // The selected site's stacks (FrameStackId), empty when none is selected.
    QList<uint> selectedSiteStacks() const;

    QWidget* chartWidget() const override;
    bool hasDocument() const override { return m_data != nullptr; }
    bool hasResult() const override { return m_analysed; }
    bool hasFindings() const override { return m_findings && !m_findings->empty(); }
    bool isWindowAnalysis() const override { return false; }
    // the report of the snapshot shown, its segment map and the selected finding
    PageExport pageExport() const override;
    QString documentPath() const override;
    const ProblemLog* problems() const override;
    // a snapshot is one moment: nothing to window, step or zoom
    void analyseWindow(qint64 /*beginNs*/, qint64 /*endNs*/) override {}
    void resetWindowAnalysis() override {}
    void setThresholds(const GapThresholds& /*thresholds*/) override {}
    void setCursorTime(qint64 /*ns*/) override {}
    void stepCursor(int /*steps*/) override {}
    // the whole trace on the timeline, the top of the segment map
    void resetZoom() override;
    void updateNavigation(NavigationActions& actions) const override;
    void clear() override;
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;
    // the splitters under snapshotPage/ (the timeline's above the map too), and the order of the
    // segment map
    void restorePageSettings(const QSettings& settings, bool choices) override;
    void savePageSettings(QSettings& settings) const override;

signals:
    // A site was selected (its FrameStackIds: the blocks and allocations it covers) or, with an
    // empty list, the selection cleared: for the views that highlight a site (the segment map here;
    // the active memory timeline connects to it).
    void siteSelected(const QList<uint>& stacks);

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void updateInfoLabel();
    QWidget* makeTimelinePane();
    // The devices with trace entries into the selector, the first one shown.
    void showTimelines();
    void showTimeline(size_t traceIndex);
    void showAllocatorState(quint32 entry);
    QWidget* createSitesPane();
    void rebuildSites();
    void onSiteCurrentChanged(const QModelIndex& current);

    std::shared_ptr<const SnapshotData> m_data;
    SnapshotSummary m_summary;
    std::shared_ptr<const std::vector<Finding>> m_findings;
    int m_selectedFinding = -1; // into m_findings, for Copy Finding as Markdown
    bool m_analysed = false;

    QLabel* m_infoLabel = nullptr;
    SegmentMapView* m_map = nullptr;
    QAction* m_byAddress = nullptr;
    QAction* m_bySize = nullptr;
    QTextBrowser* m_findingText = nullptr;
    QSplitter* m_timelineSplitter = nullptr;
    ActiveMemoryView* m_timeline = nullptr;
    QComboBox* m_devices = nullptr;
    QCheckBox* m_byEntry = nullptr;
    QCheckBox* m_showReserved = nullptr;
    QLabel* m_stateLabel = nullptr;
    QSplitter* m_mapSplitter = nullptr; // the map above the sites
    SnapshotSitesModel* m_sitesModel = nullptr;
    QSortFilterProxyModel* m_sitesProxy = nullptr;
    QTableView* m_sitesView = nullptr;
    QComboBox* m_siteGrouping = nullptr;
    QLabel* m_sitesNote = nullptr;
    QPlainTextEdit* m_siteStack = nullptr;
    QList<uint> m_selectedStacks;
};

} // namespace gapscope
