// Build tool: renders the application icon (resources/gapscope.svg) as the PNG sizes of the
// hicolor icon theme, so the installed icons always follow the SVG.
//   gapscope_render_icon SVG OUTDIR SIZE...  ->  OUTDIR/SIZExSIZE/apps/gapscope.png
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fputs("usage: gapscope_render_icon SVG OUTDIR SIZE...\n", stderr);
        return 2;
    }
    // QImage and QSvgRenderer draw without an application object: no platform, no display
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    if (!svg.isValid()) {
        std::fprintf(stderr, "gapscope_render_icon: cannot read %s\n", argv[1]);
        return 1;
    }
    const QString outDir = QString::fromLocal8Bit(argv[2]);
    for (int i = 3; i < argc; ++i) {
        bool ok = false;
        const int size = QByteArray(argv[i]).toInt(&ok);
        if (!ok || size <= 0 || size > 1024) {
            std::fprintf(stderr, "gapscope_render_icon: bad size %s\n", argv[i]);
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(outDir).arg(size);
        if (!QDir().mkpath(dir) || !image.save(dir + QStringLiteral("/gapscope.png"))) {
            std::fprintf(stderr, "gapscope_render_icon: cannot write %s\n", qPrintable(dir));
            return 1;
        }
    }
    return 0;
}
