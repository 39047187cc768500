#pragma once
// The page of a PyTorch memory snapshot (model/snapshot): a summary of its totals as the
// allocator's own counters name them, the segment map (widgets/snapshot/SegmentMapView: every
// segment as a bar of its blocks, grouped by stream and pool, by address or by size) and the
// fragmentation findings (model/snapshot/SnapshotFragmentation) with their remediation. A
// snapshot is one moment: no time axis, no window analysis, no cursor; its sums are linear in
// the blocks and run on the calling thread.

#include "app/pages/DocumentPage.h"
#include "model/snapshot/SnapshotSummary.h"

#include <memory>
#include <vector>

class QActionGroup;
class QTextBrowser;

namespace gapscope {

class SegmentMapView;
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
    // The selected finding's text and remediation.
    QTextBrowser* findingText() const { return m_findingText; }

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
    // to the top of the segment map
    void resetZoom() override;
    void updateNavigation(NavigationActions& actions) const override;
    void clear() override;
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;
    // the splitters under snapshotPage/, and the order of the segment map
    void restorePageSettings(const QSettings& settings, bool choices) override;
    void savePageSettings(QSettings& settings) const override;

protected:
    void onFindingCurrentChanged(const QModelIndex& current) override;

private:
    void updateInfoLabel();

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
};

} // namespace gapscope
