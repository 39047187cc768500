#include "model/items/FindingsModel.h"

#include "analysis/PhaseSteps.h"
#include "model/text/Text.h"

#include "model/report/AnalysisReport.h"

#include <QStringList>

namespace gapscope {

int64_t FindingsModel::originNs(const AnalysisResult& result)
{
    if (!result.trace || result.partition.size() == 0)
        return 0;
    return result.trace->store.timestampNs[result.partition.begin];
}

int64_t FindingsModel::spanNs(const AnalysisResult& result)
{
    if (!result.trace || result.partition.size() == 0)
        return 0;
    const auto& t = result.trace->store.timestampNs;
    return saturatingSub(t[result.partition.end - 1], t[result.partition.begin]);
}

QString FindingsModel::phaseText(const std::optional<PhaseAttribution>& attribution)
{
    if (!attribution)
        return {};
    // shown: each path clipped and its bidirectional controls made visible (model/text/Text.h)
    if (attribution->resolution == PhaseResolution::Unique) {
        if (attribution->phasePath)
            return shownText(qs(*attribution->phasePath));
        return attribution->phasePaths.empty() ? QString() : shownText(qs(attribution->phasePaths.front()));
    }
    QStringList paths;
    for (const auto& path : attribution->phasePaths)
        paths << shownText(qs(path));
    QString text = FindingsModel::tr("ambiguous: %1").arg(paths.join(QStringLiteral(", ")));
    if (attribution->summary)
        text += FindingsModel::tr(" (most recent %1)").arg(shownText(qs(attribution->summary->phasePath)));
    return text;
}

QString FindingsModel::severityText(Severity severity)
{
    switch (severity) {
    case Severity::Critical:
        return FindingsModel::tr("Critical");
    case Severity::Warning:
        return FindingsModel::tr("Warning");
    case Severity::Info:
        return FindingsModel::tr("Info");
    }
    return qs(toString(severity));
}

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_budget.reset();
    m_job.reset();
    m_untimed.reset();
    m_originNs = m_result ? originNs(*m_result) : 0;
    m_timeResolutionNs = m_result ? timeResolutionNs(spanNs(*m_result)) : kMillisecondNs;
    endResetModel();
}

const std::vector<Notice>& FindingsModel::notices() const
{
    static const std::vector<Notice> none;
    if (m_job)
        return m_job->notices; // the job's own: first_cause_at_startup
    return m_result ? m_result->notices : none;
}

void FindingsModel::setBudgetAnalysis(std::shared_ptr<const BudgetAnalysisResult> result)
{
    beginResetModel();
    m_budget = std::move(result);
    m_result.reset();
    m_job.reset();
    m_untimed.reset();
    m_originNs = m_budget ? m_budget->originNs() : 0;
    m_timeResolutionNs = kMillisecondNs;
    if (m_budget && m_budget->data && !m_budget->data->ticks.empty())
        m_timeResolutionNs = timeResolutionNs(saturatingSub(m_budget->data->ticks.timestampNs.back(),
                                                            m_budget->data->ticks.timestampNs.front()));
    endResetModel();
}

void FindingsModel::setJobFindings(std::shared_ptr<const JobFindings> findings, int64_t alignedOriginNs)
{
    beginResetModel();
    m_job = std::move(findings);
    m_result.reset();
    m_budget.reset();
    m_untimed.reset();
    m_originNs = m_job ? alignedOriginNs : 0;
    m_timeResolutionNs = kMillisecondNs;
    endResetModel();
}

void FindingsModel::setUntimedFindings(std::shared_ptr<const std::vector<Finding>> findings)
{
    beginResetModel();
    m_untimed = std::move(findings);
    m_result.reset();
    m_budget.reset();
    m_job.reset();
    m_originNs = 0;
    m_timeResolutionNs = kMillisecondNs;
    endResetModel();
}

const std::vector<Finding>* FindingsModel::findings() const
{
    if (m_result)
        return &m_result->findings;
    if (m_budget)
        return &m_budget->findings;
    if (m_job)
        return &m_job->findings;
    return m_untimed.get();
}

const Finding* FindingsModel::finding(int row) const
{
    const std::vector<Finding>* all = findings();
    if (!all || row < 0 || size_t(row) >= all->size())
        return nullptr;
    return &(*all)[size_t(row)];
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    const std::vector<Finding>* all = findings();
    if (parent.isValid() || !all)
        return 0;
    return int(all->size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Finding* f = finding(index.row());
    if (!f)
        return {};
    switch (role) {
    case SeverityRole:
        return int(f->severity);
    case ClassificationKeyRole:
        return qs(toString(f->classification));
    case EvidenceTimeRole:
        return qint64(f->evidenceTimestampNs);
    case FindingIndexRole:
        return index.row();
    case RankRole:
        return f->rank ? QVariant(qint64(*f->rank)) : QVariant();
    case AlignedTimeRole:
        return m_job ? QVariant(qint64(m_job->alignedTimeNs(*f))) : QVariant();
    case Qt::ToolTipRole:
        return qs(f->description);
    case Qt::TextAlignmentRole:
        if (index.column() == ConfidenceColumn || index.column() == TimeColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(index.column())) {
        case SeverityColumn:
            return int(f->severity);
        case ClassificationColumn:
            return classificationTitle(f->classification);
        case ConfidenceColumn:
            return f->confidence;
        case PhaseColumn:
            return phaseText(f->phase);
        case TimeColumn:
            return qint64(m_job ? m_job->alignedTimeNs(*f) : f->evidenceTimestampNs);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case SeverityColumn:
            return severityText(f->severity);
        case ClassificationColumn:
            if (f->ranks.size() > 1) { // a job finding naming several ranks
                QStringList ranks;
                for (const int64_t rank : f->ranks)
                    ranks << QString::number(rank);
                return tr("%1 · ranks %2")
                    .arg(classificationTitle(f->classification), ranks.join(QStringLiteral(", ")));
            }
            if (f->rank)
                return tr("%1 · rank %2").arg(classificationTitle(f->classification)).arg(*f->rank);
            return classificationTitle(f->classification);
        case ConfidenceColumn:
            return confidenceText(f->confidence);
        case PhaseColumn:
            return f->phase ? phaseText(f->phase) : tr("—");
        case TimeColumn: {
            if (m_untimed)
                return tr("—");
            const QString time = formatRelativeTime(m_job ? m_job->alignedTimeNs(*f) : f->evidenceTimestampNs,
                                                    m_originNs, m_timeResolutionNs);
            // the training step beside the time, where the trace's phases carry one
            return f->evidenceStep ? tr("%1 (%2)").arg(time, qs(stepLabel(*f->evidenceStep))) : time;
        }
        case ColumnCount:
            break;
        }
        return {};
    default:
        return {};
    }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case SeverityColumn:
        return tr("Severity");
    case ClassificationColumn:
        return tr("Classification");
    case ConfidenceColumn:
        return tr("Confidence");
    case PhaseColumn:
        return tr("Phase");
    case TimeColumn:
        return tr("Time");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace gapscope
