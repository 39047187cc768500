#include "model/document/Document.h"

#include "model/budget/BudgetLoader.h"

#include <QFile>
#include <QFileInfo>

namespace gapscope {

namespace {

// Enough lines to get past a preamble of other crates' logs to the first budget line.
constexpr qint64 kDetectionBytes = 64 * 1024;

DocumentAnalysis analyzeTrace(const DocumentOutcome& document, const DocumentRequest& request)
{
    DocumentAnalysis analysis;
    if (!request.budgetOnlySettings.isEmpty()) {
        analysis.error = QStringLiteral("%1: --set %2 applies to memory-budget logs only")
                             .arg(document.path, request.budgetOnlySettings.join(QStringLiteral(", ")));
        return analysis;
    }
    const TraceData& trace = *document.trace;
    AnalysisRequest analysisRequest;
    analysisRequest.thresholds = request.thresholds;
    analysisRequest.rank = request.rank;
    analysisRequest.window = request.window;
    analysisRequest.collective = request.collective.resolve();
    if (request.session) {
        analysisRequest.sessionIndex = trace.findSession(*request.session);
        if (!analysisRequest.sessionIndex) {
            QStringList ids;
            for (const auto& s : trace.sessions)
                ids << s.id;
            analysis.error = QStringLiteral("%1: no session '%2' (sessions: %3)")
                                 .arg(document.path, *request.session, ids.join(QStringLiteral(", ")));
            return analysis;
        }
    }
    QString why;
    analysis.trace = runAnalysis(document.trace, analysisRequest, &why);
    if (!analysis.trace)
        analysis.error = QStringLiteral("%1: %2").arg(document.path, why);
    return analysis;
}

DocumentAnalysis analyzeBudgetLog(const DocumentOutcome& document, const DocumentRequest& request)
{
    DocumentAnalysis analysis;
    if (request.session || request.rank) {
        analysis.error =
            QStringLiteral("%1: --session and --rank do not apply to budget logs").arg(document.path);
        return analysis;
    }
    if (request.collective.any()) {
        analysis.error =
            QStringLiteral("%1: --set collective.* applies to stormlog traces only").arg(document.path);
        return analysis;
    }
    analysis.budget = runBudgetAnalysis(document.budget, request.budgetThresholds, request.window);
    return analysis;
}

} // namespace

DocumentKind detectDocumentKind(const QString& path)
{
    // directories are sink directories; FIFOs and devices are refused by the trace loader
    if (!QFileInfo(path).isFile())
        return DocumentKind::StormlogTrace;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return DocumentKind::StormlogTrace; // the trace loader names the error
    return looksLikeBudgetLog(file.read(kDetectionBytes)) ? DocumentKind::BudgetLog
                                                          : DocumentKind::StormlogTrace;
}

QString DocumentOutcome::failure() const
{
    return fatalError.isEmpty() ? QStringLiteral("%1: could not be loaded").arg(path) : fatalError;
}

const ProblemLog* DocumentOutcome::problems() const
{
    if (trace)
        return &trace->problems;
    return budget ? &budget->problems : nullptr;
}

DocumentOutcome loadDocument(const QString& path, const LoadControl& control)
{
    DocumentOutcome outcome;
    outcome.path = path;
    outcome.kind = detectDocumentKind(path);
    if (outcome.kind == DocumentKind::BudgetLog) {
        BudgetLoadOutcome loaded = loadBudgetLog(path, control);
        outcome.budget = std::move(loaded.data);
        outcome.fatalError = loaded.fatalError;
        outcome.cancelled = loaded.cancelled;
        return outcome;
    }
    LoadOutcome loaded = loadTrace(path, control);
    outcome.trace = std::move(loaded.data);
    outcome.fatalError = loaded.fatalError;
    outcome.cancelled = loaded.cancelled;
    return outcome;
}

DocumentAnalysis analyzeDocument(const DocumentOutcome& document, const DocumentRequest& request)
{
    if (document.trace)
        return analyzeTrace(document, request);
    if (document.budget)
        return analyzeBudgetLog(document, request);
    DocumentAnalysis analysis;
    analysis.error = document.failure();
    return analysis;
}

ReportContent DocumentAnalysis::reportContent(bool crossRankAnalyses) const
{
    if (trace)
        return buildReportContent(*trace, crossRankAnalyses);
    if (!budget)
        return {};
    ReportContent content = buildBudgetReportContent(*budget->data, budget->findings, budget->thresholds);
    content.window = budget->window;
    return content;
}

} // namespace gapscope
