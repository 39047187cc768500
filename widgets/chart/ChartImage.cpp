#include "widgets/chart/ChartImage.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QPainter>
#include <QRegularExpression>
#include <QStyle>
#include <QStyleFactory>
#include <QSvgGenerator>
#include <QWidget>

#include <memory>

namespace gapscope {

void layOutChart(QWidget* widget, QSize size)
{
    if (widget->size() != size)
        widget->resize(size);
    // Charts lay out on resize/show events and queued updates: let them run before drawing.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
}

void prepareForExport(QWidget* widget, QSize size)
{
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    if (fusion)
        widget->setPalette(fusion->standardPalette());
    widget->resize(size);
}

QImage renderChartImage(QWidget* chart, QSize size, qreal scale)
{
    layOutChart(chart, size);
    QImage image((QSizeF(size) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(chart->palette().color(QPalette::Window));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    chart->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    return image;
}

QByteArray chartPng(QWidget* chart, QSize size)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    renderChartImage(chart, size).convertToFormat(QImage::Format_RGB32).save(&buffer, "PNG");
    return bytes;
}

QByteArray chartSvg(QWidget* chart, QSize size, const QString& title)
{
    layOutChart(chart, size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    // Text was laid out with the widget's font metrics: font sizes must use the same dpi.
    generator.setResolution(chart->logicalDpiX());
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("Written by gapscope"));
    QPainter painter(&generator);
    painter.fillRect(QRect(QPoint(0, 0), size), chart->palette().color(QPalette::Window));
    chart->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    // QSvgGenerator gives the size in millimetres at its resolution; a chart asked for at
    // WxH pixels must say so, or browsers scale it by the generator's DPI.
    static const QRegularExpression sizeAttributes(QStringLiteral(R"(width="[^"]*"\s+height="[^"]*")"));
    const qsizetype svgStart = bytes.indexOf("<svg");
    const qsizetype svgEnd = svgStart >= 0 ? bytes.indexOf('>', svgStart) : -1;
    if (svgEnd > svgStart) {
        QString tag = QString::fromUtf8(bytes.mid(svgStart, svgEnd - svgStart));
        tag.replace(sizeAttributes,
                    QStringLiteral(R"(width="%1" height="%2")").arg(size.width()).arg(size.height()));
        bytes = bytes.left(svgStart) + tag.toUtf8() + bytes.mid(svgEnd);
    }
    // Qt names the desktop font ("Sans Serif" is no CSS family); give viewers a fallback
    // of the same kind so the text keeps its width.
    bytes.replace("font-family=\"Sans Serif\"", "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\"");
    return bytes;
}

} // namespace gapscope
