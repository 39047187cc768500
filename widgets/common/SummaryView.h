#pragma once
// The summary a document opens on (like heaptrack's summary page): the headline figures (peak
// gap, duration, samples or ticks, findings), what was read (device, backend, host), the top
// findings (activating one goes to it on the chart) and a table or two (phases, verdicts).
// Shows a SummaryContent the page builds (app/pages/PageSummary); computes nothing itself.

#include "analysis/Finding.h"
#include "analysis/Notice.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <utility>
#include <vector>

class QLabel;
class QListWidget;
class QPushButton;
class QTreeWidget;
class QVBoxLayout;

namespace gapscope {

struct SummaryFigure
{
    QString label;
    QString value;
    QString detail;
};

struct SummaryFinding
{
    int index = -1; // into the page's findings
    Severity severity = Severity::Info;
    QString title;       // "Transient spike"
    QString detail;      // "critical · 100.0 % · +10.800 s · train / step"
    QString description; // tooltip
};

// What the data cannot show (analysis/Notice.h), said before any figure.
struct SummaryNotice
{
    NoticeSeverity severity = NoticeSeverity::Info;
    QString title;   // the first line, bold
    QString message; // what it means, why, what to do
    QString code;    // the stable code, in the tooltip
    // A button under the message (below_ratio_gate: "Show the findings below the gate") that
    // shows SummaryContent::belowGate; empty: none.
    QString actionText;
    QString hideActionText; // its text while they are shown
};

struct SummaryTable
{
    QString title;
    QStringList header;
    std::vector<QStringList> rows;
    QString note; // under the table (or instead of it when there are no rows)
};

// An out-of-memory error of the trace (a stormlog OOM bundle): its headline, the exception's
// message, the key facts and, folded, the bundle's metadata.json and environment.json as written.
struct SummaryOom
{
    QString headline; // "Out of memory at +1.079 s: torch.cuda.OutOfMemoryError"
    QString message;  // the exception's message
    std::vector<std::pair<QString, QString>> facts;
    QJsonObject metadata;
    QJsonObject environment;
};

struct SummaryContent
{
    QString title;                      // the file name
    QString subtitle;                   // kind, backend, host, session
    std::vector<SummaryNotice> notices; // the first thing under the title
    QString note;                       // a paragraph before the figures (a CPU capture: what it shows)
    std::vector<SummaryOom> ooms;       // before the figures: an OOM is the first thing to know
    std::vector<SummaryFigure> figures;
    std::vector<SummaryFinding> findings; // the top ones, in the order the findings table has
    size_t findingCount = 0;              // all of them
    QString noFindings;                   // said when there are none
    // Findings the ratio gate hides (AnalysisResult::belowGateFindings), listed muted after the
    // findings, each marked with belowGateMark ("(below the 5 % gate)"), once a notice's action
    // asks for them. Their index is into AnalysisResult::belowGateFindings.
    std::vector<SummaryFinding> belowGate;
    QString belowGateMark;
    std::vector<SummaryTable> tables;
};

class SummaryView : public QWidget
{
    Q_OBJECT
public:
    explicit SummaryView(QWidget* parent = nullptr);

    void setContent(const SummaryContent& content);
    void clear();
    const SummaryContent& content() const { return m_content; }
    QListWidget* findingsList() const { return m_findings; }
    // The notices' frame (objectName "summaryNotices"), hidden without notices.
    QWidget* noticesArea() const { return m_notices; }
    QPushButton* chartButton() const { return m_chartButton; }
    // The OOM sections shown (one per SummaryContent::ooms): their facts and files as trees.
    QList<QTreeWidget*> oomTrees() const;
    // Whether the findings below the gate are listed (a notice's action toggles it; new
    // content hides them again).
    bool belowGateShown() const { return m_showBelowGate; }
    void setBelowGateShown(bool shown);

signals:
    // A finding was clicked or activated with Enter: its index in the page's findings.
    void findingActivated(int findingIndex);
    void chartRequested();

private:
    void rebuild();

    SummaryContent m_content;
    QLabel* m_title = nullptr;
    QLabel* m_subtitle = nullptr;
    QLabel* m_note = nullptr;
    QWidget* m_notices = nullptr;
    QVBoxLayout* m_noticesLayout = nullptr;
    QWidget* m_ooms = nullptr;
    QVBoxLayout* m_oomsLayout = nullptr;
    QWidget* m_figures = nullptr;
    QLabel* m_findingsTitle = nullptr;
    QListWidget* m_findings = nullptr;
    QWidget* m_tables = nullptr;
    QVBoxLayout* m_tablesLayout = nullptr;
    QPushButton* m_chartButton = nullptr;
    bool m_showBelowGate = false;
};

} // namespace gapscope
