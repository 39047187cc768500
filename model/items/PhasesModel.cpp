#include "model/items/PhasesModel.h"
#include "model/text/Text.h"

#include "model/items/FindingsModel.h"
#include "model/report/AnalysisReport.h"

#include <QHash>

#include <algorithm>

namespace gapscope {

PhasesModel::PhasesModel(QObject* parent) : QAbstractItemModel(parent) {}

std::vector<size_t> PhasesModel::spansOfFinding(const Finding& finding, const std::vector<PhaseSpan>& phases)
{
    std::vector<size_t> spans;
    if (!finding.phase)
        return spans;
    const PhaseAttribution& a = *finding.phase;
    if (a.resolution == PhaseResolution::Unique && a.scopeId) {
        for (size_t i = 0; i < phases.size(); ++i)
            if (phases[i].scopeId == *a.scopeId && phases[i].contains(finding.evidenceTimestampNs))
                spans.push_back(i);
        if (!spans.empty())
            return spans;
    }
    std::vector<std::string> labels = a.phasePaths;
    if (a.phasePath)
        labels.push_back(*a.phasePath);
    for (size_t i = 0; i < phases.size(); ++i) {
        if (!phases[i].contains(finding.evidenceTimestampNs))
            continue;
        if (std::find(labels.begin(), labels.end(), phases[i].label) != labels.end())
            spans.push_back(i);
    }
    return spans;
}

void PhasesModel::setAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_nodes.clear();
    m_roots.clear();
    m_originNs = 0;
    if (m_result) {
        m_originNs = FindingsModel::originNs(*m_result);
        m_timeResolutionNs = timeResolutionNs(FindingsModel::spanNs(*m_result));
        const auto& phases = m_result->phases;
        m_nodes.resize(phases.size());
        // scope ids are unique within a (session, rank); the spans here are of one partition,
        // but key on the session too so a hand-built mix cannot nest across sessions.
        QHash<QString, int> byScope;
        for (size_t i = 0; i < phases.size(); ++i)
            byScope.insert(qs(phases[i].sessionId) + QLatin1Char('\n') + qs(phases[i].scopeId), int(i));
        for (size_t i = 0; i < phases.size(); ++i) {
            Node& node = m_nodes[i];
            if (phases[i].parentScopeId) {
                const auto it = byScope.constFind(qs(phases[i].sessionId) + QLatin1Char('\n') +
                                                  qs(*phases[i].parentScopeId));
                if (it != byScope.constEnd() && *it != int(i))
                    node.parent = *it;
            }
        }
        // A malformed trace could name parents in a cycle; such spans are shown top level.
        for (size_t i = 0; i < phases.size(); ++i) {
            int steps = 0;
            for (int p = m_nodes[i].parent; p >= 0 && steps <= int(phases.size());
                 p = m_nodes[size_t(p)].parent)
                ++steps;
            if (steps > int(phases.size()))
                m_nodes[i].parent = -1;
        }
        for (size_t i = 0; i < phases.size(); ++i) {
            Node& node = m_nodes[i];
            std::vector<int>& siblings = node.parent < 0 ? m_roots : m_nodes[size_t(node.parent)].children;
            node.row = int(siblings.size());
            siblings.push_back(int(i));
        }
        for (const Finding& finding : m_result->findings)
            for (size_t span : spansOfFinding(finding, phases))
                ++m_nodes[span].findingCount;
    }
    endResetModel();
}

const PhaseSpan* PhasesModel::spanAt(const QModelIndex& index) const
{
    if (!index.isValid() || !m_result || index.model() != this)
        return nullptr;
    const size_t i = size_t(index.internalId());
    return i < m_result->phases.size() ? &m_result->phases[i] : nullptr;
}

QModelIndex PhasesModel::indexOfSpan(size_t spanIndex, int column) const
{
    if (spanIndex >= m_nodes.size() || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(m_nodes[spanIndex].row, column, quintptr(spanIndex));
}

int PhasesModel::findingCount(size_t spanIndex) const
{
    return spanIndex < m_nodes.size() ? m_nodes[spanIndex].findingCount : 0;
}

const std::vector<int>& PhasesModel::childrenOf(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return m_roots;
    return m_nodes[size_t(parent.internalId())].children;
}

QModelIndex PhasesModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const std::vector<int>& children = childrenOf(parent);
    if (size_t(row) >= children.size())
        return {};
    return createIndex(row, column, quintptr(children[size_t(row)]));
}

QModelIndex PhasesModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const int p = m_nodes[size_t(child.internalId())].parent;
    if (p < 0)
        return {};
    return createIndex(m_nodes[size_t(p)].row, 0, quintptr(p));
}

int PhasesModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(childrenOf(parent).size());
}

int PhasesModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant PhasesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const PhaseSpan* s = spanAt(index);
    if (!s)
        return {};
    const size_t spanIndex = size_t(index.internalId());
    const int findings = m_nodes[spanIndex].findingCount;
    switch (role) {
    case SpanIndexRole:
        return int(spanIndex);
    case StartNsRole:
        return qint64(s->startNs);
    case EndNsRole:
        return qint64(s->endNs);
    case PathRole:
        return qs(s->label);
    case FindingCountRole:
        return findings;
    case Qt::ToolTipRole: {
        if (index.column() == ThreadColumn)
            return tr("Thread %1 (id %2)").arg(qs(s->threadName)).arg(s->threadId);
        QString tip = qs(s->label);
        if (findings > 0)
            tip += QLatin1Char('\n') +
                   englishPlural(tr("%n finding(s) attributed", nullptr, findings), findings);
        if (s->syntheticEnd)
            tip += QLatin1Char('\n') + tr("Never exited: closed at the last event of the trace");
        return tip;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == StartColumn || index.column() == DurationColumn ||
            index.column() == FindingsColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(index.column())) {
        case NameColumn:
            return qs(s->name);
        case StartColumn:
            return qint64(s->startNs);
        case DurationColumn:
            return qint64(s->endNs - s->startNs);
        case ThreadColumn:
            return qint64(s->threadId);
        case SyntheticEndColumn:
            return s->syntheticEnd;
        case FindingsColumn:
            return findings;
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case NameColumn:
            return s->name.empty() ? qs(s->label) : qs(s->name);
        case StartColumn:
            return formatRelativeTime(s->startNs, m_originNs, m_timeResolutionNs);
        case DurationColumn:
            return durationText(saturatingSub(s->endNs, s->startNs), m_timeResolutionNs);
        case ThreadColumn:
            // the id is in the tooltip of the thread cell
            return s->threadName.empty() ? QString::number(s->threadId) : qs(s->threadName);
        case SyntheticEndColumn:
            return s->syntheticEnd ? tr("yes") : QString();
        case FindingsColumn:
            return findings > 0 ? QString::number(findings) : QString();
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant PhasesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case NameColumn:
        return tr("Phase");
    case StartColumn:
        return tr("Start");
    case DurationColumn:
        return tr("Duration");
    case ThreadColumn:
        return tr("Thread");
    case SyntheticEndColumn:
        return tr("Synthetic end");
    case FindingsColumn:
        return tr("Findings");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
