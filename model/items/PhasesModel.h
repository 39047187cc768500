#pragma once
// The phase spans of one analysis as a tree (parent_scope_id nesting). Siblings with the same
// label (a training loop's 64 "step" spans) are grouped under one row that gives their count,
// total, mean and longest duration and expands to list the occurrences. Spans that findings
// are attributed to carry their finding count, so views can mark them. Where the phases carry
// training steps (analysis/PhaseSteps.h), each row names the steps under it: a group of 600
// `train` phases reads "train ×600, steps 150-749".

#include "analysis/PhaseSteps.h"
#include "model/trace/AnalysisRunner.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace gapscope {

class PhasesModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        CountColumn,    // occurrences of a group; empty for a span
        StepsColumn,    // the training steps under the row ("steps 150-749"); empty without
        StartColumn,    // a group: its first occurrence's
        DurationColumn, // a group: the total of its occurrences
        MeanColumn,     // a group: mean occurrence duration
        MaxColumn,      // a group: longest occurrence
        ThreadColumn,
        SyntheticEndColumn,
        FindingsColumn,
        ColumnCount
    };
    enum Role
    {
        SpanIndexRole = Qt::UserRole + 1, // int index into AnalysisResult::phases (a group: its first)
        StartNsRole,                      // qint64 absolute ns (a group: its first start)
        EndNsRole,                        // qint64 absolute ns, inclusive (a group: its last end)
        PathRole,                         // "train / step"
        FindingCountRole,                 // int: findings attributed to this span
        SortRole,                         // raw value of the column
        OccurrenceCountRole,              // int: spans in a group, 1 for a span
        StepsRole,                        // QString: the steps under the row, as StepsColumn
    };

    explicit PhasesModel(QObject* parent = nullptr);

    // steps: the training steps of the result's phases; the result's own (AnalysisResult::steps)
    // when not given, built here when it has none.
    void setAnalysis(std::shared_ptr<const AnalysisResult> result,
                     std::shared_ptr<const StepIndex> steps = nullptr);
    std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }
    // The steps of the analysis shown (empty where its phases carry none); null without one.
    std::shared_ptr<const StepIndex> steps() const { return m_steps; }

    // Spans (indices into phases) that a finding is attributed to: the span with its scope_id,
    // else the spans whose label the attribution names and which contain the evidence time.
    static std::vector<size_t> spansOfFinding(const Finding& finding, const std::vector<PhaseSpan>& phases);

    // The span of a span row; nullptr for a group row.
    const PhaseSpan* spanAt(const QModelIndex& index) const;
    bool isGroup(const QModelIndex& index) const;
    // Span indices of a group row (start order); empty for a span row.
    std::vector<size_t> occurrencesAt(const QModelIndex& index) const;
    QModelIndex indexOfSpan(size_t spanIndex, int column = NameColumn) const;
    size_t spanCount() const { return m_spanCount; }
    int findingCount(size_t spanIndex) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // Nodes 0 .. m_spanCount - 1 are the spans (same index), the ones after them the groups.
    struct Node
    {
        int parent = -1; // node of the parent (a span or a group), -1 for top level
        int row = 0;     // row under the parent
        std::vector<int> children;
        int findingCount = 0;            // a group: the sum of its occurrences'
        std::vector<size_t> occurrences; // a group's spans, start order
    };
    bool isGroupNode(size_t node) const { return node >= m_spanCount; }
    const std::vector<int>& childrenOf(const QModelIndex& parent) const;
    // The rows under container (a span node or -1 for the top level) of the child spans given.
    std::vector<int> arrangeChildren(int container, const std::vector<int>& spans);
    QVariant groupData(size_t node, int column, int role) const;
    // "steps 150-749" under [startNs, endNs]; empty without steps.
    QString stepsText(int64_t startNs, int64_t endNs) const;
    // The first step under [startNs, endNs] as an index into the steps, -1 without (sorting).
    int firstStepIndex(int64_t startNs, int64_t endNs) const;

    std::shared_ptr<const AnalysisResult> m_result;
    std::shared_ptr<const StepIndex> m_steps;
    int64_t m_originNs = 0;
    int64_t m_timeResolutionNs = 1'000'000; // timeResolutionNs of the analysed span
    std::vector<Node> m_nodes;
    size_t m_spanCount = 0;
    std::vector<int> m_roots;
};

} // namespace gapscope
