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

// The page is rich text laid out by QTextDocument: every text from the report is clipped (a 1 MB
// phase name made the export take 86 s). The JSON report keeps the full text.
QString shown(const QString& text)
{
    return htmlEscape(shownText(text, kShownProseChars));
}

// The brand, the title and the input's path at the top of the first page.
void writeTitle(QTextStream& s, const char* title, const QString& path)
{
    s << "<html><body style=\"font-size: 9.5pt; color: " << kFg << ";\">";
    s << "<p style=\"color: " << kAccent
      << "; font-size: 8pt; font-weight: 700; letter-spacing: 1px; margin: 0;\">GAPSCOPE</p>";
    s << "<h1 style=\"font-size: 18pt; font-weight: 600; margin-top: 2px; margin-bottom: 2px;\">" << title
      << "</h1>";
    s << "<p style=\"color: " << kMuted << "; font-family: monospace; font-size: 8.5pt; margin-top: 0;\">"
      << shown(path) << "</p>";
}

void writeHeading(QTextStream& s, const QString& title)
{
    s << "<h2 style=\"font-size: 12pt; font-weight: 600; margin-top: 14px; margin-bottom: 4px;\">"
      << shown(title) << "</h2>";
}

void writeTableStart(QTextStream& s)
{
    s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"4\" style=\"border-collapse: collapse; "
         "border-color: "
      << kBorder << "; border-style: solid;\" border=\"0.5\">";
}

// A table with its header row.
void writeTable(QTextStream& s, const ReportTable& table)
{
    writeTableStart(s);
    s << "<tr>";
    for (const QString& title : table.header)
        s << "<td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << "; font-weight: 600;\">"
          << shown(title) << "</td>";
    s << "</tr>";
    for (const QStringList& row : table.rows) {
        s << "<tr>";
        for (const QString& cell : row)
            s << "<td>" << shown(cell) << "</td>";
        s << "</tr>";
    }
    s << "</table>";
}

// The "Input" table: a label column and its values.
void writeInputTable(QTextStream& s, const std::vector<std::pair<QString, QString>>& rows)
{
    writeHeading(s, QStringLiteral("Input"));
    writeTableStart(s);
    for (const auto& [label, value] : rows)
        s << "<tr><td width=\"22%\" bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted << ";\">"
          << shown(label) << "</td><td>" << shown(value) << "</td></tr>";
    s << "</table>";
}

// The charts (as "chart:<index>" image resources) under heading, each contentWidthPx wide.
void writeCharts(QTextStream& s, const QString& heading, const std::vector<PdfChart>& charts,
                 int contentWidthPx)
{
    if (charts.empty())
        return;
    writeHeading(s, heading);
    for (size_t i = 0; i < charts.size(); ++i) {
        const QImage& image = charts[i].image;
        const int height = image.isNull() ? 0 : contentWidthPx * image.height() / std::max(1, image.width());
        s << "<p style=\"margin-bottom: 2px;\"><img src=\"chart:" << i << "\" width=\"" << contentWidthPx
          << "\" height=\"" << height << "\" /></p>";
        s << "<p style=\"color: " << kMuted << "; font-size: 8pt; margin-top: 0;\"><b>"
          << shown(charts[i].title) << ".</b> " << shown(charts[i].caption) << "</p>";
    }
}

// A finding's box up to its first line (severity, number, title, classification); the caller
// writes the rest and closes it with writeFindingEnd.
void writeFindingStart(QTextStream& s, const ReportFinding& f, int number)
{
    const QString color = severityColor(f.severity);
    s << "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"8\" style=\"margin-top: 8px;\"><tr>"
      << "<td width=\"4\" bgcolor=\"" << color << "\"></td><td bgcolor=\"#fbfcfd\">";
    s << "<p style=\"margin: 0;\"><span style=\"background-color: " << severityBackground(f.severity)
      << "; color: " << color << "; font-size: 7.5pt; font-weight: 700;\">&#160;"
      << shown(qs(toString(f.severity)).toUpper())
      << "&#160;</span>&#160;&#160;<span style=\"font-size: 11pt; "
      << "font-weight: 600;\">" << number << ". " << shown(classificationTitle(f.classification))
      << "</span>&#160;&#160;<span style=\"font-family: monospace; color: " << kMuted << ";\">"
      << shown(qs(toString(f.classification))) << "</span></p>";
}

// A finding's evidence: key (monospace) and value.
void writeEvidence(QTextStream& s, const std::vector<ReportEvidence>& evidence)
{
    if (evidence.empty())
        return;
    writeTableStart(s);
    s << "<tr><td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted
      << "; font-weight: 600;\">Evidence</td><td bgcolor=\"" << kStripe << "\" style=\"color: " << kMuted
      << "; font-weight: 600;\">Value</td></tr>";
    for (const auto& e : evidence)
        s << "<tr><td width=\"40%\" style=\"font-family: monospace;\">" << shown(qs(e.key)) << "</td><td>"
          << shown(e.text) << "</td></tr>";
    s << "</table>";
}

// A finding's remediation under title, as a numbered list; and the end of its box.
void writeFindingEnd(QTextStream& s, const QStringList& remediation, const char* title)
{
    if (!remediation.isEmpty()) {
        s << "<p style=\"font-weight: 600; margin-top: 8px; margin-bottom: 0;\">" << title
          << "</p><ol style=\"margin-top: 2px;\">";
        for (const auto& step : remediation)
            s << "<li>" << shown(step) << "</li>";
        s << "</ol>";
    }
    s << "</td></tr></table>";
}

QString documentHtml(const ReportContent& c, const std::vector<PdfChart>& charts, int contentWidthPx)
{
    const auto h = shown;
    QString out;
    QTextStream s(&out);
    writeTitle(s, c.kind == ReportKind::BudgetLog ? "Memory budget report" : "Hidden-memory report", c.path);

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

    const auto heading = [&](const char* title) { writeHeading(s, QString::fromLatin1(title)); };
    const auto tableStart = [&]() { writeTableStart(s); };
    writeInputTable(s, reportInputRows(c));
    const auto reportTable = [&](const ReportTable& table) { writeTable(s, table); };
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

    writeCharts(s, QStringLiteral("Charts"), charts, contentWidthPx);

    if (c.job)
        heading(qPrintable(QStringLiteral("Findings of rank %1").arg(c.rank)));
    else
        heading("Findings");
    if (c.findings.empty())
        s << "<p style=\"color: " << kMuted << ";\">" << h(reportNoFindingsText(c)) << "</p>";
    int index = 1;
    for (const ReportFinding& f : c.findings) {
        writeFindingStart(s, f, index++);
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
        writeEvidence(s, f.evidence);
        writeFindingEnd(s, f.remediation, "What to do");
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
    QString out;
    QTextStream s(&out);
    writeTitle(s, "PyTorch memory snapshot report", c.path);
    const auto section = [&](const SnapshotReportSection& part) {
        writeHeading(s, part.title);
        if (!part.intro.isEmpty())
            s << "<p style=\"margin-top: 0;\">" << shown(part.intro) << "</p>";
        if (part.table.rows.empty())
            s << "<p style=\"color: " << kMuted << ";\">" << shown(part.empty) << "</p>";
        else
            writeTable(s, part.table);
    };
    writeInputTable(s, c.input);
    section(c.totals);
    for (const SnapshotReportSection& part : c.sections)
        section(part);
    writeHeading(s, QStringLiteral("Largest free block"));
    s << "<p style=\"margin-top: 0;\">" << shown(c.largestFreeBlock) << "</p>";
    writeCharts(s, QStringLiteral("Segment map"), charts, contentWidthPx);

    writeHeading(s, QStringLiteral("Findings"));
    if (c.findings.empty())
        s << "<p style=\"color: " << kMuted << ";\">" << shown(c.noFindings) << "</p>";
    for (size_t i = 0; i < c.findings.size(); ++i) {
        const ReportFinding& f = c.findings[i];
        writeFindingStart(s, f, int(i + 1));
        s << "<p style=\"color: " << kMuted << "; font-size: 8.5pt; margin-top: 3px;\">Confidence <b>"
          << shown(confidenceText(f.confidence)) << "</b></p>";
        s << "<p>" << shown(f.description) << "</p>";
        writeEvidence(s, f.evidence);
        writeFindingEnd(s, f.remediation, "What to try"); // the snapshot page's words
    }
    if (!c.ignoredKeys.isEmpty()) {
        writeHeading(s, QStringLiteral("Keys not read"));
        s << "<p style=\"margin-top: 0;\">Read past, not an error (what a newer PyTorch adds): "
          << shown(c.ignoredKeys.join(QStringLiteral(", "))) << "</p>";
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
