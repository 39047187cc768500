#include "widgets/budget/VerdictLane.h"
#include "model/text/Text.h"

#include "model/report/ReportContent.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/TimeAxis.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kSideMargin = 6;

} // namespace

VerdictLane::VerdictLane(QWidget* parent) : CursorTimeline(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

VerdictLane::~VerdictLane() = default;

QColor VerdictLane::verdictColor(const QString& label, const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    const std::string text = label.toStdString();
    const char* hue = dark ? "#7aa6d6" : "#4c78a8";
    if (label == QLatin1String("grow"))
        hue = dark ? "#6cd27a" : "#3a9e4a";
    else if (isHoldLabel(text))
        hue = dark ? "#8c8c8c" : "#b5b5b5";
    else if (isShrinkLabel(text))
        hue = dark ? "#ffb347" : "#e8900c";
    else if (isSkipShrinkLabel(text))
        hue = dark ? "#ff5f5f" : "#c92a2a";
    return QColor(QLatin1String(hue));
}

void VerdictLane::setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result)
{
    const bool sameLog = result && m_result && result->data == m_result->data;
    m_result = std::move(result);
    if (!sameLog) {
        rebuild();
        const bool hasTicks = m_result && m_result->data && !m_result->data->ticks.empty();
        resetView(hasTicks ? m_result->data->ticks.timestampNs.front() : 0, m_beginNs, m_endNs);
    }
    update();
}

void VerdictLane::rebuild()
{
    m_runs.clear();
    m_beginNs = m_endNs = 0;
    m_rssMax = 0;
    m_rssMin = 0;
    if (!m_result || !m_result->data || m_result->data->ticks.empty())
        return;
    const BudgetData& data = *m_result->data;
    const BudgetTicks& ticks = data.ticks;
    const size_t n = ticks.size();
    std::vector<bool> gapAfter(n, false);
    for (const TickGap& gap : data.gaps)
        if (gap.beforeTick < n)
            gapAfter[gap.beforeTick] = true;
    for (size_t i = 0; i < n; ++i) {
        const bool continues =
            i > 0 && !gapAfter[i - 1] && ticks.verdictLabel[i] == ticks.verdictLabel[i - 1];
        if (continues) {
            m_runs.back().lastTick = i;
        } else {
            m_runs.push_back(Run{i, i, shownText(qs(ticks.labelOf(i))), 0, false});
        }
        m_rssMax = i == 0 ? double(ticks.rssBytes[i]) : std::max(m_rssMax, double(ticks.rssBytes[i]));
        m_rssMin = i == 0 ? double(ticks.rssBytes[i]) : std::min(m_rssMin, double(ticks.rssBytes[i]));
    }
    for (Run& run : m_runs) {
        const int64_t count = int64_t(run.lastTick - run.firstTick + 1);
        run.length = std::max(count, ticks.verdictStreak[run.lastTick]);
        // the log's own boundary: a run-ended line naming this label after the run's last tick
        const int64_t end = ticks.timestampNs[run.lastTick];
        const int64_t next = run.lastTick + 1 < n ? ticks.timestampNs[run.lastTick + 1] : end;
        for (const BudgetVerdictRunEnd& runEnd : ticks.runEnds)
            if (runEnd.timestampNs > end && runEnd.timestampNs <= next &&
                ticks.names.text(runEnd.previousLabel) == run.label.toStdString())
                run.endedByLog = true;
    }
    // the chart's time range, so the two line up; the outer half ticks are clipped
    m_beginNs = ticks.timestampNs.front();
    m_endNs = std::max<qint64>(ticks.timestampNs.back(), m_beginNs + 1);
}

std::optional<size_t> VerdictLane::cursorTick() const
{
    if (!m_result || !m_result->data)
        return std::nullopt;
    return nearestBudgetTick(m_result->data->ticks, cursorTime());
}

int VerdictLane::bandHeight() const
{
    return fontMetrics().height() + 8;
}

int VerdictLane::axisHeight() const
{
    return fontMetrics().height() + 4;
}

int VerdictLane::legendHeight() const
{
    return fontMetrics().height() + 4;
}

QSize VerdictLane::sizeHint() const
{
    return QSize(600, 2 + bandHeight() + 3 + sparkHeight() + axisHeight() + legendHeight());
}

TimeAxis VerdictLane::laneAxis() const
{
    const QRectF band = bandRect();
    qint64 begin = m_beginNs;
    qint64 end = std::max(m_endNs, m_beginNs + 1);
    if (visibleEndNs() > visibleBeginNs()) {
        begin = visibleBeginNs();
        end = visibleEndNs();
    }
    return TimeAxis{begin, end, band.left(), band.right()};
}

std::vector<VerdictLane::LegendEntry> VerdictLane::legendEntries() const
{
    std::vector<LegendEntry> entries;
    if (!m_result || !m_result->data || m_result->data->ticks.empty())
        return entries;
    for (const Run& run : m_runs) {
        const bool seen = std::any_of(entries.begin(), entries.end(),
                                      [&](const LegendEntry& e) { return e.text == run.label; });
        if (!seen)
            entries.push_back({run.label, verdictColor(run.label, palette()), LegendEntry::Kind::Verdict});
    }
    const ChartColors colors = chartColors(palette());
    if (!m_result->data->gaps.empty())
        entries.push_back({tr("not logged"), colors.text, LegendEntry::Kind::NotLogged});
    if (!m_result->data->ticks.runEnds.empty())
        entries.push_back({tr("verdict run ended"), colors.text, LegendEntry::Kind::RunEnded});
    return entries;
}

QString VerdictLane::runText(const Run& run) const
{
    if (!m_result || !m_result->data || run.lastTick >= m_result->data->ticks.size())
        return {};
    const BudgetTicks& ticks = m_result->data->ticks;
    const int64_t half = std::max<int64_t>(m_result->data->tickPeriodNs / 2, 1);
    const TimeAxis axis = laneAxis();
    const QRectF band = bandRect();
    const double x0 = std::max(axis.toPixel(ticks.timestampNs[run.firstTick] - half), band.left());
    const double x1 = std::min(axis.toPixel(ticks.timestampNs[run.lastTick] + half), band.right());
    const double room = x1 - x0 - 6;
    const QFontMetrics fm = fontMetrics();
    const QString count = QStringLiteral(" ×%1").arg(run.length);
    const QString full = run.label + count;
    if (fm.horizontalAdvance(full) <= room)
        return full;
    // the label elided before the count: "skip-sh… ×3" still says which verdict it is
    const QString label = fm.elidedText(run.label, Qt::ElideRight, int(room - fm.horizontalAdvance(count)));
    if (label.size() >= 3 && label != QStringLiteral("…"))
        return label + count;
    const QString shortText = QStringLiteral("×%1").arg(run.length);
    return fm.horizontalAdvance(shortText) <= room ? shortText : QString();
}

QSize VerdictLane::minimumSizeHint() const
{
    return QSize(120, sizeHint().height());
}

QRectF VerdictLane::bandRect() const
{
    return QRectF(m_leftMargin, 2, std::max(1, width() - m_leftMargin - m_rightMargin), bandHeight());
}

void VerdictLane::setPlotMargins(int left, int right)
{
    left = std::max(left, kSideMargin);
    right = std::max(right, kSideMargin);
    if (left == m_leftMargin && right == m_rightMargin)
        return;
    m_leftMargin = left;
    m_rightMargin = right;
    update();
}

double VerdictLane::xOfTime(qint64 ns) const
{
    return laneAxis().toPixel(ns);
}

qint64 VerdictLane::snappedTime(double x) const
{
    const qint64 ns = laneAxis().toNsClamped(x);
    if (m_result && m_result->data)
        if (const auto tick = nearestBudgetTick(m_result->data->ticks, ns))
            return m_result->data->ticks.timestampNs[*tick];
    return ns;
}

void VerdictLane::stepCursor(int ticks)
{
    const auto tick = cursorTick();
    if (!tick)
        return;
    const auto& times = m_result->data->ticks.timestampNs;
    moveCursorByUser(times[CursorNavigation::steppedIndex(int64_t(*tick), ticks, times.size())]);
}

void VerdictLane::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const ChartColors colors = chartColors(pal);
    p.fillRect(rect(), pal.color(QPalette::Window));
    const QFontMetrics fm = fontMetrics();
    const QRectF band = bandRect();
    if (!m_result || !m_result->data || m_result->data->ticks.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(band, Qt::AlignCenter, tr("No budget log loaded"));
        return;
    }
    const BudgetData& data = *m_result->data;
    const BudgetTicks& ticks = data.ticks;
    const TimeAxis axis = laneAxis();
    const int64_t half = std::max<int64_t>(data.tickPeriodNs / 2, 1);

    p.fillRect(band, pal.color(QPalette::Base));
    p.save();
    p.setClipRect(band);
    // verdict runs
    for (const Run& run : m_runs) {
        const double x0 = axis.toPixel(ticks.timestampNs[run.firstTick] - half);
        const double x1 = axis.toPixel(ticks.timestampNs[run.lastTick] + half);
        if (x1 < band.left() || x0 > band.right())
            continue;
        const QRectF r(QPointF(x0, band.top()), QPointF(std::max(x1, x0 + 1), band.bottom()));
        const QColor c = verdictColor(run.label, pal);
        p.fillRect(r, c);
        p.setPen(QPen(pal.color(QPalette::Base), 1));
        p.drawLine(r.topRight(), r.bottomRight());
        // the text centred on the part of the run in view
        p.setPen(c.lightness() > 150 ? QColor(Qt::black) : QColor(Qt::white));
        p.drawText(r.intersected(band), Qt::AlignCenter, runText(run));
    }
    // ticks not logged
    QColor hatch = colors.text;
    hatch.setAlpha(colors.dark ? 110 : 90);
    for (const TickGap& gap : data.gaps) {
        const QRectF r(QPointF(axis.toPixel(gap.startNs + half), band.top()),
                       QPointF(axis.toPixel(gap.endNs - half), band.bottom()));
        p.fillRect(r, pal.color(QPalette::Base));
        p.fillRect(r, QBrush(hatch, Qt::BDiagPattern));
    }
    // "verdict run ended" boundaries, as the log wrote them
    p.setRenderHint(QPainter::Antialiasing);
    for (const BudgetVerdictRunEnd& runEnd : ticks.runEnds) {
        const double x = axis.toPixel(runEnd.timestampNs - half);
        p.setPen(QPen(colors.text, 1.5));
        p.drawLine(QPointF(x, band.top()), QPointF(x, band.bottom()));
        QPolygonF marker;
        marker << QPointF(x - 4, band.top()) << QPointF(x + 4, band.top()) << QPointF(x, band.top() + 5);
        p.setBrush(colors.text);
        p.drawPolygon(marker);
    }
    p.restore();
    p.setBrush(Qt::NoBrush);
    QColor frame = colors.text;
    frame.setAlpha(90);
    p.setPen(QPen(frame, 1));
    p.drawRect(band);

    // rss sparkline with the visible range of the chart
    const QRectF spark(band.left(), band.bottom() + 3, band.width(), sparkHeight());
    p.fillRect(spark, pal.color(QPalette::Base));
    if (m_rssMax > m_rssMin) {
        p.save();
        p.setClipRect(spark);
        p.setPen(QPen(colors.gap, 1.2));
        size_t start = 0;
        auto drawRun = [&](size_t first, size_t last) {
            QPolygonF line;
            for (size_t i = first; i <= last; ++i)
                line << QPointF(axis.toPixel(ticks.timestampNs[i]),
                                spark.bottom() - 2 -
                                    (double(ticks.rssBytes[i]) - m_rssMin) / (m_rssMax - m_rssMin) *
                                        (spark.height() - 4));
            p.drawPolyline(line);
        };
        for (const TickGap& gap : data.gaps) {
            if (gap.beforeTick >= start && gap.beforeTick < ticks.size()) {
                drawRun(start, gap.beforeTick);
                start = gap.beforeTick + 1;
            }
        }
        if (start < ticks.size())
            drawRun(start, ticks.size() - 1);
        p.restore();
    }
    p.setPen(QPen(frame, 1));
    p.drawRect(spark);

    // relative time labels
    const int64_t origin = ticks.timestampNs.front();
    const int maxTicks =
        std::max(2, int(band.width() / (fm.horizontalAdvance(QStringLiteral("00 min 00 s")) + 30)));
    const int64_t step = niceTimeStepNs(axis.spanNs(), maxTicks);
    p.setPen(colors.text);
    for (int64_t t : timeTicksNs(axis.beginNs, axis.endNs, origin, step)) {
        const double x = axis.toPixel(t);
        const QString label = formatTimeTick(t - origin, step);
        const double w = fm.horizontalAdvance(label);
        p.drawLine(QPointF(x, spark.bottom()), QPointF(x, spark.bottom() + 3));
        p.drawText(QRectF(std::clamp(x - w / 2, 0.0, width() - w), spark.bottom() + 2, w + 1, fm.height()),
                   Qt::AlignCenter, label);
    }

    // legend: what each colour and mark means
    {
        const double top = spark.bottom() + axisHeight() + 1;
        double x = band.left();
        const double h = fm.height() - 4;
        for (const LegendEntry& entry : legendEntries()) {
            const QRectF swatch(x, top + 2, h * 1.6, h);
            switch (entry.kind) {
            case LegendEntry::Kind::Verdict:
                p.fillRect(swatch, entry.color);
                break;
            case LegendEntry::Kind::NotLogged:
                p.fillRect(swatch, pal.color(QPalette::Base));
                p.fillRect(swatch, QBrush(hatch, Qt::BDiagPattern));
                break;
            case LegendEntry::Kind::RunEnded: {
                p.setPen(QPen(colors.text, 1.5));
                const double mx = swatch.center().x();
                p.drawLine(QPointF(mx, swatch.top()), QPointF(mx, swatch.bottom()));
                QPolygonF marker;
                marker << QPointF(mx - 4, swatch.top()) << QPointF(mx + 4, swatch.top())
                       << QPointF(mx, swatch.top() + 5);
                p.setBrush(colors.text);
                p.drawPolygon(marker);
                p.setBrush(Qt::NoBrush);
                break;
            }
            }
            p.setPen(colors.text);
            const double w = fm.horizontalAdvance(entry.text);
            p.drawText(QRectF(swatch.right() + 4, top, w + 1, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       entry.text);
            x = swatch.right() + 4 + w + 14;
        }
    }

    // cursor
    const double cx = axis.toPixel(cursorTime());
    if (cx < band.left() - 1 || cx > band.right() + 1)
        return;
    p.setPen(QPen(colors.cursor, 2));
    p.drawLine(QPointF(cx, band.top() - 1), QPointF(cx, spark.bottom()));
    if (hasFocus()) {
        QPolygonF grip;
        grip << QPointF(cx - 5, spark.bottom()) << QPointF(cx + 5, spark.bottom())
             << QPointF(cx, spark.bottom() - 6);
        p.setBrush(colors.cursor);
        p.drawPolygon(grip);
    }
}

QString VerdictLane::toolTipAt(QPoint pos) const
{
    if (!m_result || !m_result->data || m_result->data->ticks.empty())
        return tr("No budget log loaded");
    const BudgetData& data = *m_result->data;
    const BudgetTicks& ticks = data.ticks;
    const TimeAxis axis = laneAxis();
    const int64_t ns = axis.toNs(pos.x());
    const int64_t origin = ticks.timestampNs.front();
    const int64_t half = std::max<int64_t>(data.tickPeriodNs / 2, 1);
    QString html = QStringLiteral("<b>%1</b>").arg(htmlEscape(formatRelativeTime(ns, origin)));
    bool inGap = false;
    for (const TickGap& gap : data.gaps)
        if (ns > gap.startNs + half && ns < gap.endNs - half) {
            inGap = true;
            html += QStringLiteral("<br/>") +
                    htmlEscape(gap.missingTicks == 1 ? tr("1 tick not logged")
                                                     : tr("%1 ticks not logged").arg(gap.missingTicks));
        }
    if (!inGap)
        for (const Run& run : m_runs)
            if (ns >= ticks.timestampNs[run.firstTick] - half &&
                ns <= ticks.timestampNs[run.lastTick] + half) {
                html += QStringLiteral("<br/><span style='color:%1'>■</span> %2")
                            .arg(verdictColor(run.label, palette()).name(),
                                 htmlEscape(
                                     tr("%1 for %2 ticks (%3 – %4)")
                                         .arg(run.label)
                                         .arg(run.length)
                                         .arg(formatRelativeTime(ticks.timestampNs[run.firstTick], origin),
                                              formatRelativeTime(ticks.timestampNs[run.lastTick], origin))));
                if (run.endedByLog)
                    html += QStringLiteral("<br/>") +
                            htmlEscape(tr("ended by a \u201cverdict run ended\u201d line"));
            }
    for (const BudgetVerdictRunEnd& runEnd : ticks.runEnds)
        if (std::abs(axis.toPixel(runEnd.timestampNs - half) - pos.x()) <= 4)
            html += QStringLiteral("<br/>") +
                    htmlEscape(tr("verdict run ended: %1 after %2 ticks → %3")
                                   .arg(shownText(qs(ticks.names.text(runEnd.previousLabel))))
                                   .arg(runEnd.previousStreak)
                                   .arg(shownText(qs(ticks.names.text(runEnd.newLabel)))));
    html +=
        QStringLiteral("<br/><span style='font-size:small'>%1</span>")
            .arg(htmlEscape(tr("Click or drag to move the cursor · ←/→ one tick (Shift: 10) · Home/End")));
    return html;
}

bool VerdictLane::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), this);
        return true;
    }
    return CursorTimeline::event(e);
}

bool VerdictLane::canMoveCursor() const
{
    return m_result != nullptr;
}

std::optional<qint64> VerdictLane::firstCursorTime() const
{
    if (!m_result->data || m_result->data->ticks.empty())
        return std::nullopt;
    return m_result->data->ticks.timestampNs.front();
}

std::optional<qint64> VerdictLane::lastCursorTime() const
{
    if (!m_result->data || m_result->data->ticks.empty())
        return std::nullopt;
    return m_result->data->ticks.timestampNs.back();
}

} // namespace gapscope
