#include "widgets/budget/BudgetBreakdownView.h"
#include "model/text/Text.h"

#include "model/report/ReportContent.h"
#include "model/store/Decimation.h"
#include "widgets/chart/ByteAxis.h"
#include "widgets/chart/ChartNavigation.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/chart/TimeAxis.h"

#include <QApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace gapscope {

namespace {

constexpr int kMargin = 8;
constexpr int kSwatch = 10;

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// Categorical hues per family, so caches read as one group and reporters as another.
const char* const kCacheHues[] = {"#4c78a8", "#72b7d8", "#2f5d8a", "#9ecae9", "#3b8ea5", "#6f8fbf"};
const char* const kReporterHues[] = {"#f58518", "#e6b050", "#c8650f", "#f2c38f", "#b9770e"};

} // namespace

QString BudgetBreakdownView::ticksNotLoggedText(int64_t missingTicks)
{
    // written out: Qt resolves "%n" plurals only through a translation
    return missingTicks == 1 ? tr("1 tick not logged") : tr("%1 ticks not logged").arg(missingTicks);
}

BudgetBreakdownView::BudgetBreakdownView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setToolTip(tr("Memory breakdown"));
    RangeNavigator::View navigation;
    navigation.axis = [this]() -> std::optional<TimeAxis> {
        if (!m_result)
            return std::nullopt;
        const QRectF plot = plotRect();
        return TimeAxis{m_viewBeginNs, std::max(m_viewEndNs, m_viewBeginNs + 1), plot.left(), plot.right()};
    };
    navigation.setRange = [this](const TimeAxis& next) { setRange(next.beginNs, next.endNs, true); };
    navigation.resetRange = [this] { resetZoom(); };
    navigation.keys = false; // this view has never taken keys: the verdict lane below steps the cursor
    (new RangeNavigator(std::move(navigation), this))->watch(this);
}

BudgetBreakdownView::~BudgetBreakdownView() = default;

QString BudgetBreakdownView::lineName(LineKind kind)
{
    switch (kind) {
    case LineKind::Target:
        return tr("Target");
    case LineKind::EffectiveTarget:
        return tr("Effective target");
    case LineKind::Rss:
        return tr("rss");
    case LineKind::RssSysinfo:
        return tr("rss (OS)");
    }
    return {};
}

void BudgetBreakdownView::setAnalysis(std::shared_ptr<const BudgetAnalysisResult> result)
{
    const bool sameLog = result && m_result && result->data == m_result->data;
    m_result = std::move(result);
    if (!sameLog)
        rebuild();
    if (!sameLog || m_viewEndNs <= m_viewBeginNs)
        setRange(m_dataBeginNs, m_dataEndNs, true);
    update();
}

void BudgetBreakdownView::rebuild()
{
    m_layers.clear();
    m_segments.clear();
    m_stackTop.clear();
    m_yMax = 0;
    m_dataBeginNs = m_dataEndNs = 0;
    if (!m_result || !m_result->data || m_result->data->ticks.empty())
        return;
    const BudgetData& data = *m_result->data;
    const BudgetTicks& ticks = data.ticks;
    const BudgetBuckets& buckets = m_result->buckets;
    const size_t n = ticks.size();

    // caches and reporters by name, in the order they first appear
    std::vector<uint32_t> cacheNames;
    std::vector<uint32_t> reporterNames;
    for (const BudgetCacheRow& row : ticks.caches)
        if (std::find(cacheNames.begin(), cacheNames.end(), row.name) == cacheNames.end())
            cacheNames.push_back(row.name);
    for (const BudgetReporterRow& row : ticks.reporters)
        if (std::find(reporterNames.begin(), reporterNames.end(), row.name) == reporterNames.end())
            reporterNames.push_back(row.name);

    for (uint32_t name : cacheNames) {
        // a name as shown: clipped, bidirectional controls visible (model/text/Text.h)
        Layer layer{LayerKind::Cache, shownText(qs(ticks.names.text(name))), std::vector<int64_t>(n, 0), {}};
        for (const BudgetCacheRow& row : ticks.caches)
            if (row.name == name)
                layer.bytes[row.tick] += std::max<int64_t>(row.currentBytes, 0);
        m_layers.push_back(std::move(layer));
    }
    {
        Layer lease{LayerKind::Lease, tr("Leases"), std::vector<int64_t>(n, 0), {}};
        for (size_t i = 0; i < n; ++i)
            lease.bytes[i] = std::max<int64_t>(ticks.leaseBytesActive[i], 0);
        m_layers.push_back(std::move(lease));
    }
    for (uint32_t name : reporterNames) {
        Layer layer{
            LayerKind::Reporter, shownText(qs(ticks.names.text(name))), std::vector<int64_t>(n, 0), {}};
        for (const BudgetReporterRow& row : ticks.reporters)
            if (row.name == name)
                layer.bytes[row.tick] += std::max<int64_t>(row.currentBytes, 0);
        m_layers.push_back(std::move(layer));
    }
    m_layers.push_back(Layer{LayerKind::NonCacheOther, tr("Non-cache other"), buckets.nonCacheOther, {}});
    m_layers.push_back(
        Layer{LayerKind::AllocatorRetention, tr("Allocator retention"), buckets.allocatorRetention, {}});
    assignColors();

    m_stackTop.assign(n, 0);
    for (const Layer& layer : m_layers)
        for (size_t i = 0; i < n; ++i)
            m_stackTop[i] += layer.bytes[i];

    // runs of logged ticks: a gap of the log ends one
    size_t start = 0;
    for (const TickGap& gap : data.gaps) {
        const size_t before = std::min<size_t>(gap.beforeTick, n - 1);
        if (before >= start) {
            m_segments.emplace_back(start, before);
            start = before + 1;
        }
    }
    if (start < n)
        m_segments.emplace_back(start, n - 1);

    double top = 0;
    for (size_t i = 0; i < n; ++i)
        top =
            std::max({top, double(m_stackTop[i]), double(ticks.rssBytes[i]), double(ticks.rssSysinfoBytes[i]),
                      double(ticks.targetBytes[i]), double(ticks.effectiveTargetBytes[i])});
    m_yMax = top;
    m_dataBeginNs = ticks.timestampNs.front();
    m_dataEndNs = ticks.timestampNs.back();
    if (m_dataEndNs <= m_dataBeginNs) {
        // one tick (or one instant): a tick period either side so it has room
        const int64_t pad = std::max<int64_t>(data.tickPeriodNs, 1'000'000'000);
        m_dataBeginNs -= pad;
        m_dataEndNs += pad;
    }
    m_cursorNs = ticks.timestampNs.front();
}

void BudgetBreakdownView::assignColors()
{
    const bool dark = isDark(palette());
    size_t cache = 0;
    size_t reporter = 0;
    for (Layer& layer : m_layers) {
        QColor c;
        switch (layer.kind) {
        case LayerKind::Cache:
            c = QColor(QLatin1String(kCacheHues[cache++ % std::size(kCacheHues)]));
            break;
        case LayerKind::Reporter:
            c = QColor(QLatin1String(kReporterHues[reporter++ % std::size(kReporterHues)]));
            break;
        case LayerKind::Lease:
            c = QColor(QLatin1String("#9467bd"));
            break;
        case LayerKind::NonCacheOther:
            c = QColor(QLatin1String("#9d9a96"));
            break;
        case LayerKind::AllocatorRetention:
            c = QColor(QLatin1String("#d65f5f"));
            break;
        }
        layer.color = dark ? c.lighter(115) : c;
    }
}

QColor BudgetBreakdownView::lineColor(LineKind kind) const
{
    const bool dark = isDark(palette());
    switch (kind) {
    case LineKind::Target:
        return QColor(QLatin1String(dark ? "#ff6b6b" : "#b02318"));
    case LineKind::EffectiveTarget:
        return QColor(QLatin1String(dark ? "#ff9fd0" : "#a8326e"));
    case LineKind::Rss:
        return palette().color(QPalette::Text);
    case LineKind::RssSysinfo:
        return QColor(QLatin1String(dark ? "#6cd27a" : "#1f7a2e"));
    }
    return {};
}

Qt::PenStyle BudgetBreakdownView::lineStyle(LineKind kind) const
{
    switch (kind) {
    case LineKind::Target:
        return Qt::DashLine;
    case LineKind::EffectiveTarget:
        return Qt::DotLine;
    case LineKind::Rss:
        return Qt::SolidLine;
    case LineKind::RssSysinfo:
        return Qt::DashDotLine;
    }
    return Qt::SolidLine;
}

const std::vector<int64_t>* BudgetBreakdownView::lineValues(LineKind kind) const
{
    if (!m_result || !m_result->data)
        return nullptr;
    const BudgetTicks& t = m_result->data->ticks;
    switch (kind) {
    case LineKind::Target:
        return &t.targetBytes;
    case LineKind::EffectiveTarget:
        return &t.effectiveTargetBytes;
    case LineKind::Rss:
        return &t.rssBytes;
    case LineKind::RssSysinfo:
        return &t.rssSysinfoBytes;
    }
    return nullptr;
}

int64_t BudgetBreakdownView::stackedTotal(size_t tick) const
{
    return tick < m_stackTop.size() ? m_stackTop[tick] : 0;
}

std::vector<BudgetBreakdownView::LegendEntry> BudgetBreakdownView::legendEntries() const
{
    std::vector<LegendEntry> entries;
    for (const Layer& layer : m_layers)
        entries.push_back({layer.name, layer.color, true, Qt::SolidLine, false});
    for (LineKind kind : {LineKind::Rss, LineKind::RssSysinfo, LineKind::Target, LineKind::EffectiveTarget})
        entries.push_back({lineName(kind), lineColor(kind), false, lineStyle(kind), false});
    if (m_result && m_result->data && !m_result->data->gaps.empty())
        entries.push_back({tr("Not logged"), palette().color(QPalette::Text), true, Qt::NoPen, true});
    return entries;
}

int BudgetBreakdownView::legendHeight(int width) const
{
    const QFontMetrics fm = fontMetrics();
    int x = kMargin;
    int rows = 1;
    for (const LegendEntry& e : legendEntries()) {
        const int w = kSwatch + 6 + fm.horizontalAdvance(e.name) + 16;
        if (x + w > width - kMargin && x > kMargin) {
            ++rows;
            x = kMargin;
        }
        x += w;
    }
    return rows * (fm.height() + 4) + 4;
}

int BudgetBreakdownView::axisLabelWidth() const
{
    return fontMetrics().horizontalAdvance(QStringLiteral("1023.75 MiB")) + 8;
}

QRectF BudgetBreakdownView::plotRect() const
{
    const QFontMetrics fm = fontMetrics();
    const double left = kMargin + axisLabelWidth();
    const double top = kMargin + legendHeight(width());
    const double right = width() - kMargin - 4;
    const double bottom = height() - kMargin - fm.height() - 6;
    return QRectF(QPointF(left, top), QPointF(std::max(right, left + 1), std::max(bottom, top + 1)));
}

double BudgetBreakdownView::xOfTime(qint64 ns) const
{
    const QRectF plot = plotRect();
    return TimeAxis{m_viewBeginNs, std::max(m_viewEndNs, m_viewBeginNs + 1), plot.left(), plot.right()}
        .toPixel(ns);
}

qint64 BudgetBreakdownView::timeOfX(double x) const
{
    const QRectF plot = plotRect();
    return TimeAxis{m_viewBeginNs, std::max(m_viewEndNs, m_viewBeginNs + 1), plot.left(), plot.right()}.toNs(
        x);
}

double BudgetBreakdownView::yMax() const
{
    // the top on a tick: the axis ends with a label
    const double top = std::max(m_yMax, 1.0) * 1.04;
    const double step = ByteAxis::forRange(0, top, 6).step;
    return std::ceil(top / step) * step;
}

void BudgetBreakdownView::setRange(qint64 beginNs, qint64 endNs, bool notify)
{
    if (endNs < beginNs)
        std::swap(beginNs, endNs);
    const int64_t period = m_result && m_result->data ? m_result->data->tickPeriodNs : 0;
    TimeAxis axis{beginNs, endNs, 0, 1};
    axis = axis.clampedTo(m_dataBeginNs, m_dataEndNs, std::max<int64_t>(2 * period, 1000));
    if (axis.beginNs == m_viewBeginNs && axis.endNs == m_viewEndNs)
        return;
    m_viewBeginNs = axis.beginNs;
    m_viewEndNs = axis.endNs;
    update();
    if (notify)
        emit visibleRangeChanged(m_viewBeginNs, m_viewEndNs);
}

void BudgetBreakdownView::setVisibleRange(qint64 beginNs, qint64 endNs)
{
    setRange(beginNs, endNs, true);
}

void BudgetBreakdownView::resetZoom()
{
    setRange(m_dataBeginNs, m_dataEndNs, true);
}

void BudgetBreakdownView::setCursorTime(qint64 ns)
{
    if (ns == m_cursorNs)
        return;
    m_cursorNs = ns;
    update();
}

std::vector<size_t> BudgetBreakdownView::ticksToDraw(size_t first, size_t last, int columns) const
{
    std::vector<size_t> out;
    if (last < first)
        return out;
    const size_t count = last - first + 1;
    if (count <= size_t(std::max(columns, 1)) * 2) {
        out.resize(count);
        std::iota(out.begin(), out.end(), first);
        return out;
    }
    // per pixel column the earliest min and max of the stack top (model/Decimation): the layers
    // add up to rss, so this is the rss envelope too, and every series gets at most two points
    // a column
    const auto& times = m_result->data->ticks.timestampNs;
    std::vector<uint32_t> rows(count);
    std::iota(rows.begin(), rows.end(), uint32_t(first));
    const RowSpan span{0, count};
    const int64_t begin = times[first];
    const int64_t end = times[last];
    const std::vector<uint32_t> kept = decimateMinMax(times, rows, span, begin, end, columns,
                                                      [&](uint32_t row) { return double(m_stackTop[row]); });
    out.reserve(kept.size());
    for (uint32_t pos : kept)
        out.push_back(rows[pos]);
    return out;
}

void BudgetBreakdownView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const ChartColors colors = chartColors(pal);
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm = fontMetrics();
    const QRectF plot = plotRect();
    m_drawnTicks = 0;

    if (!m_result || !m_result->data || m_result->data->ticks.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   m_result ? tr("The log holds no ticks") : tr("No budget log loaded"));
        return;
    }
    const BudgetData& data = *m_result->data;
    const BudgetTicks& ticks = data.ticks;
    const double top = yMax();
    const auto yOf = [&](double bytes) { return plot.bottom() - bytes / top * plot.height(); };
    const TimeAxis axis{m_viewBeginNs, std::max(m_viewEndNs, m_viewBeginNs + 1), plot.left(), plot.right()};
    const int64_t origin = ticks.timestampNs.front();

    // grid and axes
    // 1-2-5 steps in one unit: no "512 MiB" among GiB labels
    const ByteAxis yAxis = ByteAxis::forRange(0, top, std::max(2, int(plot.height() / (fm.height() * 2.5))));
    p.setFont(font());
    drawByteGrid(p, yAxis, plot, kMargin, yOf, colors);
    const int maxTimeTicks =
        std::max(2, int(plot.width() / (fm.horizontalAdvance(QStringLiteral("00 min 00 s")) + 24)));
    const int64_t tStep = niceTimeStepNs(axis.spanNs(), maxTimeTicks);
    for (int64_t t : timeTicksNs(axis.beginNs, axis.endNs, origin, tStep)) {
        const double x = axis.toPixel(t);
        p.setPen(QPen(colors.grid, 1));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(colors.text);
        const QString label = formatTimeTick(t - origin, tStep);
        const double w = fm.horizontalAdvance(label);
        p.drawText(QRectF(std::clamp(x - w / 2, plot.left() - 10, plot.right() - w), plot.bottom() + 3, w + 2,
                          fm.height()),
                   Qt::AlignCenter, label);
    }

    p.save();
    p.setClipRect(plot.adjusted(0, -1, 1, 1));

    // ticks not logged: hatched, never drawn as zero
    const double halfPeriodPx =
        data.tickPeriodNs > 0
            ? std::max(1.0, double(data.tickPeriodNs) / std::max(axis.nsPerPixel(), 1e-9) / 2)
            : 2.0;
    QColor hatch = colors.text;
    hatch.setAlpha(colors.dark ? 70 : 55);
    for (const TickGap& gap : data.gaps) {
        const double x0 = axis.toPixel(gap.startNs);
        const double x1 = axis.toPixel(gap.endNs);
        if (x1 < plot.left() || x0 > plot.right())
            continue;
        const QRectF band(QPointF(x0, plot.top()), QPointF(x1, plot.bottom()));
        p.fillRect(band, QBrush(hatch, Qt::BDiagPattern));
        const QString text = ticksNotLoggedText(gap.missingTicks);
        if (fm.horizontalAdvance(text) + 8 < band.width()) {
            p.setPen(colors.text);
            p.drawText(band.adjusted(0, 4, 0, 0), Qt::AlignHCenter | Qt::AlignTop, text);
        }
    }

    // the visible ticks, with one neighbour each side so areas reach the edges
    const auto& times = ticks.timestampNs;
    const size_t n = ticks.size();
    size_t firstVisible = size_t(std::lower_bound(times.begin(), times.end(), axis.beginNs) - times.begin());
    size_t lastVisible = size_t(std::upper_bound(times.begin(), times.end(), axis.endNs) - times.begin());
    firstVisible = firstVisible > 0 ? firstVisible - 1 : 0;
    lastVisible = std::min(lastVisible, n - 1);
    const int columns = std::max(1, int(plot.width()));

    for (const auto& [segFirst, segLast] : m_segments) {
        const size_t first = std::max(segFirst, firstVisible);
        const size_t last = std::min(segLast, lastVisible);
        if (first > last)
            continue;
        const std::vector<size_t> drawn = ticksToDraw(first, last, columns);
        m_drawnTicks += drawn.size();
        // a lone tick gets the width of its tick period so it stays visible
        const bool lone = drawn.size() == 1;
        std::vector<double> xs;
        xs.reserve(drawn.size());
        for (size_t tick : drawn)
            xs.push_back(axis.toPixel(times[tick]));
        std::vector<double> below(drawn.size(), 0.0);
        for (const Layer& layer : m_layers) {
            QPolygonF polygon;
            bool any = false;
            for (size_t i = 0; i < drawn.size(); ++i) {
                const double upper = below[i] + double(layer.bytes[drawn[i]]);
                any = any || layer.bytes[drawn[i]] > 0;
                if (lone) {
                    polygon << QPointF(xs[i] - halfPeriodPx, yOf(upper))
                            << QPointF(xs[i] + halfPeriodPx, yOf(upper));
                } else {
                    polygon << QPointF(xs[i], yOf(upper));
                }
            }
            for (size_t i = drawn.size(); i-- > 0;) {
                if (lone) {
                    polygon << QPointF(xs[i] + halfPeriodPx, yOf(below[i]))
                            << QPointF(xs[i] - halfPeriodPx, yOf(below[i]));
                } else {
                    polygon << QPointF(xs[i], yOf(below[i]));
                }
                below[i] += double(layer.bytes[drawn[i]]);
            }
            if (!any)
                continue;
            QColor fill = layer.color;
            fill.setAlpha(colors.dark ? 190 : 210);
            p.setPen(QPen(layer.color.darker(colors.dark ? 100 : 125), 0.8));
            p.setBrush(fill);
            p.drawPolygon(polygon);
        }
        for (LineKind kind :
             {LineKind::Target, LineKind::EffectiveTarget, LineKind::RssSysinfo, LineKind::Rss}) {
            const std::vector<int64_t>& values = *lineValues(kind);
            QPolygonF line;
            for (size_t i = 0; i < drawn.size(); ++i) {
                if (lone)
                    line << QPointF(xs[i] - halfPeriodPx, yOf(double(values[drawn[i]])));
                line << QPointF(xs[i] + (lone ? halfPeriodPx : 0), yOf(double(values[drawn[i]])));
            }
            QPen pen(lineColor(kind), kind == LineKind::Rss ? 2.0 : 1.6, lineStyle(kind));
            pen.setCapStyle(Qt::FlatCap);
            p.setPen(pen);
            p.setBrush(Qt::NoBrush);
            p.drawPolyline(line);
        }
    }

    // a window analysis: the ticks outside it are dimmed
    if (m_result->window && m_result->firstTick < m_result->lastTick) {
        QColor dim = pal.color(QPalette::Base);
        dim.setAlpha(150);
        const double x0 = axis.toPixel(times[m_result->firstTick]);
        const double x1 = axis.toPixel(times[m_result->lastTick - 1]);
        p.fillRect(QRectF(QPointF(plot.left(), plot.top()), QPointF(x0, plot.bottom())), dim);
        p.fillRect(QRectF(QPointF(x1, plot.top()), QPointF(plot.right(), plot.bottom())), dim);
        p.setPen(QPen(colors.cursor, 1, Qt::DashLine));
        p.drawLine(QPointF(x0, plot.top()), QPointF(x0, plot.bottom()));
        p.drawLine(QPointF(x1, plot.top()), QPointF(x1, plot.bottom()));
    }

    // cursor
    {
        const double x = axis.toPixel(m_cursorNs);
        p.setPen(QPen(colors.cursor, 1.5));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    // Shift+drag selection
    if (m_selecting && m_pressPos && m_selectionEnd) {
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlpha(60);
        const QRectF sel(QPointF(std::min(m_pressPos->x(), m_selectionEnd->x()), plot.top()),
                         QPointF(std::max(m_pressPos->x(), m_selectionEnd->x()), plot.bottom()));
        p.fillRect(sel, fill);
        p.setPen(QPen(pal.color(QPalette::Highlight), 1));
        p.drawRect(sel);
    }
    p.restore();

    // crosshair at the mouse, with its value on the byte axis
    if (m_hover && plot.contains(*m_hover) && !m_panning) {
        QColor cross = colors.text;
        cross.setAlpha(110);
        p.setPen(QPen(cross, 1, Qt::DashLine));
        p.drawLine(QPointF(m_hover->x(), plot.top()), QPointF(m_hover->x(), plot.bottom()));
        p.drawLine(QPointF(plot.left(), m_hover->y()), QPointF(plot.right(), m_hover->y()));
        const double bytes = (plot.bottom() - m_hover->y()) / plot.height() * top;
        const QString label = bytesText(bytes);
        const QRectF box(kMargin, m_hover->y() - fm.height() / 2.0 - 1, plot.left() - kMargin - 2,
                         fm.height() + 2);
        p.fillRect(box, pal.color(QPalette::ToolTipBase));
        p.setPen(pal.color(QPalette::ToolTipText));
        p.drawText(box.adjusted(0, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, label);
    }

    // frame and legend
    p.setPen(QPen(colors.grid.darker(), 1));
    p.setBrush(Qt::NoBrush);
    QColor frame = colors.text;
    frame.setAlpha(90);
    p.setPen(QPen(frame, 1));
    p.drawRect(plot);
    int x = kMargin;
    int y = kMargin;
    for (const LegendEntry& e : legendEntries()) {
        const int w = kSwatch + 6 + fm.horizontalAdvance(e.name) + 16;
        if (x + w > width() - kMargin && x > kMargin) {
            x = kMargin;
            y += fm.height() + 4;
        }
        const QRectF swatch(x, y + (fm.height() - kSwatch) / 2.0, kSwatch, kSwatch);
        if (e.hatched) {
            p.fillRect(swatch, QBrush(hatch, Qt::BDiagPattern));
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(frame, 1));
            p.drawRect(swatch);
        } else if (e.area) {
            p.setPen(QPen(e.color.darker(125), 0.8));
            p.setBrush(e.color);
            p.drawRect(swatch);
        } else {
            QPen pen(e.color, 2, e.style);
            pen.setCapStyle(Qt::FlatCap);
            p.setPen(pen);
            p.drawLine(QPointF(swatch.left() - 2, swatch.center().y()),
                       QPointF(swatch.right() + 2, swatch.center().y()));
        }
        p.setPen(colors.text);
        p.drawText(QPointF(x + kSwatch + 6, y + fm.ascent()), e.name);
        x += w;
    }
}

const TickGap* BudgetBreakdownView::gapAtX(double x) const
{
    if (!m_result || !m_result->data)
        return nullptr;
    const qint64 ns = timeOfX(x);
    for (const TickGap& gap : m_result->data->gaps)
        if (ns > gap.startNs && ns < gap.endNs) {
            // the half periods next to the logged ticks still belong to them
            const int64_t half = m_result->data->tickPeriodNs / 2;
            if (ns > gap.startNs + half && ns < gap.endNs - half)
                return &gap;
        }
    return nullptr;
}

QString BudgetBreakdownView::gapToolTip(const TickGap& gap) const
{
    const int64_t origin = m_result ? m_result->originNs() : 0;
    return QStringLiteral("<b>%1</b><br/>%2")
        .arg(htmlEscape(ticksNotLoggedText(gap.missingTicks)),
             htmlEscape(
                 tr("between %1 and %2 (held ticks of an INFO capture or lost lines; not zero)")
                     .arg(formatRelativeTime(gap.startNs, origin), formatRelativeTime(gap.endNs, origin))));
}

QString BudgetBreakdownView::tickToolTip(size_t tick) const
{
    if (!m_result || !m_result->data || tick >= m_result->data->ticks.size())
        return {};
    const BudgetTicks& t = m_result->data->ticks;
    const BudgetBuckets& b = m_result->buckets;
    const double rss = double(t.rssBytes[tick]);
    QString html = QStringLiteral("<b>%1</b> &nbsp;%2<table cellspacing='0' cellpadding='1'>")
                       .arg(htmlEscape(formatRelativeTime(t.timestampNs[tick], m_result->originNs())),
                            htmlEscape(tr("verdict %1").arg(shownText(qs(t.labelOf(tick))))));
    const auto row = [&](const QString& name, double bytes, const QColor& color = {}) {
        const QString swatch = color.isValid()
                                   ? QStringLiteral("<span style='color:%1'>■</span> ").arg(color.name())
                                   : QString();
        html += QStringLiteral("<tr><td>%1%2&nbsp;</td><td align='right'>%3</td>"
                               "<td align='right'>&nbsp;&nbsp;%4</td></tr>")
                    .arg(swatch, htmlEscape(name), htmlEscape(bytesText(bytes)),
                         htmlEscape(shareText(bytes, rss)));
    };
    for (auto it = m_layers.rbegin(); it != m_layers.rend(); ++it)
        row(it->name, double(it->bytes[tick]), it->color);
    html += QStringLiteral("<tr><td colspan='3'><hr/></td></tr>");
    row(lineName(LineKind::Rss), rss);
    row(lineName(LineKind::RssSysinfo), double(t.rssSysinfoBytes[tick]));
    row(lineName(LineKind::Target), double(t.targetBytes[tick]));
    row(lineName(LineKind::EffectiveTarget), double(t.effectiveTargetBytes[tick]));
    row(tr("Cache"), double(b.cache[tick]));
    row(tr("Caps after"), double(b.capsAfter[tick]));
    row(tr("Non-cache"), double(b.nonCache[tick]));
    row(tr("Non-cache live"), double(b.nonCacheLive[tick]));
    row(tr("OS − allocator gap"), double(b.osGap[tick]));
    if (t.hasJemalloc(tick)) {
        row(tr("jemalloc allocated"), double(t.jeAllocatedBytes[tick]));
        row(tr("jemalloc active"), double(t.jeActiveBytes[tick]));
        row(tr("jemalloc metadata"), double(t.jeMetadataBytes[tick]));
        row(tr("jemalloc resident"), double(t.jeResidentBytes[tick]));
        row(tr("jemalloc mapped"), double(t.jeMappedBytes[tick]));
        row(tr("jemalloc retained"), double(t.jeRetainedBytes[tick]));
    }
    html += QStringLiteral("</table>");
    return html;
}

bool BudgetBreakdownView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QRectF plot = plotRect();
        if (!m_result || !m_result->data || m_result->data->ticks.empty() || !plot.contains(help->pos())) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        if (const TickGap* gap = gapAtX(help->pos().x())) {
            QToolTip::showText(help->globalPos(), gapToolTip(*gap), this);
            return true;
        }
        if (const auto tick = nearestBudgetTick(m_result->data->ticks, timeOfX(help->pos().x())))
            QToolTip::showText(help->globalPos(), tickToolTip(*tick), this);
        return true;
    }
    return QWidget::event(e);
}

void BudgetBreakdownView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    m_pressPos = event->position();
    m_pressBeginNs = m_viewBeginNs;
    m_pressEndNs = m_viewEndNs;
    m_selecting = event->modifiers().testFlag(Qt::ShiftModifier);
    m_panning = false;
    m_selectionEnd = event->position();
}

void BudgetBreakdownView::mouseMoveEvent(QMouseEvent* event)
{
    m_hover = event->position();
    if (m_pressPos && (event->buttons() & Qt::LeftButton)) {
        const double dx = event->position().x() - m_pressPos->x();
        if (m_selecting) {
            m_selectionEnd = event->position();
        } else if (m_panning || std::abs(dx) >= QApplication::startDragDistance()) {
            m_panning = true;
            const QRectF plot = plotRect();
            const TimeAxis moved =
                RangeNavigation::afterDrag(TimeAxis{m_pressBeginNs, m_pressEndNs, plot.left(), plot.right()},
                                           m_pressPos->x(), event->position().x());
            setRange(moved.beginNs, moved.endNs, true);
            setCursor(Qt::ClosedHandCursor);
        }
    }
    update();
}

void BudgetBreakdownView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !m_pressPos) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    const QPointF press = *m_pressPos;
    m_pressPos.reset();
    unsetCursor();
    if (m_selecting) {
        m_selecting = false;
        update();
        if (std::abs(event->position().x() - press.x()) >= 3) {
            const qint64 a = timeOfX(std::min(press.x(), event->position().x()));
            const qint64 b = timeOfX(std::max(press.x(), event->position().x()));
            emit rangeSelected(a, b);
        }
        return;
    }
    if (m_panning) {
        m_panning = false;
        return;
    }
    if (m_result && m_result->data && plotRect().contains(press))
        if (const auto tick = nearestBudgetTick(m_result->data->ticks, timeOfX(press.x())))
            emit cursorRequested(m_result->data->ticks.timestampNs[*tick]);
}

void BudgetBreakdownView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const QRectF plot = plotRect();
    emit plotMarginsChanged(int(std::lround(plot.left())), int(std::lround(width() - plot.right())));
}

void BudgetBreakdownView::leaveEvent(QEvent* event)
{
    m_hover.reset();
    update();
    QWidget::leaveEvent(event);
}

void BudgetBreakdownView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        assignColors();
        update();
    }
    QWidget::changeEvent(event);
}

} // namespace gapscope
