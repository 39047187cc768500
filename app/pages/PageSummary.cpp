#include "app/pages/PageSummary.h"

#include "model/budget/BudgetAnalysisRunner.h"
#include "model/items/FindingsModel.h"
#include "model/items/PhasesModel.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/text/Text.h"
#include "model/trace/CounterCapture.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <map>

namespace gapscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("PageSummary", text);
}

std::vector<SummaryFigure> figuresOf(const ReportContent& content)
{
    std::vector<SummaryFigure> figures;
    for (const ReportSummaryFigure& figure : reportSummaryFigures(content))
        figures.push_back({figure.label, figure.value, figure.detail});
    return figures;
}

void addNotices(SummaryContent& summary, const std::vector<Notice>& notices)
{
    for (const Notice& notice : notices) {
        SummaryNotice shown{notice.severity, qs(notice.title), qs(notice.message), qs(notice.code), {}, {}};
        if (notice.code == notice_code::kBelowRatioGate) {
            shown.actionText = tr("Show the findings below the gate");
            shown.hideActionText = tr("Hide the findings below the gate");
        }
        summary.notices.push_back(shown);
    }
}

// "Transient spike", with the detail line of a finding on the summary
SummaryFinding summaryFinding(const Finding& f, int index, int64_t originNs)
{
    QStringList detail{FindingsModel::severityText(f.severity), percentText(f.confidence),
                       formatRelativeTime(f.evidenceTimestampNs, originNs)};
    if (f.phase)
        detail << phaseAttributionText(f.phase);
    return {index, f.severity, classificationTitle(f.classification), detail.join(QStringLiteral(" · ")),
            qs(f.description)};
}

bool gapNotObservable(const std::vector<Notice>& notices)
{
    return findNotice(notices, notice_code::kGapNotObservable) != nullptr;
}

void addFindings(SummaryContent& summary, const std::vector<Finding>& findings, int64_t originNs)
{
    summary.findingCount = findings.size();
    for (size_t i = 0; i < findings.size() && i < kSummaryFindings; ++i)
        summary.findings.push_back(summaryFinding(findings[i], int(i), originNs));
}

// One row per phase or group of repeated phases, the top level and the level under it.
SummaryTable phasesTable(const PhasesModel& model)
{
    SummaryTable table;
    table.title = tr("Phases");
    table.header = QStringList{tr("Phase"), tr("Count"), tr("Total"), tr("Mean"), tr("Max")};
    int rows = 0;
    int more = 0;
    auto addRow = [&](const QModelIndex& index, int depth) {
        if (rows >= kSummaryPhaseRows) {
            ++more;
            return;
        }
        ++rows;
        auto cell = [&](int column) {
            return model.index(index.row(), column, index.parent()).data().toString();
        };
        // a nested phase by its path ("train / step")
        const QString name =
            depth == 0 ? cell(PhasesModel::NameColumn) : index.data(PhasesModel::PathRole).toString();
        const QString duration = cell(PhasesModel::DurationColumn);
        if (model.isGroup(index))
            table.rows.push_back({name, QString::number(index.data(PhasesModel::OccurrenceCountRole).toInt()),
                                  duration, cell(PhasesModel::MeanColumn), cell(PhasesModel::MaxColumn)});
        else
            table.rows.push_back({name, QStringLiteral("1"), duration, duration, duration});
    };
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex top = model.index(row, 0);
        addRow(top, 0);
        if (model.isGroup(top))
            continue; // its children are the occurrences: the Phases panel lists them
        for (int child = 0; child < model.rowCount(top); ++child)
            addRow(model.index(child, 0, top), 1);
    }
    if (model.rowCount() == 0)
        table.note = tr("This trace records no phases (phase_enter / phase_exit events).");
    else if (more > 0)
        table.note = tr("%1 more in the Phases panel.").arg(more);
    return table;
}

} // namespace

SummaryContent traceSummary(const AnalysisResult& result, const PhasesModel& phases, const QString& title)
{
    const ReportContent report = buildReportContent(result, false);
    SummaryContent summary;
    summary.title = title;
    QStringList subtitle{tr("stormlog trace"), tr("backend %1").arg(report.backend)};
    if (!report.host.isEmpty())
        subtitle << tr("host %1").arg(report.host);
    if (!report.sessionId.isEmpty())
        subtitle << tr("session %1").arg(report.sessionId.left(13));
    subtitle << tr("rank %1").arg(report.rank);
    summary.subtitle = subtitle.join(QStringLiteral(" · "));
    summary.figures = figuresOf(report);
    for (size_t i = 0; i < report.ooms.size() && i < result.trace->ooms.size(); ++i) {
        const ReportOom& oom = report.ooms[i];
        const OomInfo& info = result.trace->ooms[i];
        // the message has a line of its own above the facts
        summary.ooms.push_back(
            {reportOomHeadline(oom), oom.exceptionMessage, {}, info.metadata, info.environment});
        for (const auto& fact : oom.facts)
            if (fact.second != oom.exceptionMessage)
                summary.ooms.back().facts.push_back(fact);
    }
    if (isCounterOnly(result)) {
        // the report's figures are of the gap (zero samples): say what the capture has
        const CounterFigures counters = counterFigures(result);
        summary.note = counterOnlyExplanation(result);
        summary.figures.erase(summary.figures.begin());
        summary.figures.insert(
            summary.figures.begin(),
            {tr("Samples with counters"), countText(counters.sampleCount),
             tr("of %1 events").arg(countText(uint64_t(std::max<qint64>(0, report.eventCount))))});
        if (!report.durationNs())
            summary.figures.insert(
                summary.figures.begin() + 1,
                {tr("Duration"), formatReportDuration(counters.lastNs - counters.firstNs), {}});
        if (counters.peakUsedBytes)
            summary.figures.insert(
                summary.figures.begin() + 2,
                {tr("Peak %1").arg(usedCounterName(result)), bytesText(double(*counters.peakUsedBytes)),
                 tr("at %1").arg(formatRelativeTime(counters.peakUsedNs, report.originNs))});
    }
    addNotices(summary, report.notices);
    summary.noFindings = isCounterOnly(result)
                             ? tr("No hidden-memory findings: there is no gap in this capture")
                         : gapNotObservable(report.notices)
                             ? tr("No hidden-memory findings, and none could be found: the gap cannot be "
                                  "observed in this trace")
                         : !result.belowGateFindings.empty()
                             ? tr("No hidden-memory findings at the %1 gate: the largest gap is below it")
                                   .arg(qs(ratioPercentText(result.request.thresholds.gapRatio)))
                             : tr("No hidden-memory findings");
    addFindings(summary, result.findings, report.originNs);
    for (size_t i = 0; i < result.belowGateFindings.size(); ++i)
        summary.belowGate.push_back(summaryFinding(result.belowGateFindings[i], int(i), report.originNs));
    summary.belowGateMark =
        tr("(below the %1 gate)").arg(qs(ratioPercentText(result.request.thresholds.gapRatio)));
    summary.tables.push_back(phasesTable(phases));
    return summary;
}

SummaryContent budgetSummary(const BudgetAnalysisResult& result, const QString& title)
{
    const ReportContent report = buildBudgetReportContent(*result.data, result.findings, result.thresholds);
    SummaryContent summary;
    summary.title = title;
    summary.subtitle = tr("memory-budget log");
    summary.figures = figuresOf(report);
    summary.noFindings = tr("No budget findings");
    addFindings(summary, result.findings, result.originNs());

    // how often each verdict was given over the ticks analysed, most frequent first
    const BudgetTicks& ticks = result.data->ticks;
    std::map<QString, size_t> counts;
    for (size_t tick = result.firstTick; tick < result.lastTick && tick < ticks.size(); ++tick)
        ++counts[qs(ticks.labelOf(tick))];
    std::vector<std::pair<QString, size_t>> ordered(counts.begin(), counts.end());
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    SummaryTable verdicts;
    verdicts.title = tr("Verdicts");
    verdicts.header = QStringList{tr("Verdict"), tr("Ticks"), tr("Share")};
    const size_t analysed = result.analysedTicks();
    for (const auto& [label, count] : ordered)
        verdicts.rows.push_back({label.isEmpty() ? tr("(none logged)") : label, countText(count),
                                 percentText(analysed ? double(count) / double(analysed) : 0.0)});
    if (ordered.empty())
        verdicts.note = tr("No ticks analysed.");
    summary.tables.push_back(verdicts);
    return summary;
}

} // namespace gapscope
