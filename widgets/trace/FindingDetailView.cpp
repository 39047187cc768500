#include "widgets/trace/FindingDetailView.h"
#include "model/text/Text.h"
#include "model/trace/CounterCapture.h"

#include "analysis/PhaseSteps.h"
#include "model/items/FindingsModel.h"
#include "model/report/AnalysisReport.h"
#include "model/report/ReportContent.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/common/ModelDecorations.h"
#include "widgets/common/PaneKeys.h"

#include <QFileInfo>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace gapscope {

namespace {

// "max_gap_bytes" -> "Max gap bytes"
QString evidenceTitle(const std::string& key)
{
    QString title = qs(key);
    title.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!title.isEmpty())
        title[0] = title[0].toUpper();
    return title;
}

QString phaseHtml(const Finding& f)
{
    QString html = QStringLiteral("<h4>%1</h4>").arg(htmlEscape(FindingDetailView::tr("Phase")));
    if (!f.phase)
        return html +
               QStringLiteral("<p>%1</p>").arg(htmlEscape(FindingDetailView::tr("Not inside any phase.")));
    const PhaseAttribution& a = *f.phase;
    html += QStringLiteral("<p><b>%1</b>").arg(htmlEscape(FindingsModel::phaseText(f.phase)));
    QStringList details;
    details << (a.resolution == PhaseResolution::Unique ? FindingDetailView::tr("unique")
                                                        : FindingDetailView::tr("ambiguous"));
    if (a.source)
        details << FindingDetailView::tr("source %1").arg(shownText(qs(*a.source)));
    if (a.threadName || a.threadId)
        details << FindingDetailView::tr("thread %1 (%2)")
                       .arg(shownText(qs(a.threadName.value_or(""))))
                       .arg(a.threadId.value_or(0));
    if (a.scopeId)
        details << FindingDetailView::tr("scope %1").arg(shownText(qs(*a.scopeId)));
    html += QStringLiteral("<br><span style='color:gray'>%1</span></p>")
                .arg(htmlEscape(details.join(QStringLiteral(", "))));
    return html;
}

} // namespace

FindingDetailView::FindingDetailView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_browser = new QTextBrowser(this);
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    m_browser->document()->setDocumentMargin(10);
    layout->addWidget(m_browser);
    // Tab reaches the text (to scroll and select it), and the pane shows that it has the keys
    m_browser->setObjectName(QStringLiteral("findingDetailText"));
    showFocusFrame(m_browser);
    setFocusProxy(m_browser);
    clear();
}

void FindingDetailView::clear()
{
    showMessage(tr("No trace loaded."));
}

void FindingDetailView::showMessage(const QString& text)
{
    m_result.reset();
    m_budget.reset();
    m_job.reset();
    m_findingIndex = -1;
    m_browser->setHtml(QStringLiteral("<p style='color:gray'>%1</p>").arg(htmlEscape(text)));
}

QString FindingDetailView::plainText() const
{
    return m_browser->toPlainText();
}

void FindingDetailView::showFinding(std::shared_ptr<const AnalysisResult> result, int findingIndex)
{
    m_result = std::move(result);
    m_budget.reset();
    m_job.reset();
    if (!m_result) {
        clear();
        return;
    }
    if (findingIndex < 0 || size_t(findingIndex) >= m_result->findings.size()) {
        m_findingIndex = -1;
        m_browser->setHtml(summaryHtml(*m_result));
        return;
    }
    m_findingIndex = findingIndex;
    m_browser->setHtml(findingHtml(*m_result, m_result->findings[size_t(findingIndex)]));
}

void FindingDetailView::showBudgetFinding(std::shared_ptr<const BudgetAnalysisResult> result,
                                          int findingIndex)
{
    if (!result) {
        clear();
        return;
    }
    m_result.reset();
    m_job.reset();
    m_budget = std::move(result);
    if (findingIndex < 0 || size_t(findingIndex) >= m_budget->findings.size()) {
        m_findingIndex = -1;
        m_browser->setHtml(budgetSummaryHtml(*m_budget));
        return;
    }
    m_findingIndex = findingIndex;
    const Finding& finding = m_budget->findings[size_t(findingIndex)];
    m_browser->setHtml(findingHtml(finding, finding.evidenceTimestampNs, m_budget->originNs(), false));
}

void FindingDetailView::showJobFinding(std::shared_ptr<const JobFindings> findings, int findingIndex,
                                       int64_t alignedOriginNs)
{
    if (!findings) {
        clear();
        return;
    }
    m_result.reset();
    m_budget.reset();
    m_job = std::move(findings);
    if (findingIndex < 0 || size_t(findingIndex) >= m_job->findings.size()) {
        m_findingIndex = -1;
        m_browser->setHtml(jobSummaryHtml(*m_job));
        return;
    }
    m_findingIndex = findingIndex;
    const Finding& finding = m_job->findings[size_t(findingIndex)];
    m_browser->setHtml(findingHtml(finding, m_job->alignedTimeNs(finding), alignedOriginNs, true));
}

QString FindingDetailView::jobSummaryHtml(const JobFindings& result) const
{
    QString html;
    const size_t findings = result.findings.size();
    html += QStringLiteral("<h3>%1</h3>")
                .arg(htmlEscape(findings == 0 ? tr("No collective or first-cause findings")
                                              : englishPlural(tr("%n job finding(s)", nullptr, int(findings)),
                                                              qint64(findings))));
    if (findings > 0)
        html += QStringLiteral("<p>%1</p>")
                    .arg(htmlEscape(tr("Select a finding to see its rank, evidence and what to do.")));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    const auto row = [&](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align='right'><b>%2</b></td></tr>")
                    .arg(htmlEscape(name), htmlEscape(value));
    };
    row(tr("Collective intervals"), QString::number(result.intervals.size()));
    if (result.summary) {
        row(tr("First-cause suspects"), QString::number(result.summary->firstCauseSuspects.size()));
        row(tr("World size"), QString::number(result.summary->worldSize));
        row(tr("Missing ranks"), QString::number(result.summary->missingRanks.size()));
    }
    row(tr("Backend"), qs(toString(result.backend)));
    html += QStringLiteral("</table>");
    // what limited the cross-rank analysis (too few ranks, no qualifying spike, ...)
    if (result.analysis && result.analysis->crossRank)
        for (const std::string& note : result.analysis->crossRank->notes)
            html += QStringLiteral("<p style='color:gray'>%1</p>")
                        .arg(htmlEscape(shownText(qs(note), kShownProseChars)));
    return html;
}

QString FindingDetailView::budgetSummaryHtml(const BudgetAnalysisResult& result) const
{
    QString html;
    const size_t findings = result.findings.size();
    html += QStringLiteral("<h3>%1</h3>")
                .arg(htmlEscape(findings == 0 ? tr("No memory-budget findings")
                                              : englishPlural(tr("%n finding(s)", nullptr, int(findings)),
                                                              qint64(findings))));
    if (findings > 0)
        html += QStringLiteral("<p>%1</p>")
                    .arg(htmlEscape(tr("Select a finding to see its evidence and what to do.")));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    const auto row = [&](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align='right'><b>%2</b></td></tr>")
                    .arg(htmlEscape(name), htmlEscape(value));
    };
    const BudgetData& data = *result.data;
    row(tr("Ticks analysed"), QString::number(result.analysedTicks()));
    row(tr("Ticks in the log"), QString::number(data.ticks.size()));
    int64_t missing = 0;
    for (const TickGap& gap : data.gaps)
        missing += gap.missingTicks;
    row(tr("Ticks not logged"), QString::number(missing));
    if (data.tickPeriodNs > 0)
        row(tr("Tick period"), formatReportDuration(data.tickPeriodNs));
    row(tr("Log form"), QString::fromLatin1(toString(data.form)));
    row(tr("Allocator"), !data.ticks.empty() && data.ticks.hasJemalloc(0) ? tr("jemalloc") : tr("system"));
    html += QStringLiteral("</table>");
    return html;
}

QString FindingDetailView::findingHtml(const AnalysisResult& result, const Finding& f) const
{
    return findingHtml(f, f.evidenceTimestampNs, FindingsModel::originNs(result), true);
}

QString FindingDetailView::findingHtml(const Finding& f, int64_t timeNs, int64_t origin, bool showPhase) const
{
    const QString colour = severityColor(f.severity).name();
    QString html;
    html += QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>")
                .arg(htmlEscape(classificationTitle(f.classification)));
    html +=
        QStringLiteral("<p style='margin-top:0'><b style='color:%1'>%2</b> &nbsp;·&nbsp; %3 &nbsp;·&nbsp; "
                       "%4 <span style='color:gray'>(%5)</span></p>")
            .arg(colour, htmlEscape(FindingsModel::severityText(f.severity)),
                 htmlEscape(tr("confidence %1").arg(confidenceText(f.confidence))),
                 htmlEscape(
                     (f.rank
                          ? tr("rank %1 at %2 (aligned)").arg(*f.rank).arg(formatRelativeTime(timeNs, origin))
                          : tr("at %1").arg(formatRelativeTime(timeNs, origin))) +
                     (f.evidenceStep ? QStringLiteral(", ") + qs(stepLabel(*f.evidenceStep)) : QString())),
                 // the wall-clock time of the evidence, not its raw nanoseconds
                 htmlEscape(formatUtcTime(f.evidenceTimestampNs)));
    if (!f.description.empty())
        // prose quoting names from the input: clipped, so the browser never lays out
        // unbounded rich text (a 1 MB phase name froze the window for minutes)
        html += QStringLiteral("<p>%1</p>").arg(htmlEscape(shownText(qs(f.description), kShownProseChars)));

    html +=
        QStringLiteral("<h4>%1</h4><table cellspacing='0' cellpadding='2'>").arg(htmlEscape(tr("Evidence")));
    for (const EvidenceValue& e : f.evidence) {
        html += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align='right'><b>%2</b></td>"
                               "<td>&nbsp;&nbsp;<span style='color:gray'><tt>%3</tt></span></td></tr>")
                    .arg(htmlEscape(evidenceTitle(e.key)), htmlEscape(shownText(formatEvidenceValue(e))),
                         htmlEscape(shownText(qs(e.key))));
    }
    html += QStringLiteral("</table>");

    // gapscope's own account beside upstream's evidence: one line per episode or interval
    QString shapeTitle;
    const QStringList shape = findingShapeLines(f, origin, kMillisecondNs, &shapeTitle);
    if (!shape.isEmpty()) {
        html += QStringLiteral("<h4>%1</h4><ul style='margin-left:-20px'>").arg(htmlEscape(shapeTitle));
        for (const QString& line : shape)
            html += QStringLiteral("<li>%1</li>").arg(htmlEscape(line));
        html += QStringLiteral("</ul>");
    }

    if (showPhase) // budget logs have no phases
        html += phaseHtml(f);

    if (!f.remediation.empty()) {
        html += QStringLiteral("<h4>%1</h4><ol style='margin-left:-20px'>").arg(htmlEscape(tr("What to do")));
        for (const std::string& step : f.remediation)
            html += QStringLiteral("<li>%1</li>").arg(htmlEscape(shownText(qs(step), kShownProseChars)));
        html += QStringLiteral("</ol>");
    }
    return html;
}

QString FindingDetailView::summaryHtml(const AnalysisResult& result) const
{
    const GapStatistics& st = result.statistics;
    QString html;
    const auto row = [&](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td align='right'><b>%2</b></td></tr>")
                    .arg(htmlEscape(name), htmlEscape(value));
    };
    if (isCounterOnly(result)) {
        // no gap statistics to show (they would all read zero): what the capture has instead
        const CounterFigures figures = counterFigures(result);
        const QString used = usedCounterName(result);
        html += QStringLiteral("<h3>%1</h3><p>%2</p>")
                    .arg(htmlEscape(figures.cpu ? tr("CPU capture: no hidden-memory gap")
                                                : tr("No device total: no hidden-memory gap")),
                         htmlEscape(counterOnlyExplanation(result)));
        html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
        row(tr("Samples with counters"), QString::number(figures.sampleCount));
        if (figures.peakUsedBytes) {
            row(tr("Peak %1").arg(used), bytesText(double(*figures.peakUsedBytes)));
            row(tr("%1 first → last").arg(used),
                QStringLiteral("%1 → %2").arg(bytesText(double(*figures.firstUsedBytes)),
                                              bytesText(double(*figures.lastUsedBytes))));
        }
        row(tr("Backend"), qs(toString(result.backend)));
        html += QStringLiteral("</table>");
        return html;
    }
    // what the trace cannot show comes first: the figures below would read as "nothing there"
    bool blind = false;
    for (const Notice& notice : result.notices) {
        blind = blind || notice.code == notice_code::kGapNotObservable;
        html += QStringLiteral("<h3 style='color:%1'>%2</h3><p>%3</p>")
                    .arg(noticeTint(notice.severity, palette()).name(), htmlEscape(qs(notice.title)),
                         htmlEscape(qs(notice.message)));
    }
    if (result.findings.empty() && blind) {
        html += QStringLiteral("<h3>%1</h3>")
                    .arg(htmlEscape(tr("No hidden-memory findings, and none could be found")));
    } else if (result.findings.empty()) {
        html += QStringLiteral("<h3>%1</h3>").arg(htmlEscape(tr("No hidden-memory findings")));
        if (st.sampleCount < 3)
            html += QStringLiteral("<p>%1</p>")
                        .arg(htmlEscape(englishPlural(
                            tr("%n usable sample(s): the gap analysis needs at least 3 samples with a "
                               "device total.",
                               nullptr, int(st.sampleCount)),
                            qint64(st.sampleCount))));
        else if (st.belowRatioThreshold)
            html +=
                QStringLiteral("<p>%1</p>")
                    .arg(htmlEscape(tr("The largest gap is %1 % of device memory, below the %2 % threshold.")
                                        .arg(st.maxAbsGapRatio * 100.0, 0, 'f', 2)
                                        .arg(result.request.thresholds.gapRatio * 100.0, 0, 'f', 2)));
    } else {
        html += QStringLiteral("<h3>%1</h3>")
                    .arg(htmlEscape(englishPlural(tr("%n finding(s)", nullptr, int(result.findings.size())),
                                                  qint64(result.findings.size()))));
        html += QStringLiteral("<p>%1</p>")
                    .arg(htmlEscape(tr("Select a finding to see its evidence and what to do.")));
    }
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    row(tr("Usable samples"), QString::number(st.sampleCount));
    if (blind) {
        row(tr("Gap"), tr("not observable (0 by construction)"));
    } else {
        row(tr("Max |gap| / total"), percentText(st.maxAbsGapRatio, 2));
        row(tr("Mean gap"), bytesText(st.meanGap));
        row(tr("Gap std. deviation"), bytesText(st.stdGap));
        if (st.hasFit)
            row(tr("Gap trend"), bytesPerSecondText(st.slopePerNs * 1e9));
    }
    row(tr("Backend"), qs(toString(result.backend)));
    if (const DeviceUsedSource* source = result.deviceUsedSource.get())
        row(tr("Device used from"),
            tr("%1 (nvidia-smi, %2)")
                .arg(QFileInfo(source->path).fileName(),
                     source->scope == DeviceLogScope::Device ? tr("device-wide") : tr("this process")));
    html += QStringLiteral("</table>");
    return html;
}

} // namespace gapscope
