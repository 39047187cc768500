#pragma once
// A chart widget as an image for reports and "Save Chart As...": PNG and SVG at an exact pixel
// size, drawn off screen in the light palette. Needs a QApplication (the headless CLI runs one
// on the offscreen platform). Which charts are built for export is widgets/export/ChartExport.

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

class QWidget;

namespace gapscope {

inline constexpr QSize kDefaultChartSize{1200, 600};

// Not shown on screen, the light palette (so images look the same whatever the desktop theme),
// at size: what every chart built for export is given first.
void prepareForExport(QWidget* widget, QSize size);
// Resized to size, with the layout that resize and queued updates cause done: charts lay out on
// resize/show events and queued updates, so they run before the chart is drawn.
void layOutChart(QWidget* widget, QSize size);

// The widget drawn into an image of exactly size * scale pixels (the widget is resized to
// size first; scale > 1 gives a sharper image of the same layout, e.g. for PDF).
QImage renderChartImage(QWidget* chart, QSize size, qreal scale = 1.0);
// PNG bytes of renderChartImage at scale 1.
QByteArray chartPng(QWidget* chart, QSize size);
// SVG document whose <svg> width/height are size in px (viewBox 0 0 w h); title is the
// document <title>: plain text of our own, never trace data.
QByteArray chartSvg(QWidget* chart, QSize size, const QString& title);

} // namespace gapscope
