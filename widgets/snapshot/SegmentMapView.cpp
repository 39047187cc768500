#include "widgets/snapshot/SegmentMapView.h"

#include "model/text/Text.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPen>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kMargin = 8;
constexpr int kRowGap = 3;
constexpr int kMinBarWidth = 3;

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// The outline of the highlighted blocks: apart from the three block colours in either palette.
QColor highlightColor(const QPalette& palette)
{
    return QColor(QLatin1String(isDark(palette) ? "#ffd166" : "#d6336c"));
}

int barHeight(const QFontMetrics& metrics)
{
    return metrics.height() + 4;
}

int headingHeight(const QFontMetrics& metrics)
{
    return metrics.height() + 12;
}

} // namespace

SegmentMapView::SegmentMapView(QWidget* parent) : QAbstractScrollArea(parent)
{
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Base);
    viewport()->setAutoFillBackground(true);
}

QSize SegmentMapView::sizeHint() const
{
    return {640, 360};
}

QColor SegmentMapView::stateColor(BlockState state, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (state) {
    case BlockState::ActiveAllocated:
        return QColor(QLatin1String(dark ? "#5b9bf0" : "#3874cb"));
    case BlockState::ActivePendingFree:
        return QColor(QLatin1String(dark ? "#f0a24a" : "#d9822b"));
    case BlockState::Inactive:
        return QColor(QLatin1String(dark ? "#4a4f57" : "#d5d9de"));
    case BlockState::Unknown:
        break;
    }
    return QColor(QLatin1String(dark ? "#c792ea" : "#9a5fb5"));
}

void SegmentMapView::setSnapshot(std::shared_ptr<const SnapshotData> data)
{
    m_data = std::move(data);
    m_highlighted.clear();
    m_highlightedBlocks.clear();
    relayout();
}

void SegmentMapView::setFitToSize(bool fit)
{
    if (fit == m_fit)
        return;
    m_fit = fit;
    setVerticalScrollBarPolicy(fit ? Qt::ScrollBarAlwaysOff : Qt::ScrollBarAsNeeded);
    relayout();
}

bool SegmentMapView::isHighlighted(const SnapshotBlock& block) const
{
    return block.state != BlockState::Inactive &&
           std::binary_search(m_highlighted.begin(), m_highlighted.end(), block.frames);
}

void SegmentMapView::setHighlightedFrames(std::vector<FrameStackId> stacks)
{
    std::sort(stacks.begin(), stacks.end());
    stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
    m_highlighted = std::move(stacks);
    m_highlightedBlocks.clear();
    if (m_data && !m_highlighted.empty()) {
        for (uint32_t i = 0; i < m_data->blocks.size(); ++i)
            if (isHighlighted(m_data->blocks[i]))
                m_highlightedBlocks.push_back(i);
    }
    // the first highlighted bar in layout order, unless one is in view already
    int first = -1;
    const int top = verticalScrollBar()->value();
    const int bottom = top + viewport()->height() - m_barHeight;
    bool inView = false;
    for (const uint32_t block : m_highlightedBlocks) {
        const int y = segmentTop(m_data->blocks[block].segment);
        if (y < 0)
            continue;
        if (y >= top && y <= bottom)
            inView = true;
        if (first < 0 || y < first)
            first = y;
    }
    if (!inView && first >= 0)
        verticalScrollBar()->setValue(std::max(0, first - headingHeight(fontMetrics())));
    viewport()->update();
}

int SegmentMapView::segmentTop(uint32_t segment) const
{
    for (const Line& line : m_lines)
        if (line.row >= 0 && m_layout.rows[size_t(line.row)] == segment)
            return line.y;
    return -1;
}

void SegmentMapView::setOrder(SegmentOrder order)
{
    if (order == m_order)
        return;
    m_order = order;
    relayout();
}

void SegmentMapView::relayout()
{
    m_layout = m_data ? layoutSegmentMap(*m_data, m_order) : SegmentMapLayout{};
    const QFontMetrics metrics = fontMetrics();
    m_labelWidth = metrics.horizontalAdvance(QStringLiteral("000.00 MiB  small")) + 12;
    m_barHeight = barHeight(metrics);
    m_rowGap = kRowGap;
    m_rowLabels = true;
    m_columns = layOutLines(m_barHeight, m_rowGap);
    if (m_fit) {
        // thinner bars until the columns the width holds take every segment (a bar of 1 px at
        // the least: past that the last columns are cut)
        const int maxColumns = std::max(1, viewport()->width() / kFitColumnWidth);
        while (m_columns > maxColumns && m_barHeight > 1) {
            --m_barHeight;
            // a pixel between bars as long as they have two: touching bars read as one block
            m_rowGap = m_barHeight >= 8 ? std::min(kRowGap, m_barHeight / 4) : m_barHeight >= 2 ? 1 : 0;
            m_columns = layOutLines(m_barHeight, m_rowGap);
        }
        m_rowLabels = m_barHeight >= metrics.height() - 2;
        if (!m_rowLabels)
            m_labelWidth = 0;
    }
    verticalScrollBar()->setSingleStep(m_barHeight + m_rowGap);
    updateScrollRange();
    viewport()->update();
}

int SegmentMapView::layOutLines(int bar, int rowGap)
{
    m_lines.clear();
    const QFontMetrics metrics = fontMetrics();
    const int heading = headingHeight(metrics);
    int y = kMargin;
    // the legend, across every column
    m_lines.push_back(Line{y, -2, -1, 0});
    y += heading;
    const int top = y;
    const int bottom = viewport()->height() - kMargin;
    int column = 0;
    int deepest = y;
    // the next line of height needs a new column when it would pass the bottom (fitted only; a
    // column takes one line at least)
    const auto place = [&](int height) {
        if (m_fit && y > top && y + height > bottom) {
            ++column;
            y = top;
        }
    };
    for (int g = 0; g < int(m_layout.groups.size()); ++g) {
        const SegmentMapGroup& group = m_layout.groups[size_t(g)];
        place(heading + bar); // a heading stays with its first bar
        m_lines.push_back(Line{y, g, -1, column});
        y += heading;
        for (uint32_t r = group.firstRow; r < group.firstRow + group.rowCount; ++r) {
            place(bar);
            m_lines.push_back(Line{y, -1, int(r), column});
            y += bar + rowGap;
            deepest = std::max(deepest, y);
        }
        deepest = std::max(deepest, y);
    }
    m_lines.push_back(Line{deepest + kMargin, -1, -1, 0}); // the end
    // columns to x: known once their count is
    const int columns = column + 1;
    const int width = std::max(1, viewport()->width() / columns);
    for (Line& line : m_lines)
        line.x *= width;
    return columns;
}

int SegmentMapView::columnWidth() const
{
    return m_fit ? std::max(1, viewport()->width() / std::max(1, m_columns)) : viewport()->width();
}

int SegmentMapView::contentHeight() const
{
    return m_lines.empty() ? 0 : m_lines.back().y;
}

void SegmentMapView::updateScrollRange()
{
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setRange(0, m_fit ? 0 : std::max(0, contentHeight() - viewport()->height()));
}

void SegmentMapView::resizeEvent(QResizeEvent* /*event*/)
{
    if (m_fit)
        relayout(); // the columns and the bars' height follow the size
    else
        updateScrollRange();
}

void SegmentMapView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        relayout();
    QAbstractScrollArea::changeEvent(event);
}

QRect SegmentMapView::barRect(const SnapshotSegment& segment, const Line& line) const
{
    const int x0 = line.x + kMargin + m_labelWidth;
    const int available = std::max(kMinBarWidth, line.x + columnWidth() - x0 - kMargin);
    const double share = m_layout.largestSegmentBytes > 0
                             ? double(segment.totalSize) / double(m_layout.largestSegmentBytes)
                             : 0;
    const int width = std::max(kMinBarWidth, int(std::lround(available * share)));
    return QRect(x0, line.y, width, m_barHeight);
}

const SegmentMapView::Line* SegmentMapView::lineAt(QPoint contentPos) const
{
    if (m_fit) {
        // columns: the last line of the point's column starting at or before it
        const Line* found = nullptr;
        const int width = columnWidth();
        for (const Line& line : m_lines)
            if (line.group != -2 && line.x <= contentPos.x() && contentPos.x() < line.x + width &&
                line.y <= contentPos.y() && (!found || line.y >= found->y))
                found = &line;
        return found;
    }
    // the last line starting at or before contentY
    const auto after = std::upper_bound(m_lines.begin(), m_lines.end(), contentPos.y(),
                                        [](int y, const Line& line) { return y < line.y; });
    if (after == m_lines.begin())
        return nullptr;
    return &*(after - 1);
}

std::optional<uint32_t> SegmentMapView::blockAt(QPoint pos) const
{
    if (!m_data)
        return std::nullopt;
    const int contentY = pos.y() + verticalScrollBar()->value();
    const Line* line = lineAt(QPoint(pos.x(), contentY));
    if (!line || line->row < 0)
        return std::nullopt;
    const uint32_t segmentIndex = m_layout.rows[size_t(line->row)];
    const SnapshotSegment& segment = m_data->segments[segmentIndex];
    const QRect bar = barRect(segment, *line);
    if (!bar.contains(pos.x(), contentY) || bar.width() <= 0)
        return std::nullopt;
    const int64_t offset = int64_t(double(pos.x() - bar.left()) / bar.width() * double(segment.totalSize));
    return blockAtOffset(*m_data, segmentIndex, std::clamp<int64_t>(offset, 0, segment.totalSize - 1));
}

bool SegmentMapView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_data) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto block = blockAt(help->pos()))
            QToolTip::showText(help->globalPos(), blockDescription(*m_data, *block), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void SegmentMapView::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(viewport());
    const QPalette& pal = palette();
    const QFontMetrics metrics = fontMetrics();
    const int top = verticalScrollBar()->value();
    const int height = viewport()->height();
    painter.translate(0, -top);
    if (!m_data) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(QRect(0, top, viewport()->width(), height), Qt::AlignCenter, tr("No snapshot"));
        return;
    }
    const QColor text = pal.color(QPalette::Text);
    const QColor muted = pal.color(QPalette::PlaceholderText);
    const QColor edge = pal.color(QPalette::Base);
    const bool highlighting = !m_highlighted.empty();
    const QColor outline = highlightColor(pal);
    // what is not highlighted fades toward the background
    const auto dimmed = [&](QColor color) {
        if (!highlighting)
            return color;
        const QColor base = pal.color(QPalette::Base);
        constexpr double kKept = 0.3;
        return QColor::fromRgbF(float(color.redF() * kKept + base.redF() * (1 - kKept)),
                                float(color.greenF() * kKept + base.greenF() * (1 - kKept)),
                                float(color.blueF() * kKept + base.blueF() * (1 - kKept)));
    };
    std::vector<QRect> outlined;
    const Line* first = m_fit ? nullptr : lineAt(QPoint(0, top));
    const size_t start = first ? size_t(first - m_lines.data()) : 0;
    const int width = columnWidth();
    const bool nameDevice =
        !m_layout.groups.empty() && m_layout.groups.front().device != m_layout.groups.back().device;
    for (size_t i = start; i + 1 < m_lines.size() && (m_fit || m_lines[i].y < top + height); ++i) {
        const Line& line = m_lines[i];
        // fitted: each line stays inside its column
        painter.setClipRect(line.group == -2 ? QRect(0, top, viewport()->width(), height)
                                             : QRect(line.x, top, width, height));
        if (line.group == -2) { // the legend
            int x = kMargin;
            const int box = metrics.height() - 4;
            const int y = line.y + (headingHeight(metrics) - box) / 2 - 2;
            for (const auto& [state, name] :
                 {std::pair{BlockState::ActiveAllocated, tr("active allocated")},
                  std::pair{BlockState::ActivePendingFree, tr("active, pending free")},
                  std::pair{BlockState::Inactive, tr("inactive (free inside a segment)")}}) {
                painter.fillRect(QRect(x, y, box, box), stateColor(state, pal));
                x += box + 5;
                painter.setPen(text);
                painter.drawText(QPoint(x, y + box - 1), name);
                x += metrics.horizontalAdvance(name) + 16;
            }
            painter.setPen(muted);
            if (highlighting) {
                painter.setPen(QPen(outline, 2));
                painter.drawRect(QRect(x, y, box, box).adjusted(1, 1, -1, -1));
                x += box + 5;
                painter.setPen(text);
                painter.drawText(
                    QPoint(x, y + box - 1),
                    englishPlural(tr("the selected site's %1 live block(s)").arg(m_highlightedBlocks.size()),
                                  qint64(m_highlightedBlocks.size())));
            } else {
                painter.drawText(QPoint(x, y + box - 1),
                                 tr("bars to one scale: the largest segment (%1) fills the width")
                                     .arg(bytesText(m_layout.largestSegmentBytes)));
            }
            continue;
        }
        if (line.group >= 0) {
            const SegmentMapGroup& group = m_layout.groups[size_t(line.group)];
            QFont bold = font();
            bold.setBold(true);
            painter.setFont(bold);
            painter.setPen(text);
            const int baseline = line.y + headingHeight(metrics) - metrics.descent() - 4;
            const QString title = segmentGroupTitle(group, nameDevice);
            painter.drawText(QPoint(line.x + kMargin, baseline), title);
            painter.setFont(font());
            painter.setPen(muted);
            const int detailX = line.x + kMargin + QFontMetrics(bold).horizontalAdvance(title) + 12;
            // elided where a column of a fitted map ends before it
            painter.drawText(
                QPoint(detailX, baseline),
                metrics.elidedText(englishPlural(tr("%1 segment(s)").arg(group.rowCount), group.rowCount) +
                                       tr(" · reserved %1 · active %2")
                                           .arg(bytesText(group.reservedBytes), bytesText(group.activeBytes)),
                                   Qt::ElideRight, std::max(0, line.x + width - kMargin - detailX)));
            continue;
        }
        const SnapshotSegment& segment = m_data->segments[m_layout.rows[size_t(line.row)]];
        const QRect bar = barRect(segment, line);
        painter.setPen(muted);
        if (m_rowLabels)
            painter.drawText(
                QRect(line.x + kMargin, line.y, m_labelWidth - 8, bar.height()),
                Qt::AlignRight | Qt::AlignVCenter,
                QStringLiteral("%1  %2").arg(bytesText(segment.totalSize),
                                             shownText(m_data->strings.text(segment.typeName), 5)));
        painter.fillRect(bar, dimmed(stateColor(BlockState::Inactive, pal)));
        for (const SnapshotBlock& block : m_data->blocksOf(segment)) {
            if (segment.totalSize <= 0 || block.address < segment.address)
                continue;
            const double begin = double(block.address - segment.address) / double(segment.totalSize);
            const double end = begin + double(block.size) / double(segment.totalSize);
            const int x0 = bar.left() + int(std::floor(begin * bar.width()));
            const int x1 = std::min(bar.right() + 1, bar.left() + int(std::ceil(end * bar.width())));
            if (x1 <= x0)
                continue;
            const QRect r(x0, bar.top(), x1 - x0, bar.height());
            const bool lit = highlighting && isHighlighted(block);
            painter.fillRect(r, lit ? stateColor(block.state, pal) : dimmed(stateColor(block.state, pal)));
            if (r.width() >= 4) // the boundary between blocks
                painter.fillRect(QRect(r.right(), r.top(), 1, r.height()), edge);
            if (lit)
                outlined.push_back(r);
        }
    }
    // the outlines last, over the neighbours' boundaries; a block too thin to see still shows one
    painter.setClipping(false);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(outline, 2));
    for (const QRect& r : outlined)
        painter.drawRect(QRect(r.left(), r.top(), std::max(r.width(), 3), r.height()).adjusted(1, 1, -1, -1));
}

} // namespace gapscope
