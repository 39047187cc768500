#include "widgets/budget/BudgetTickDetailView.h"
#include "model/text/Text.h"

#include "model/report/ReportContent.h"
#include "widgets/budget/VerdictLane.h"
#include "widgets/chart/ChartSupport.h"

#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace gapscope {

namespace {

// The verdict detail "cache_bytes=2247098368 cache_share=0.31" with its byte counts in IEC
// units and shares in percent; the logged text stays beside it.
QString verdictDetailHtml(const QString& detail)
{
    QStringList parts;
    for (const QString& pair : detail.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        const QString key = eq > 0 ? pair.left(eq) : pair;
        const QString value = eq > 0 ? pair.mid(eq + 1) : QString();
        bool isNumber = false;
        const double number = value.toDouble(&isNumber);
        QString shown = value;
        if (isNumber && key.endsWith(QLatin1String("_bytes")))
            shown = bytesText(number);
        else if (isNumber && key.endsWith(QLatin1String("_share")))
            shown = percentText(number);
        parts << QStringLiteral("%1 <b>%2</b>").arg(htmlEscape(key), htmlEscape(shown));
    }
    return parts.join(QStringLiteral(" &nbsp;·&nbsp; "));
}

} // namespace

BudgetTickDetailView::BudgetTickDetailView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_browser = new QTextBrowser(this);
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    m_browser->document()->setDocumentMargin(10);
    layout->addWidget(m_browser);
    clear();
}

void BudgetTickDetailView::setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result)
{
    m_result = std::move(result);
    if (!m_result || !m_result->data || m_result->data->ticks.empty()) {
        clear();
        return;
    }
    showTick(m_tick.value_or(0));
}

void BudgetTickDetailView::clear()
{
    m_tick.reset();
    m_browser->setHtml(QStringLiteral("<p style='color:gray'>%1</p>")
                           .arg(htmlEscape(tr("Move the cursor to a tick to see its values."))));
}

void BudgetTickDetailView::showTime(qint64 ns)
{
    if (!m_result || !m_result->data)
        return;
    if (const auto tick = nearestBudgetTick(m_result->data->ticks, ns))
        showTick(*tick);
}

void BudgetTickDetailView::showTick(size_t tick)
{
    if (!m_result || !m_result->data || tick >= m_result->data->ticks.size()) {
        clear();
        return;
    }
    m_tick = tick;
    const int scroll = m_browser->verticalScrollBar() ? m_browser->verticalScrollBar()->value() : 0;
    m_browser->setHtml(tickHtml(tick));
    // stepping through ticks keeps the part the user is reading in view
    if (m_browser->verticalScrollBar())
        m_browser->verticalScrollBar()->setValue(scroll);
}

QString BudgetTickDetailView::plainText() const
{
    return m_browser->toPlainText();
}

QString BudgetTickDetailView::html() const
{
    return m_tick ? tickHtml(*m_tick) : QString();
}

QString BudgetTickDetailView::tickHtml(size_t tick) const
{
    const BudgetData& data = *m_result->data;
    const BudgetTicks& t = data.ticks;
    const BudgetBuckets& b = m_result->buckets;
    const double rss = double(t.rssBytes[tick]);
    const QString label = shownText(qs(t.labelOf(tick)));
    QString html;
    html += QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>")
                .arg(htmlEscape(tr("Tick %1 of %2 at %3")
                                    .arg(tick + 1)
                                    .arg(t.size())
                                    .arg(formatRelativeTime(t.timestampNs[tick], m_result->originNs()))));
    QStringList where;
    where << formatAbsoluteTime(t.timestampNs[tick]);
    if (t.level[tick] != BudgetLogLevel::Unknown)
        where << qs(toString(t.level[tick]));
    if (t.sourceLine[tick] > 0)
        where << tr("line %1").arg(t.sourceLine[tick]);
    html += QStringLiteral("<p style='margin-top:0;color:gray'>%1</p>")
                .arg(htmlEscape(where.join(QStringLiteral(" · "))));

    // verdict
    html +=
        QStringLiteral("<p><span style='background:%1'>&nbsp;&nbsp;&nbsp;</span> <b>%2</b>")
            .arg(VerdictLane::verdictColor(label, palette()).name(), htmlEscape(tr("Verdict %1").arg(label)));
    if (t.verdictStreak[tick] > 0)
        html += htmlEscape(tr(", streak %1").arg(t.verdictStreak[tick]));
    const QString detail = shownText(qs(t.names.text(t.verdictDetail[tick])), kShownProseChars);
    if (!detail.isEmpty())
        html += QStringLiteral("<br/>%1<br/><span style='color:gray'><tt>%2</tt></span>")
                    .arg(verdictDetailHtml(detail), htmlEscape(detail));
    if (t.previousVerdictLabel[tick] != kEmptyName)
        html += QStringLiteral("<br/>") +
                htmlEscape(tr("Previous verdict %1, streak %2")
                               .arg(shownText(qs(t.names.text(t.previousVerdictLabel[tick]))))
                               .arg(t.previousVerdictStreak[tick]));
    html += QStringLiteral("</p>");

    const auto tableStart = [&](const QStringList& headers) {
        html += QStringLiteral("<table cellspacing='0' cellpadding='2'><tr>");
        for (qsizetype i = 0; i < headers.size(); ++i)
            html +=
                QStringLiteral("<th align='%1'>%2&nbsp;&nbsp;</th>")
                    .arg(i == 0 ? QStringLiteral("left") : QStringLiteral("right"), htmlEscape(headers[i]));
        html += QStringLiteral("</tr>");
    };
    const auto tableRow = [&](const QStringList& cells) {
        html += QStringLiteral("<tr>");
        for (qsizetype i = 0; i < cells.size(); ++i)
            html += QStringLiteral("<td align='%1'>%2&nbsp;&nbsp;</td>")
                        .arg(i == 0 ? QStringLiteral("left") : QStringLiteral("right"), htmlEscape(cells[i]));
        html += QStringLiteral("</tr>");
    };

    html += QStringLiteral("<h4>%1</h4>").arg(htmlEscape(tr("Buckets")));
    tableStart({tr("Bucket"), tr("Bytes"), tr("Share of rss")});
    const auto bucket = [&](const QString& name, int64_t bytes) {
        tableRow({name, bytesText(double(bytes)), shareText(double(bytes), rss)});
    };
    bucket(tr("rss"), t.rssBytes[tick]);
    bucket(tr("Cache"), b.cache[tick]);
    bucket(tr("Leases"), t.leaseBytesActive[tick]);
    bucket(tr("Non-cache"), b.nonCache[tick]);
    bucket(tr("Non-cache live"), b.nonCacheLive[tick]);
    bucket(tr("Reporters"), b.reporter[tick]);
    bucket(tr("Non-cache other"), b.nonCacheOther[tick]);
    bucket(tr("Allocator retention"), b.allocatorRetention[tick]);
    bucket(tr("rss (OS)"), t.rssSysinfoBytes[tick]);
    bucket(tr("OS − allocator gap"), b.osGap[tick]);
    bucket(tr("Target"), t.targetBytes[tick]);
    bucket(tr("Effective target"), t.effectiveTargetBytes[tick]);
    bucket(tr("Cache caps after"), b.capsAfter[tick]);
    html += QStringLiteral("</table>");

    const auto caches = t.cachesOf(tick);
    html += QStringLiteral("<h4>%1</h4>").arg(htmlEscape(tr("Caches")));
    if (caches.empty()) {
        html += QStringLiteral("<p>%1</p>").arg(htmlEscape(tr("No cache lines at this tick.")));
    } else {
        tableStart(
            {tr("Cache"), tr("Current"), tr("Cap before"), tr("Cap after"), tr("Delta"), tr("Hit rate")});
        for (const BudgetCacheRow& c : caches)
            tableRow({shownText(qs(t.names.text(c.name))), bytesText(double(c.currentBytes)),
                      bytesText(double(c.previousMaxBytes)), bytesText(double(c.newMaxBytes)),
                      signedBytesText(double(c.deltaBytes)),
                      c.hitRate ? percentText(*c.hitRate) : tr("none")});
        html += QStringLiteral("</table>");
    }

    const auto reporters = t.reportersOf(tick);
    html += QStringLiteral("<h4>%1</h4>").arg(htmlEscape(tr("Reporters")));
    if (reporters.empty()) {
        html += QStringLiteral("<p>%1</p>").arg(htmlEscape(tr("No reporter lines at this tick.")));
    } else {
        tableStart({tr("Reporter"), tr("Bytes"), tr("Share of rss")});
        for (const BudgetReporterRow& r : reporters)
            tableRow({shownText(qs(t.names.text(r.name))), bytesText(double(r.currentBytes)),
                      shareText(double(r.currentBytes), rss)});
        html += QStringLiteral("</table>");
    }

    html += QStringLiteral("<h4>%1</h4>").arg(htmlEscape(tr("jemalloc")));
    if (!t.hasJemalloc(tick)) {
        html += QStringLiteral("<p>%1</p>").arg(htmlEscape(tr("Not installed (all six figures are zero).")));
    } else {
        tableStart({tr("Figure"), tr("Bytes"), tr("Share of rss")});
        bucket(tr("allocated"), t.jeAllocatedBytes[tick]);
        bucket(tr("active"), t.jeActiveBytes[tick]);
        bucket(tr("metadata"), t.jeMetadataBytes[tick]);
        bucket(tr("resident"), t.jeResidentBytes[tick]);
        bucket(tr("mapped"), t.jeMappedBytes[tick]);
        bucket(tr("retained"), t.jeRetainedBytes[tick]);
        html += QStringLiteral("</table>");
    }
    return html;
}

} // namespace gapscope
