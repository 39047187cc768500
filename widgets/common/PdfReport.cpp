#include "widgets/common/PdfReport.h"
#include "model/text/Text.h"

#include "model/report/JsonWriter.h"
#include "model/report/ReportWriters.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextStream>
#include <QUrl>

#include <cmath>
#include <functional>

namespace gapscope {

namespace {

// Qt's rich text understands a subset of HTML 4 and CSS 2; this is the report in that subset,
// with print colours (PDFs are read on paper and in light viewers).
constexpr const char* kFg = "#1b2330";
constexpr const char* kMuted = "#5d6778";
constexpr const char* kAccent = "#2563c9";
constexpr const char* kBorder = "#dde3eb";
constexpr const char* kStripe = "#f4f6f9";

QString severityColor(Severity s)
{
    switch (s) {
    case Severity::Critical:
        return QStringLiteral("#c0352b");
    case Severity::Warning:
        return QStringLiteral("#a45c00");
    case Severity::Info:
        break;
    }
    return QString::fromLatin1(kAccent);
}

QString severityBackground(Severity s)
{
    switch (s) {
    case Severity::Critical:
        return QStringLiteral("#fdeceb");
    case Severity::Warning:
        return QStringLiteral("#fff3df");
    case Severity::Info:
        break;
    }
    return QStringLiteral("#e7effc");
}

// A notice in the colours of the finding severity of the same name.
Severity findingSeverityOf(NoticeSeverity s)
{
    switch (s) {
    case NoticeSeverity::Critical:
        return Severity::Critical;
    case NoticeSeverity::Warning:
        return Severity::Warning;
    case NoticeSeverity::Info:
        break;
    }
    return Severity::Info;
}

QString documentHtml(const ReportContent& c, const std::vector<PdfChart>& charts, int contentWidthPx)
{
    // The page is rich text laid out by QTextDocument: every text from the report is clipped
    // (a 1 MB phase name made the export take 86 s). The JSON report keeps the full text.
    const auto h = [](const QString& text) { return htmlEscape(shownText(text, kShownProseChars)); };
    QString out;
    QTextStream s(&out);
    s << "<html><body style=\"font-size: 9.5pt; color: " << kFg << ";\">";
    s << "<p style=\"color: " << kAccent
      << "; font-size: 8pt; font-weight: 700; letter-spacing: 1px; margin: 0;\">GAPSCOPE</p>";
    s << "<h1 style=\"font-size: 18pt; font-weight: 600; margin-top: 2px; margin-bottom: 2px;\">"
      << (c.kind == ReportKind::BudgetLog ? "Memory budget report" : "Hidden-memory report") << "</h1>";
    s << "<p style=\"color: " << kMuted << "; font-family: monospace; font-size: 8.5pt; margin-top: 0;\">"
      << h(c.path) << "</p>";

    // what the input cannot show, before any figure of it
    for (const Notice& n : reportNotices(c)) {
        const Severity tint = findingSeverityOf(n.severity);
        s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"8\" style=\"margin-top: 6px;\"><tr>"
          << "<td width=\"4\" bgcolor=\"" << severityColor(tint) << "\"></td><td bgcolor=\""
          << severityBackground(tint) << "\"><span style=\"color: " << severityColor(tint)
          << "; font-size: 7.5pt; font-weight: 700;\">" << h(qs(toString(n.severity)).toUpper())
          << "</span> <b>" << h(qs(n.title)) << ".</b><br/>" << h(qs(n.message))
          << " <span style=\"color: " << kMuted << "; font-family: monospace; font-size: 8pt;\">"
          << h(qs(n.code)) << "</span></td></tr></table>";
    }

    // summary figures as one row of cells
    const auto figures = reportSummaryFigures(c);
    s << "<table width=\"100%\" cellspacing=\"6\" cellpadding=\"6\" style=\"margin-top: 6px;\"><tr>";
    for (const auto& f : figures) {
        s << "<td bgcolor=\"" << kStripe << "\" width=\"" << (100 / int(figures.size())) << "%\">"
          << "<span style=\"color: " << kMuted << "; font-size: 7pt;\">" << h(f.label.toUpper())
          << "</span><br/>"
          << "<span style=\"font-size: 13pt; font-weight: 600;\">" << h(f.value) << "</span><br/>"
          << "<span style=\"color: " << kMuted << "; font-size: 7.5pt;\">" << h(f.detail) << "</span></td>";
    }
    s << "</tr></table>";

    auto heading = [&](const char* title) {
        s << "<h2 style=\"font-size: 12pt; font-weight: 600; margin-top: 14px; margin-bottom: 4px;\">"
          << title << "</h2>";
    };
    auto tableStart = [&]() {
        s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"4\" style=\"border-collapse: collapse; "
             "border-color: "
          << kBorder << "; border-style: solid;\" border=\"0.5\">";
    };

    heading("Input");
    tableStart();
    for (const auto& [label, value] : reportInputRows(c))
        s << "<tr><td width=\"22%\" bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << ";\">"
          << h(label) << "</td><td>" << h(value) << "</td></tr>";
    s << "</table>";

    const auto reportTable = [&](const ReportTable& table) {
        tableStart();
        s << "<tr>";
        for (const QString& title : table.header)
            s << "<td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << "; font-weight: 600;\">"
              << h(title) << "</td>";
        s << "</tr>";
        for (const QStringList& row : table.rows) {
            s << "<tr>";
            for (const QString& cell : row)
                s << "<td>" << h(cell) << "</td>";
            s << "</tr>";
        }
        s << "</table>";
    };
    if (c.job) {
        heading("Ranks");
        s << "<p style=\"margin-top: 0;\">" << h(reportJobSummary(*c.job)) << ".</p>";
        reportTable(reportRankTable(c));
        // the cross-rank analyses, gapscope's rank divergence and the job's notes, as the other
        // reports list them
        for (const ReportJobSection& section : reportJobSections(c)) {
            s << "<h3 style=\"font-size: 10pt; font-weight: 600; margin-top: 10px; margin-bottom: 2px;\">"
              << h(section.title) << "</h3>";
            if (!section.intro.isEmpty())
                s << "<p style=\"margin-top: 0;\">" << h(section.intro) << "</p>";
            if (section.table.rows.empty())
                s << "<p style=\"color: " << kMuted << ";\">" << h(section.empty) << "</p>";
            else
                reportTable(section.table);
            if (!section.trailer.isEmpty())
                s << "<p>" << h(section.trailer) << "</p>";
        }
    }

    if (!charts.empty()) {
        heading("Charts");
        for (size_t i = 0; i < charts.size(); ++i) {
            const QImage& image = charts[i].image;
            const int height =
                image.isNull() ? 0 : contentWidthPx * image.height() / std::max(1, image.width());
            s << "<p style=\"margin-bottom: 2px;\"><img src=\"chart:" << i << "\" width=\"" << contentWidthPx
              << "\" height=\"" << height << "\" /></p>";
            s << "<p style=\"color: " << kMuted << "; font-size: 8pt; margin-top: 0;\"><b>"
              << h(charts[i].title) << ".</b> " << h(charts[i].caption) << "</p>";
        }
    }

    if (c.job)
        heading(qPrintable(QStringLiteral("Findings of rank %1").arg(c.rank)));
    else
        heading("Findings");
    if (c.findings.empty())
        s << "<p style=\"color: " << kMuted << ";\">" << h(reportNoFindingsText(c)) << "</p>";
    int index = 1;
    for (const ReportFinding& f : c.findings) {
        const QString color = severityColor(f.severity);
        s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"8\" style=\"margin-top: 8px;\"><tr>"
          << "<td width=\"4\" bgcolor=\"" << color << "\"></td><td bgcolor=\"#fbfcfd\">";
        s << "<p style=\"margin: 0;\"><span style=\"background-color: " << severityBackground(f.severity)
          << "; color: " << color << "; font-size: 7.5pt; font-weight: 700;\">&#160;"
          << h(qs(toString(f.severity)).toUpper())
          << "&#160;</span>&#160;&#160;<span style=\"font-size: 11pt; "
          << "font-weight: 600;\">" << index++ << ". " << h(classificationTitle(f.classification))
          << "</span>&#160;&#160;<span style=\"font-family: monospace; color: " << kMuted << ";\">"
          << h(qs(toString(f.classification))) << "</span></p>";
        s << "<p style=\"color: " << kMuted << "; font-size: 8.5pt; margin-top: 3px;\">Confidence <b>"
          << h(confidenceText(f.confidence)) << "</b>&#160;&#160;&#160; At <b>" << h(f.relativeTime)
          << "</b> (" << f.timestampNs << " ns)";
        if (!f.stepText.isEmpty())
            s << "&#160;&#160;&#160; Step <b>" << h(f.stepText) << "</b>";
        if (c.kind == ReportKind::StormlogTrace)
            s << "&#160;&#160;&#160; Phase <b>" << h(f.phaseText) << "</b>";
        s << "</p>";
        s << "<p>" << h(f.description) << "</p>";
        if (!f.shapeLines.isEmpty()) {
            s << "<p style=\"font-weight: 600; margin-top: 8px; margin-bottom: 0;\">" << h(f.shapeTitle)
              << "</p><ul style=\"margin-top: 2px;\">";
            for (const QString& line : f.shapeLines)
                s << "<li>" << h(line) << "</li>";
            s << "</ul>";
        }
        if (!f.evidence.empty()) {
            tableStart();
            s << "<tr><td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted
              << "; font-weight: 600;\">Evidence</td><td bgcolor=\"" << kStripe
              << "\" style=\"color: " << kMuted << "; font-weight: 600;\">Value</td></tr>";
            for (const auto& e : f.evidence)
                s << "<tr><td width=\"40%\" style=\"font-family: monospace;\">" << h(qs(e.key)) << "</td><td>"
                  << h(e.text) << "</td></tr>";
            s << "</table>";
        }
        if (!f.remediation.isEmpty()) {
            s << "<p style=\"font-weight: 600; margin-top: 8px; margin-bottom: 0;\">What to do</p><ol "
                 "style=\"margin-top: 2px;\">";
            for (const auto& step : f.remediation)
                s << "<li>" << h(step) << "</li>";
            s << "</ol>";
        }
        s << "</td></tr></table>";
    }

    // the same list as the Markdown and HTML reports
    if (!c.bookmarks.empty()) {
        heading("Bookmarks");
        tableStart();
        for (const ReportBookmark& b : c.bookmarks)
            s << "<tr><td width=\"22%\" bgcolor=\"" << kStripe << "\"><b>"
              << h(formatRelativeTime(b.timeNs, c.originNs)) << "</b></td><td>" << h(b.name) << "</td></tr>";
        s << "</table>";
    }

    heading("Thresholds");
    tableStart();
    for (const auto& t : c.thresholds)
        s << "<tr><td width=\"40%\" style=\"font-family: monospace;\">" << h(qs(t.name)) << "</td><td>"
          << h(QString::fromLatin1(pythonFloatRepr(t.value))) << "</td></tr>";
    s << "</table>";

    if (!c.problems.empty()) {
        heading("Load problems");
        tableStart();
        for (const auto& p : c.problems)
            s << "<tr><td width=\"10%\">" << (p.isError ? "error" : "warning")
              << "</td><td width=\"35%\" style=\"font-family: monospace;\">"
              << h(QStringLiteral("%1:%2").arg(p.file).arg(p.line)) << "</td><td>" << h(p.reason)
              << "</td></tr>";
        s << "</table>";
    }
    s << "<p style=\"color: " << kMuted
      << "; font-size: 7.5pt; margin-top: 14px;\">Times are relative to the "
      << "first event analysed (" << h(formatUtcTime(c.originNs))
      << "); byte sizes in IEC units (1 GiB = 1024&#179; bytes).</p>";
    s << "</body></html>";
    return out;
}

} // namespace

QString reportPdfHtml(const ReportContent& content, const std::vector<PdfChart>& charts, int contentWidthPx)
{
    return documentHtml(content, charts, contentWidthPx);
}

namespace {

// A chart that would cross a page break starts on the next page instead: the text layout breaks
// between lines only, and a chart is one line, so it was cut in two and drawn on both pages.
void keepChartsOnOnePage(QTextDocument& document, qreal pageHeight)
{
    QAbstractTextDocumentLayout* layout = document.documentLayout();
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        bool chart = false;
        for (auto it = block.begin(); !it.atEnd() && !chart; ++it)
            chart = it.fragment().charFormat().isImageFormat() &&
                    it.fragment().charFormat().toImageFormat().name().startsWith(QLatin1String("chart:"));
        if (!chart)
            continue;
        const QRectF box = layout->blockBoundingRect(block); // laid out again after each change above
        if (box.height() >= pageHeight ||
            std::floor(box.top() / pageHeight) == std::floor((box.bottom() - 1) / pageHeight))
            continue;
        QTextCursor cursor(block);
        QTextBlockFormat format = block.blockFormat();
        format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
        cursor.setBlockFormat(format);
    }
}

// The rich text html(contentWidthPx) printed on A4 pages with the charts as its "chart:<index>"
// images, a footer naming the input and page numbers.
QByteArray printPdf(const std::function<QString(int)>& html, const std::vector<PdfChart>& charts,
                    const QString& path, QString* error)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setResolution(300);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                         QMarginsF(16, 14, 16, 14), QPageLayout::Millimeter));
        writer.setTitle(QStringLiteral("gapscope report"));
        writer.setCreator(QStringLiteral("gapscope"));

        QPainter painter;
        if (!painter.begin(&writer)) {
            if (error)
                *error = QStringLiteral("the PDF writer could not start");
            return {};
        }
        const QRect paintRect = writer.pageLayout().paintRectPixels(writer.resolution());
        const qreal dpiScale = writer.resolution() / 96.0;
        const int footerHeight = int(10 * dpiScale * 2);

        QTextDocument document;
        document.documentLayout()->setPaintDevice(&writer);
        document.setDocumentMargin(0);
        QFont font(QStringLiteral("DejaVu Sans"));
        font.setPointSizeF(9.5);
        document.setDefaultFont(font);
        // Images are given in 96 dpi pixels; the layout scales them to the writer's dpi.
        const int contentWidthPx = int(paintRect.width() / dpiScale);
        for (size_t i = 0; i < charts.size(); ++i)
            document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart:%1").arg(i)),
                                 charts[i].image);
        document.setHtml(html(contentWidthPx));
        const QSizeF pageSize(paintRect.width(), paintRect.height() - footerHeight);
        document.setPageSize(pageSize);
        keepChartsOnOnePage(document, pageSize.height());

        const int pages = std::max(1, document.pageCount());
        QFont footerFont(QStringLiteral("DejaVu Sans"));
        footerFont.setPointSizeF(7.5);
        const QString footerLeft =
            QStringLiteral("gapscope report: %1").arg(path.section(QLatin1Char('/'), -1));
        for (int page = 0; page < pages; ++page) {
            if (page > 0)
                writer.newPage();
            painter.save();
            painter.translate(0, -page * pageSize.height());
            QAbstractTextDocumentLayout::PaintContext context;
            context.clip = QRectF(0, page * pageSize.height(), pageSize.width(), pageSize.height());
            context.palette.setColor(QPalette::Text, QColor(QString::fromLatin1(kFg)));
            document.documentLayout()->draw(&painter, context);
            painter.restore();

            const QRectF footer(0, paintRect.height() - footerHeight, paintRect.width(), footerHeight);
            painter.setPen(QPen(QColor(QString::fromLatin1(kBorder)), dpiScale));
            painter.drawLine(footer.topLeft() + QPointF(0, footerHeight * 0.3),
                             footer.topRight() + QPointF(0, footerHeight * 0.3));
            painter.setPen(QColor(QString::fromLatin1(kMuted)));
            painter.setFont(footerFont);
            const QRectF textRect = footer.adjusted(0, footerHeight * 0.35, 0, 0);
            painter.drawText(
                textRect, Qt::AlignLeft | Qt::AlignVCenter,
                painter.fontMetrics().elidedText(footerLeft, Qt::ElideMiddle, int(textRect.width() * 0.75)));
            painter.drawText(textRect, Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("Page %1 of %2").arg(page + 1).arg(pages));
        }
        painter.end();
    }
    return bytes;
}

} // namespace

QByteArray reportPdf(const ReportContent& content, const std::vector<PdfChart>& charts, QString* error)
{
    return printPdf([&](int contentWidthPx) { return reportPdfHtml(content, charts, contentWidthPx); },
                    charts, content.path, error);
}

QString snapshotReportPdfHtml(const SnapshotReportContent& c, const std::vector<PdfChart>& charts,
                              int contentWidthPx)
{
    const auto h = [](const QString& text) { return htmlEscape(shownText(text, kShownProseChars)); };
    QString out;
    QTextStream s(&out);
    s << "<html><body style=\"font-size: 9.5pt; color: " << kFg << ";\">";
    s << "<p style=\"color: " << kAccent
      << "; font-size: 8pt; font-weight: 700; letter-spacing: 1px; margin: 0;\">GAPSCOPE</p>";
    s << "<h1 style=\"font-size: 18pt; font-weight: 600; margin-top: 2px; margin-bottom: 2px;\">PyTorch "
         "memory "
         "snapshot report</h1>";
    s << "<p style=\"color: " << kMuted << "; font-family: monospace; font-size: 8.5pt; margin-top: 0;\">"
      << h(c.path) << "</p>";
    const auto heading = [&](const QString& title) {
        s << "<h2 style=\"font-size: 12pt; font-weight: 600; margin-top: 14px; margin-bottom: 4px;\">"
          << h(title) << "</h2>";
    };
    const auto tableStart = [&]() {
        s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"4\" style=\"border-collapse: collapse; "
             "border-color: "
          << kBorder << "; border-style: solid;\" border=\"0.5\">";
    };
    const auto table = [&](const ReportTable& t) {
        tableStart();
        s << "<tr>";
        for (const QString& title : t.header)
            s << "<td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << "; font-weight: 600;\">"
              << h(title) << "</td>";
        s << "</tr>";
        for (const QStringList& row : t.rows) {
            s << "<tr>";
            for (const QString& cell : row)
                s << "<td>" << h(cell) << "</td>";
            s << "</tr>";
        }
        s << "</table>";
    };
    const auto section = [&](const SnapshotReportSection& part) {
        heading(part.title);
        if (!part.intro.isEmpty())
            s << "<p style=\"margin-top: 0;\">" << h(part.intro) << "</p>";
        if (part.table.rows.empty())
            s << "<p style=\"color: " << kMuted << ";\">" << h(part.empty) << "</p>";
        else
            table(part.table);
    };

    heading(QStringLiteral("Input"));
    tableStart();
    for (const auto& [label, value] : c.input)
        s << "<tr><td width=\"22%\" bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << ";\">"
          << h(label) << "</td><td>" << h(value) << "</td></tr>";
    s << "</table>";
    section(c.totals);
    for (const SnapshotReportSection& part : c.sections)
        section(part);
    heading(QStringLiteral("Largest free block"));
    s << "<p style=\"margin-top: 0;\">" << h(c.largestFreeBlock) << "</p>";

    if (!charts.empty()) {
        heading(QStringLiteral("Segment map"));
        for (size_t i = 0; i < charts.size(); ++i) {
            const QImage& image = charts[i].image;
            const int height =
                image.isNull() ? 0 : contentWidthPx * image.height() / std::max(1, image.width());
            s << "<p style=\"margin-bottom: 2px;\"><img src=\"chart:" << i << "\" width=\"" << contentWidthPx
              << "\" height=\"" << height << "\" /></p>";
            s << "<p style=\"color: " << kMuted << "; font-size: 8pt; margin-top: 0;\"><b>"
              << h(charts[i].title) << ".</b> " << h(charts[i].caption) << "</p>";
        }
    }

    heading(QStringLiteral("Findings"));
    if (c.findings.empty())
        s << "<p style=\"color: " << kMuted << ";\">" << h(c.noFindings) << "</p>";
    for (size_t i = 0; i < c.findings.size(); ++i) {
        const ReportFinding& f = c.findings[i];
        const QString color = severityColor(f.severity);
        s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"8\" style=\"margin-top: 8px;\"><tr>"
          << "<td width=\"4\" bgcolor=\"" << color << "\"></td><td bgcolor=\"#fbfcfd\">";
        s << "<p style=\"margin: 0;\"><span style=\"background-color: " << severityBackground(f.severity)
          << "; color: " << color << "; font-size: 7.5pt; font-weight: 700;\">&#160;"
          << h(qs(toString(f.severity)).toUpper())
          << "&#160;</span>&#160;&#160;<span style=\"font-size: 11pt; "
          << "font-weight: 600;\">" << (i + 1) << ". " << h(classificationTitle(f.classification))
          << "</span>&#160;&#160;<span style=\"font-family: monospace; color: " << kMuted << ";\">"
          << h(qs(toString(f.classification))) << "</span></p>";
        s << "<p>" << h(f.description) << "</p>";
        if (!f.evidence.empty()) {
            ReportTable evidence{QStringList{QStringLiteral("Evidence"), QStringLiteral("Value")}, {}};
            for (const ReportEvidence& e : f.evidence)
                evidence.rows.push_back({qs(e.key), e.text});
            table(evidence);
        }
        if (!f.remediation.isEmpty()) {
            s << "<p style=\"font-weight: 600; margin-top: 8px; margin-bottom: 0;\">What to try</p><ol "
                 "style=\"margin-top: 2px;\">";
            for (const QString& step : f.remediation)
                s << "<li>" << h(step) << "</li>";
            s << "</ol>";
        }
        s << "</td></tr></table>";
    }
    if (!c.ignoredKeys.isEmpty()) {
        heading(QStringLiteral("Keys not read"));
        s << "<p style=\"margin-top: 0;\">Read past, not an error (what a newer PyTorch adds): "
          << h(c.ignoredKeys.join(QStringLiteral(", "))) << "</p>";
    }
    if (!c.problems.table.rows.empty()) {
        section(c.problems);
        if (c.problemsNotListed > 0)
            s << "<p>" << c.problemsNotListed << " more not listed.</p>";
    }
    s << "<p style=\"color: " << kMuted
      << "; font-size: 7.5pt; margin-top: 14px;\">Byte sizes in IEC units (1 GiB = 1024&#179; bytes).</p>";
    s << "</body></html>";
    return out;
}

QByteArray snapshotReportPdf(const SnapshotReportContent& content, const std::vector<PdfChart>& charts,
                             QString* error)
{
    return printPdf(
        [&](int contentWidthPx) { return snapshotReportPdfHtml(content, charts, contentWidthPx); }, charts,
        content.path, error);
}

} // namespace gapscope
