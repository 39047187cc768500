#pragma once
// The phase spans of one analysis as a tree (parent_scope_id nesting). Spans that findings
// are attributed to carry their finding count, so views can mark them.

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
        StartColumn,
        DurationColumn,
        ThreadColumn,
        SyntheticEndColumn,
        FindingsColumn,
        ColumnCount
    };
    enum Role
    {
        SpanIndexRole = Qt::UserRole + 1, // int index into AnalysisResult::phases
        StartNsRole,                      // qint64 absolute ns
        EndNsRole,                        // qint64 absolute ns, inclusive
        PathRole,                         // "train / step"
        FindingCountRole,                 // int: findings attributed to this span
        SortRole,                         // raw value of the column
    };

    explicit PhasesModel(QObject* parent = nullptr);

    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }

    // Spans (indices into phases) that a finding is attributed to: the span with its scope_id,
    // else the spans whose label the attribution names and which contain the evidence time.
    static std::vector<size_t> spansOfFinding(const Finding& finding, const std::vector<PhaseSpan>& phases);

    const PhaseSpan* spanAt(const QModelIndex& index) const;
    QModelIndex indexOfSpan(size_t spanIndex, int column = NameColumn) const;
    size_t spanCount() const { return m_nodes.size(); }
    int findingCount(size_t spanIndex) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node
    {
        int parent = -1; // span index of the parent, -1 for top level
        int row = 0;     // row under the parent
        std::vector<int> children;
        int findingCount = 0;
    };
    const std::vector<int>& childrenOf(const QModelIndex& parent) const;

    std::shared_ptr<const AnalysisResult> m_result;
    int64_t m_originNs = 0;
    int64_t m_timeResolutionNs = 1'000'000; // timeResolutionNs of the analysed span
    std::vector<Node> m_nodes;              // one per span, same index
    std::vector<int> m_roots;
};

} // namespace gapscope
