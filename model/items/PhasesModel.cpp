#include "model/items/PhasesModel.h"
#include "model/text/Text.h"

#include "model/items/FindingsModel.h"
#include "model/report/AnalysisReport.h"

#include <QHash>

#include <algorithm>
#include <unordered_map>

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

void PhasesModel::setAnalysis(std::shared_ptr<const AnalysisResult> result,
                              std::shared_ptr<const StepIndex> steps)
{
    beginResetModel();
    m_result = std::move(result);
    m_steps = std::move(steps);
    if (m_result && !m_steps) // runAnalysis builds them; a result made by hand carries none
        m_steps = m_result->steps ? m_result->steps : std::make_shared<const StepIndex>(m_result->phases);
    else if (!m_result)
        m_steps.reset();
    m_nodes.clear();
    m_roots.clear();
    m_spanCount = 0;
    m_originNs = 0;
    if (m_result) {
        m_originNs = FindingsModel::originNs(*m_result);
        m_timeResolutionNs = timeResolutionNs(FindingsModel::spanNs(*m_result));
        const auto& phases = m_result->phases;
        m_spanCount = phases.size();
        m_nodes.resize(phases.size());
        // scope ids are unique within a (session, rank); the spans here are of one partition,
        // but key on the session too so a hand-built mix cannot nest across sessions.
        QHash<QString, int> byScope;
        for (size_t i = 0; i < phases.size(); ++i)
            byScope.insert(qs(phases[i].sessionId) + QLatin1Char('\n') + qs(phases[i].scopeId), int(i));
        std::vector<int> parentSpan(phases.size(), -1);
        for (size_t i = 0; i < phases.size(); ++i) {
            if (phases[i].parentScopeId) {
                const auto it = byScope.constFind(qs(phases[i].sessionId) + QLatin1Char('\n') +
                                                  qs(*phases[i].parentScopeId));
                if (it != byScope.constEnd() && *it != int(i))
                    parentSpan[i] = *it;
            }
        }
        // A malformed trace could name parents in a cycle; such spans are shown top level.
        for (size_t i = 0; i < phases.size(); ++i) {
            int steps = 0;
            for (int p = parentSpan[i]; p >= 0 && steps <= int(phases.size()); p = parentSpan[size_t(p)])
                ++steps;
            if (steps > int(phases.size()))
                parentSpan[i] = -1;
        }
        std::vector<std::vector<int>> childSpans(phases.size());
        std::vector<int> rootSpans;
        for (size_t i = 0; i < phases.size(); ++i)
            (parentSpan[i] < 0 ? rootSpans : childSpans[size_t(parentSpan[i])]).push_back(int(i));
        m_roots = arrangeChildren(-1, rootSpans);
        for (size_t i = 0; i < phases.size(); ++i) {
            std::vector<int> rows = arrangeChildren(int(i), childSpans[i]);
            m_nodes[i].children = std::move(rows);
        }
        for (const Finding& finding : m_result->findings)
            for (size_t span : spansOfFinding(finding, phases))
                ++m_nodes[span].findingCount;
        for (size_t node = m_spanCount; node < m_nodes.size(); ++node)
            for (size_t span : m_nodes[node].occurrences)
                m_nodes[node].findingCount += m_nodes[span].findingCount;
    }
    endResetModel();
}

std::vector<int> PhasesModel::arrangeChildren(int container, const std::vector<int>& spans)
{
    const auto& phases = m_result->phases;
    std::unordered_map<std::string, int> occurrences;
    for (int span : spans)
        ++occurrences[phases[size_t(span)].label];
    // a repeated label becomes one group row where its first occurrence would be
    std::unordered_map<std::string, int> groupOfLabel;
    std::vector<int> rows;
    for (int span : spans) {
        const std::string& label = phases[size_t(span)].label;
        if (occurrences[label] < 2) {
            m_nodes[size_t(span)].parent = container;
            m_nodes[size_t(span)].row = int(rows.size());
            rows.push_back(span);
            continue;
        }
        auto it = groupOfLabel.find(label);
        if (it == groupOfLabel.end()) {
            const int group = int(m_nodes.size());
            m_nodes.emplace_back();
            m_nodes.back().parent = container;
            m_nodes.back().row = int(rows.size());
            rows.push_back(group);
            it = groupOfLabel.emplace(label, group).first;
        }
        Node& group = m_nodes[size_t(it->second)];
        m_nodes[size_t(span)].parent = it->second;
        m_nodes[size_t(span)].row = int(group.children.size());
        group.children.push_back(span);
        group.occurrences.push_back(size_t(span));
    }
    return rows;
}

const PhaseSpan* PhasesModel::spanAt(const QModelIndex& index) const
{
    if (!index.isValid() || !m_result || index.model() != this)
        return nullptr;
    const size_t i = size_t(index.internalId());
    return i < m_spanCount ? &m_result->phases[i] : nullptr;
}

bool PhasesModel::isGroup(const QModelIndex& index) const
{
    return index.isValid() && index.model() == this && size_t(index.internalId()) < m_nodes.size() &&
           isGroupNode(size_t(index.internalId()));
}

std::vector<size_t> PhasesModel::occurrencesAt(const QModelIndex& index) const
{
    return isGroup(index) ? m_nodes[size_t(index.internalId())].occurrences : std::vector<size_t>{};
}

QModelIndex PhasesModel::indexOfSpan(size_t spanIndex, int column) const
{
    if (spanIndex >= m_spanCount || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(m_nodes[spanIndex].row, column, quintptr(spanIndex));
}

QString PhasesModel::stepsText(int64_t startNs, int64_t endNs) const
{
    return m_steps ? qs(m_steps->rangeLabelWithin(startNs, endNs)) : QString();
}

int PhasesModel::firstStepIndex(int64_t startNs, int64_t endNs) const
{
    if (!m_steps)
        return -1;
    const auto under = m_steps->indicesWithin(startNs, endNs);
    return under ? int(under->first) : -1;
}

int PhasesModel::findingCount(size_t spanIndex) const
{
    return spanIndex < m_spanCount ? m_nodes[spanIndex].findingCount : 0;
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

QVariant PhasesModel::groupData(size_t node, int column, int role) const
{
    const Node& group = m_nodes[node];
    const auto& phases = m_result->phases;
    const PhaseSpan& first = phases[group.occurrences.front()];
    int64_t total = 0;
    int64_t longest = 0;
    int64_t lastEnd = first.endNs;
    int synthetic = 0;
    bool oneThread = true;
    for (size_t span : group.occurrences) {
        const PhaseSpan& s = phases[span];
        total += s.endNs - s.startNs;
        longest = std::max(longest, s.endNs - s.startNs);
        lastEnd = std::max(lastEnd, s.endNs);
        synthetic += s.syntheticEnd ? 1 : 0;
        oneThread = oneThread && s.threadId == first.threadId;
    }
    const int count = int(group.occurrences.size());
    const int64_t mean = total / count;
    switch (role) {
    case SpanIndexRole:
        return int(group.occurrences.front());
    case StartNsRole:
        return qint64(first.startNs);
    case EndNsRole:
        return qint64(lastEnd);
    case PathRole:
        return qs(first.label);
    case FindingCountRole:
        return group.findingCount;
    case OccurrenceCountRole:
        return count;
    case StepsRole:
        return stepsText(first.startNs, lastEnd);
    case Qt::ToolTipRole: {
        QString tip = tr("%1: %2 occurrences, %3 in total, %4 on average, the longest %5")
                          .arg(shownText(qs(first.label)))
                          .arg(count)
                          .arg(secondsText(double(total) / 1e9), secondsText(double(mean) / 1e9),
                               secondsText(double(longest) / 1e9));
        if (const QString steps = stepsText(first.startNs, lastEnd); !steps.isEmpty())
            tip += QStringLiteral(", ") + steps;
        if (group.findingCount > 0)
            tip +=
                QLatin1Char('\n') + englishPlural(tr("%n finding(s) attributed", nullptr, group.findingCount),
                                                  group.findingCount);
        return tip;
    }
    case Qt::TextAlignmentRole:
        if (column != NameColumn && column != ThreadColumn && column != SyntheticEndColumn &&
            column != StepsColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(column)) {
        case NameColumn:
            return qs(first.name);
        case CountColumn:
            return count;
        case StepsColumn:
            return firstStepIndex(first.startNs, lastEnd);
        case StartColumn:
            return qint64(first.startNs);
        case DurationColumn:
            return qint64(total);
        case MeanColumn:
            return qint64(mean);
        case MaxColumn:
            return qint64(longest);
        case ThreadColumn:
            return qint64(first.threadId);
        case SyntheticEndColumn:
            return synthetic;
        case FindingsColumn:
            return group.findingCount;
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(column)) {
        case NameColumn:
            // shown: clipped, bidirectional controls made visible (model/text/Text.h)
            return shownText(first.name.empty() ? qs(first.label) : qs(first.name));
        case CountColumn:
            return QStringLiteral("×%1").arg(count);
        case StepsColumn:
            return stepsText(first.startNs, lastEnd);
        case StartColumn:
            return formatRelativeTime(first.startNs, m_originNs);
        case DurationColumn:
            return secondsText(double(total) / 1e9);
        case MeanColumn:
            return secondsText(double(mean) / 1e9);
        case MaxColumn:
            return secondsText(double(longest) / 1e9);
        case ThreadColumn:
            if (!oneThread)
                return tr("several");
            return first.threadName.empty() ? QString::number(first.threadId)
                                            : shownText(qs(first.threadName));
        case SyntheticEndColumn:
            return synthetic > 0 ? tr("%1 of %2").arg(synthetic).arg(count) : QString();
        case FindingsColumn:
            return group.findingCount > 0 ? QString::number(group.findingCount) : QString();
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant PhasesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (isGroup(index))
        return groupData(size_t(index.internalId()), index.column(), role);
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
    case OccurrenceCountRole:
        return 1;
    case StepsRole:
        return stepsText(s->startNs, s->endNs);
    case Qt::ToolTipRole: {
        if (index.column() == ThreadColumn)
            return tr("Thread %1 (id %2)").arg(qs(s->threadName)).arg(s->threadId);
        QString tip = shownText(qs(s->label));
        if (const QString steps = stepsText(s->startNs, s->endNs); !steps.isEmpty())
            tip += QStringLiteral(" (") + steps + QLatin1Char(')');
        if (findings > 0)
            tip += QLatin1Char('\n') +
                   englishPlural(tr("%n finding(s) attributed", nullptr, findings), findings);
        if (s->syntheticEnd)
            tip += QLatin1Char('\n') + tr("Never exited: closed at the last event of the trace");
        return tip;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == StartColumn || index.column() == DurationColumn ||
            index.column() == FindingsColumn || index.column() == CountColumn ||
            index.column() == MeanColumn || index.column() == MaxColumn)
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
        case CountColumn:
            return 1;
        case StepsColumn:
            return firstStepIndex(s->startNs, s->endNs);
        case MeanColumn:
        case MaxColumn:
            return qint64(s->endNs - s->startNs);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case NameColumn:
            return shownText(s->name.empty() ? qs(s->label) : qs(s->name));
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
        case StepsColumn:
            return stepsText(s->startNs, s->endNs);
        case CountColumn:
        case MeanColumn:
        case MaxColumn:
            return QString(); // a group's figures
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
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case CountColumn:
            return tr("How often a phase repeats among its siblings (a group row; expand it for each one)");
        case DurationColumn:
            return tr("A phase's duration; of a group row, the total of its occurrences");
        case MeanColumn:
            return tr("Mean duration of a group's occurrences");
        case MaxColumn:
            return tr("Longest of a group's occurrences");
        case StepsColumn:
            return tr("The training steps under a phase (its “step” attribute, or those of the phases "
                      "inside it); of a group row, from its first occurrence to its last");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case NameColumn:
        return tr("Phase");
    case StartColumn:
        return tr("Start");
    case CountColumn:
        return tr("Count");
    case StepsColumn:
        return tr("Steps");
    case DurationColumn:
        return tr("Duration");
    case MeanColumn:
        return tr("Mean");
    case MaxColumn:
        return tr("Max");
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
