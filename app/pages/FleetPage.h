#pragma once
// The page of a fleet index database (`gapscope index`, docs/fleet-schema.md; read only by
// model/fleetdata/FleetQuery on the load thread): the runs as a sortable, filterable table
// (job, host, time, worst finding class and severity, notice, text), a scatter of peak gap
// against duration (widgets/fleet/FleetScatterView: one point per run shown, coloured by its
// worst finding; a rubber band selects the runs in the table, the table's selection is drawn
// on the scatter), and the recurring issues with the runs of the one selected. A double-click on
// a run (table, scatter, an issue's runs) asks the window to open its path in a tab
// (DocumentPage::openPathRequested). Exports: the runs shown as CSV, the recurring issues as
// Markdown and HTML (model/report/FleetReport). A fleet has no time axis, cursor or window
// analysis.

#include "app/pages/DocumentPage.h"
#include "model/fleetdata/FleetRunFilter.h"

#include <memory>
#include <vector>

class QComboBox;
class QItemSelection;
class QSortFilterProxyModel;

namespace gapscope {

class FleetIssuesModel;
class FleetRunsModel;
class FleetScatterView;
struct FleetData;

class FleetPage : public DocumentPage
{
    Q_OBJECT
public:
    FleetPage(QAction* resetZoomAction, QWidget* parent);
    ~FleetPage() override;

    std::shared_ptr<const FleetData> fleet() const { return m_data; }
    FleetRunsModel* runsModel() const { return m_runsModel; }
    QTableView* runsView() const { return m_runsView; }
    FleetScatterView* scatter() const { return m_scatter; }
    FleetIssuesModel* issuesModel() const { return m_issuesModel; }
    QTableView* issuesView() const { return m_issuesView; }
    // the runs of the issue selected
    FleetRunsModel* issueRunsModel() const { return m_issueRunsModel; }
    QTableView* issueRunsView() const { return m_issueRunsView; }
    QLineEdit* textFilter() const { return m_textFilter; }
    QComboBox* jobFilter() const { return m_job; }
    QComboBox* hostFilter() const { return m_host; }
    QComboBox* classFilter() const { return m_class; }
    QComboBox* severityFilter() const { return m_severity; }
    QComboBox* noticeFilter() const { return m_notice; }
    QComboBox* timeFilter() const { return m_time; }
    // The runs selected in the table (indices into FleetData::runs), ascending.
    std::vector<int> selectedRuns() const;
    // Selects runs in the table (those shown), as a rubber band on the scatter does.
    void selectRuns(const std::vector<int>& runs);
    // What the filter widgets say now.
    FleetRunFilter currentFilter() const;

    QWidget* chartWidget() const override;
    bool hasDocument() const override { return m_data != nullptr; }
    bool hasResult() const override { return m_data != nullptr; }
    bool hasFindings() const override { return false; }
    bool isWindowAnalysis() const override { return false; }
    QString documentPath() const override;
    const ProblemLog* problems() const override;
    void analyseWindow(qint64 /*beginNs*/, qint64 /*endNs*/) override {}
    void resetWindowAnalysis() override {}
    void setThresholds(const GapThresholds& /*thresholds*/) override {}
    void setCursorTime(qint64 /*ns*/) override {}
    void stepCursor(int /*steps*/) override {}
    // every filter back to "any"
    void resetZoom() override;
    void updateNavigation(NavigationActions& actions) const override;
    void clear() override;
    PageExport pageExport() const override;
    bool open(const LoadedDocument& document, QString* error) override;
    bool analyseOpened(OpenMode mode, QString* error) override;

protected:
    void onFindingCurrentChanged(const QModelIndex& /*current*/) override {}

private:
    void fillFilterChoices();
    void applyFilter();
    void updateScatter();
    void updateInfo();
    void onRunsSelectionChanged();
    void onIssueSelected();
    void requestOpen(int run);

    std::shared_ptr<const FleetData> m_data;
    FleetRunsModel* m_runsModel = nullptr;
    QTableView* m_runsView = nullptr;
    FleetScatterView* m_scatter = nullptr;
    FleetIssuesModel* m_issuesModel = nullptr;
    QSortFilterProxyModel* m_issuesProxy = nullptr;
    QTableView* m_issuesView = nullptr;
    FleetRunsModel* m_issueRunsModel = nullptr;
    QTableView* m_issueRunsView = nullptr;
    QLabel* m_infoLabel = nullptr;
    QLabel* m_shownLabel = nullptr;
    QLineEdit* m_textFilter = nullptr;
    QComboBox* m_job = nullptr;
    QComboBox* m_host = nullptr;
    QComboBox* m_class = nullptr;
    QComboBox* m_severity = nullptr;
    QComboBox* m_notice = nullptr;
    QComboBox* m_time = nullptr;
    QStringList m_classes; // the scatter's legend after "no finding"
    bool m_syncingSelection = false;
};

} // namespace gapscope
