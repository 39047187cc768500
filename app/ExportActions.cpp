#include "app/ExportActions.h"

#include "app/DocumentTab.h"
#include "app/DocumentTabs.h"
#include "app/cli/CliOptions.h"
#include "app/cli/OutputFile.h"
#include "app/pages/DocumentPage.h"
#include "model/report/ReportWriters.h"
#include "widgets/export/ChartExport.h"
#include "widgets/trace/FindingDetailView.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>

#include <algorithm>

namespace gapscope {

ExportActions* ExportActions::forDocumentTabs(QWidget* window, const DocumentTabs* tabs)
{
    // the page in front says what it shows; the actions never name a page
    auto shown = [tabs] {
        return tabs->isWelcomeShown() ? PageExport{} : tabs->current()->documentPage()->pageExport();
    };
    auto* actions = new ExportActions(
        window, [shown] { return shown().trace; },
        [tabs] { return tabs->current()->documentPage()->chartWidget(); },
        [tabs] { return tabs->current()->documentPage()->detailView()->findingIndex(); });
    actions->setBudgetProvider([shown] { return shown().budget; });
    actions->setBookmarkProvider([shown] { return shown().bookmarks; });
    actions->setJobProvider([shown] { return shown().job; });
    actions->setDocumentsProvider([shown] { return shown().documents; },
                                  [tabs] { return tabs->current()->documentPage()->documentPath(); });
    actions->setSnapshotProvider([shown] { return shown().snapshot; });
    return actions;
}

ExportActions::ExportActions(QWidget* parent, ResultProvider result, ChartProvider chart,
                             FindingProvider finding)
    : QObject(parent), m_parent(parent), m_result(std::move(result)), m_chart(std::move(chart)),
      m_finding(std::move(finding))
{
    m_exportReport = new QAction(tr("&Export Report..."), this);
    m_exportReport->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportReport->setStatusTip(
        tr("Write the findings report as JSON, Markdown, HTML, PDF, CSV, PNG or SVG"));
    connect(m_exportReport, &QAction::triggered, this, &ExportActions::exportReportInteractively);

    m_saveChart = new QAction(tr("Save Chart &As..."), this);
    m_saveChart->setStatusTip(tr("Save the chart as shown as PNG or SVG, or its series as CSV"));
    connect(m_saveChart, &QAction::triggered, this, &ExportActions::saveChartInteractively);

    m_copyFinding = new QAction(tr("Copy Finding as &Markdown"), this);
    m_copyFinding->setStatusTip(tr("Copy the selected finding with its evidence and remediation"));
    connect(m_copyFinding, &QAction::triggered, this, &ExportActions::copyFinding);

    if (parent)
        parent->addActions({m_exportReport, m_saveChart, m_copyFinding});
    updateEnabled();
}

void ExportActions::setBudgetProvider(BudgetProvider budget)
{
    m_budget = std::move(budget);
    updateEnabled();
}

void ExportActions::setJobProvider(JobProvider job)
{
    m_job = std::move(job);
    updateEnabled();
}

void ExportActions::setDocumentsProvider(DocumentsProvider documents, std::function<QString()> shownPath)
{
    m_documents = std::move(documents);
    m_shownPath = std::move(shownPath);
    updateEnabled();
}

bool ExportActions::writePageDocument(const QString& file, const PageDocumentExport& document, bool replace,
                                      QString* error) const
{
    if (const QString conflict = inputConflict(file); !conflict.isEmpty()) {
        *error = conflict;
        return false;
    }
    *error = writeOutput(file, document.bytes(), replace);
    return error->isEmpty();
}

void ExportActions::setSnapshotProvider(SnapshotProvider snapshot)
{
    m_snapshot = std::move(snapshot);
    updateEnabled();
}

QString ExportActions::documentPath() const
{
    if (!hasAnalysis() && m_shownPath)
        return m_shownPath();
    if (const JobSource shown = job(); shown.job)
        return shown.path;
    if (const auto b = budget())
        return b->data->path;
    if (const SnapshotExport shown = snapshot(); shown.report.data)
        return shown.report.data->path;
    const auto result = m_result ? m_result() : nullptr;
    return result && result->trace ? result->trace->path : QString();
}

QString ExportActions::inputConflict(const QString& file) const
{
    // The CLI's check (app/cli/OutputFile): the path of the document shown, a link to it, or a
    // file in its folder (a sink) is never overwritten; replacing another file is asked about.
    const OutputStatus status = checkOutputPath(file, inputPaths(), true);
    return status.kind == OutputStatus::Kind::Refused ? status.error : QString();
}

QStringList ExportActions::inputPaths() const
{
    const JobSource shown = job();
    if (!shown.job)
        return {documentPath()};
    QStringList paths;
    for (const JobInput& input : shown.job->inputs)
        paths << input.path;
    return paths;
}

BudgetExportInput ExportActions::budgetInput() const
{
    const auto b = budget();
    return b ? budgetExportInput(*b) : BudgetExportInput{};
}

void ExportActions::updateEnabled()
{
    const bool hasResult = hasDocument();
    m_exportReport->setEnabled(hasResult);
    m_saveChart->setEnabled(hasResult);
    m_copyFinding->setEnabled(hasResult && !selectedFindingMarkdown().isEmpty());
}

QString ExportActions::nameFilter(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Json:
        return tr("JSON report (*.json)");
    case ExportFormat::Markdown:
        return tr("Markdown report (*.md)");
    case ExportFormat::Html:
        return tr("HTML report (*.html *.htm)");
    case ExportFormat::Pdf:
        return tr("PDF report (*.pdf)");
    case ExportFormat::Csv:
        return tr("CSV of the chart series (*.csv)");
    case ExportFormat::FindingsCsv:
        return tr("CSV of the findings (*.csv)");
    case ExportFormat::Png:
        return tr("PNG chart image (*.png)");
    case ExportFormat::Svg:
        return tr("SVG chart image (*.svg)");
    }
    return {};
}

std::optional<ExportFormat> ExportActions::formatForFilter(const QString& filter)
{
    for (ExportFormat format : allExportFormats())
        if (nameFilter(format) == filter)
            return format;
    return std::nullopt;
}

QString ExportActions::withSuffix(const QString& file, ExportFormat format)
{
    return QFileInfo(file).suffix().isEmpty() ? file + QLatin1Char('.') + exportFormatSuffix(format) : file;
}

ExportActions::Target ExportActions::targetFor(const QString& typed, ExportFormat filterFormat,
                                               const std::vector<ExportFormat>& offered)
{
    const QString suffix = QFileInfo(typed).suffix();
    auto isOffered = [&](ExportFormat format) {
        return std::find(offered.begin(), offered.end(), format) != offered.end();
    };
    std::optional<ExportFormat> typedFormat;
    if (!suffix.isEmpty() &&
        suffix.compare(exportFormatName(ExportFormat::FindingsCsv), Qt::CaseInsensitive) != 0)
        typedFormat = exportFormatFromString(suffix);
    // both CSV kinds are .csv: the filter tells which one
    if (typedFormat == ExportFormat::Csv &&
        (filterFormat == ExportFormat::FindingsCsv || !isOffered(ExportFormat::Csv)))
        typedFormat = ExportFormat::FindingsCsv;
    if (typedFormat && isOffered(*typedFormat))
        return {typed, *typedFormat, false};
    if (suffix.isEmpty())
        return {withSuffix(typed, filterFormat), filterFormat, false};
    return {typed + QLatin1Char('.') + exportFormatSuffix(filterFormat), filterFormat, true};
}

void ExportActions::setBookmarkProvider(BookmarkProvider bookmarks)
{
    m_bookmarks = std::move(bookmarks);
}

bool ExportActions::writeReport(const QString& file, ExportFormat format, QSize chartSize, bool replace,
                                QString* error) const
{
    ExportOutcome outcome;
    if (const JobSource shown = job(); shown.job) {
        // what `gapscope export` of the job's inputs writes: every rank analysed alone with
        // the page's thresholds, the cross-rank analyses with the default settings
        DocumentRequest request;
        request.thresholds = shown.thresholds;
        const DocumentAnalysis analysis = analyzeJobDocument(shown.job, request, shown.path);
        outcome = analysis.ok() ? renderExport(analysis, format, chartSize, file)
                                : ExportOutcome{{}, analysis.error};
    } else if (budget()) {
        outcome = renderBudgetExport(budgetInput(), format, chartSize);
    } else if (const SnapshotExport shown = snapshot(); shown.report.data) {
        outcome = renderSnapshotExport(shown.report, format, chartSize);
    } else {
        outcome = renderExport(m_result ? m_result() : nullptr, format, chartSize,
                               m_bookmarks ? m_bookmarks() : std::vector<ReportBookmark>{});
    }
    if (!outcome.error.isEmpty()) {
        *error = outcome.error;
        return false;
    }
    if (*error = inputConflict(file); !error->isEmpty())
        return false;
    *error = writeExport(file, outcome, inputPaths(), replace).error;
    return error->isEmpty();
}

bool ExportActions::writeChart(const QString& file, ExportFormat format, bool replace, QString* error) const
{
    QWidget* chart = m_chart ? m_chart() : nullptr;
    if (!hasDocument()) {
        *error = tr("no analysis to export");
        return false;
    }
    // a snapshot's segment map scrolls: its picture is the whole map at the size shown
    if (!chart || snapshot().report.data || format == ExportFormat::Csv ||
        format == ExportFormat::FindingsCsv || format == ExportFormat::Json ||
        format == ExportFormat::Markdown || format == ExportFormat::Html || format == ExportFormat::Pdf)
        return writeReport(file, format, chart ? chart->size() : kDefaultChartSize, replace, error);
    if (*error = inputConflict(file); !error->isEmpty())
        return false;
    const QString title = job().job       ? tr("Job heatmap")
                          : budget()      ? tr("Memory breakdown")
                          : hasAnalysis() ? tr("Gap over time")
                                          : QFileInfo(documentPath()).fileName();
    const QByteArray data =
        format == ExportFormat::Svg ? chartSvg(chart, chart->size(), title) : chartPng(chart, chart->size());
    *error = writeOutput(file, data, replace);
    return error->isEmpty();
}

QString ExportActions::selectedFindingMarkdown() const
{
    if (const JobSource shown = job(); shown.job) {
        const int index = m_finding ? m_finding() : -1;
        if (!shown.findings || index < 0 || size_t(index) >= shown.findings->findings.size())
            return {};
        const ReportContent content =
            buildJobFindingReport(*shown.job, shown.findings->findings[size_t(index)], shown.path);
        return reportFindingMarkdown(content, 0);
    }
    if (const auto b = budget()) {
        const int index = m_finding ? m_finding() : -1;
        if (index < 0 || size_t(index) >= b->findings.size())
            return {};
        return reportFindingMarkdown(buildBudgetReportContent(*b->data, b->findings, b->thresholds),
                                     size_t(index));
    }
    if (const SnapshotExport shown = snapshot(); shown.report.data) {
        const int index = shown.selectedFinding;
        if (!shown.report.findings || index < 0 || size_t(index) >= shown.report.findings->size())
            return {};
        return snapshotFindingMarkdown(buildSnapshotReportContent(shown.report), size_t(index));
    }
    const auto result = m_result ? m_result() : nullptr;
    const int index = m_finding ? m_finding() : -1;
    if (!result || index < 0 || size_t(index) >= result->findings.size())
        return {};
    return reportFindingMarkdown(buildReportContent(*result, false), size_t(index));
}

namespace {

// File names and error texts can hold markup characters: never let a message box read them
// as rich text.
int showMessage(QWidget* parent, QMessageBox::Icon icon, const QString& title, const QString& text,
                QMessageBox::StandardButtons buttons, QMessageBox::StandardButton defaultButton)
{
    QMessageBox box(icon, title, text, buttons, parent);
    box.setTextFormat(Qt::PlainText);
    box.setDefaultButton(defaultButton);
    return box.exec();
}

} // namespace

bool ExportActions::confirmReplace(const QString& file) const
{
    if (!QFileInfo::exists(file))
        return true;
    return showMessage(m_parent, QMessageBox::Question, tr("Replace File"),
                       tr("%1 already exists.\nDo you want to replace it?").arg(QFileInfo(file).fileName()),
                       QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
}

bool ExportActions::confirmRename(const QString& title, const QString& typed, const Target& target) const
{
    if (!target.renamed)
        return true;
    return showMessage(m_parent, QMessageBox::Question, title,
                       tr("gapscope does not write .%1 files.\nThe %2 will be written as\n\n%3\n\n"
                          "(To choose the format, type its extension: .json, .md, .html, .pdf, .csv, "
                          ".png or .svg.)")
                           .arg(QFileInfo(typed).suffix(),
                                nameFilter(target.format).section(QLatin1String(" ("), 0, 0),
                                QFileInfo(target.file).fileName()),
                       QMessageBox::Ok | QMessageBox::Cancel, QMessageBox::Ok) == QMessageBox::Ok;
}

void ExportActions::exportReportInteractively()
{
    if (!hasDocument())
        return;
    if (!hasAnalysis())
        return exportPageDocumentInteractively();
    QStringList filters;
    for (ExportFormat format : allExportFormats())
        filters << nameFilter(format);
    QString selected = nameFilter(ExportFormat::Html);
    const QString base = QFileInfo(documentPath()).completeBaseName() + QStringLiteral("-report");
    QString file =
        QFileDialog::getSaveFileName(m_parent, tr("Export Report"), base, filters.join(QStringLiteral(";;")),
                                     &selected, QFileDialog::DontConfirmOverwrite);
    if (file.isEmpty())
        return;
    const Target target =
        targetFor(file, formatForFilter(selected).value_or(ExportFormat::Html), allExportFormats());
    if (!confirmRename(tr("Export Report"), file, target))
        return;
    file = target.file;
    const ExportFormat format = target.format;
    if (const QString conflict = inputConflict(file); !conflict.isEmpty()) {
        showMessage(m_parent, QMessageBox::Warning, tr("Export Report"),
                    tr("The report could not be written.\n\n%1").arg(conflict), QMessageBox::Ok,
                    QMessageBox::Ok);
        return;
    }
    if (!confirmReplace(file))
        return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    QString error;
    const bool ok = writeReport(file, format, kDefaultChartSize, true, &error);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        showMessage(m_parent, QMessageBox::Warning, tr("Export Report"),
                    tr("The report could not be written.\n\n%1").arg(error), QMessageBox::Ok,
                    QMessageBox::Ok);
        return;
    }
    emit exported(file);
}

void ExportActions::saveChartInteractively()
{
    if (!hasDocument())
        return;
    // a page without an analysis (a fleet) has no series to write as CSV: its view as an image
    QStringList filters{nameFilter(ExportFormat::Png), nameFilter(ExportFormat::Svg)};
    if (hasAnalysis())
        filters << nameFilter(ExportFormat::Csv);
    QString selected = filters.front();
    QString file = QFileDialog::getSaveFileName(
        m_parent, tr("Save Chart As"),
        QFileInfo(documentPath()).completeBaseName() + (budget() ? QStringLiteral("-breakdown")
                                                        : snapshot().report.data ? QStringLiteral("-segments")
                                                                                 : QStringLiteral("-gap")),
        filters.join(QStringLiteral(";;")), &selected, QFileDialog::DontConfirmOverwrite);
    if (file.isEmpty())
        return;
    std::vector<ExportFormat> offered{ExportFormat::Png, ExportFormat::Svg};
    if (hasAnalysis())
        offered.push_back(ExportFormat::Csv);
    const Target target = targetFor(file, formatForFilter(selected).value_or(ExportFormat::Png), offered);
    if (!confirmRename(tr("Save Chart As"), file, target))
        return;
    file = target.file;
    const ExportFormat format = target.format;
    if (const QString conflict = inputConflict(file); !conflict.isEmpty()) {
        showMessage(m_parent, QMessageBox::Warning, tr("Save Chart As"),
                    tr("The chart could not be saved.\n\n%1").arg(conflict), QMessageBox::Ok,
                    QMessageBox::Ok);
        return;
    }
    if (!confirmReplace(file))
        return;
    QString error;
    if (!writeChart(file, format, true, &error)) {
        showMessage(m_parent, QMessageBox::Warning, tr("Save Chart As"),
                    tr("The chart could not be saved.\n\n%1").arg(error), QMessageBox::Ok, QMessageBox::Ok);
        return;
    }
    emit exported(file);
}

void ExportActions::copyFinding()
{
    const QString markdown = selectedFindingMarkdown();
    if (markdown.isEmpty())
        return;
    auto* mime = new QMimeData;
    mime->setText(markdown);
    mime->setData(QStringLiteral("text/markdown"), markdown.toUtf8());
    QApplication::clipboard()->setMimeData(mime);
}

void ExportActions::exportPageDocumentInteractively()
{
    const std::vector<PageDocumentExport> documents = pageDocuments();
    QStringList filters;
    for (const PageDocumentExport& document : documents)
        filters << document.nameFilter;
    QString selected = filters.front();
    const QString base = QFileInfo(documentPath()).completeBaseName();
    QString file =
        QFileDialog::getSaveFileName(m_parent, tr("Export Report"), base, filters.join(QStringLiteral(";;")),
                                     &selected, QFileDialog::DontConfirmOverwrite);
    if (file.isEmpty())
        return;
    const qsizetype chosen = std::max<qsizetype>(0, filters.indexOf(selected));
    const PageDocumentExport& document = documents[size_t(chosen)];
    if (QFileInfo(file).suffix().isEmpty())
        file += QLatin1Char('.') + document.suffix;
    if (!confirmReplace(file))
        return;
    QString error;
    if (!writePageDocument(file, document, true, &error)) {
        showMessage(m_parent, QMessageBox::Warning, tr("Export Report"),
                    tr("The report could not be written.\n\n%1").arg(error), QMessageBox::Ok,
                    QMessageBox::Ok);
        return;
    }
    emit exported(file);
}

} // namespace gapscope
