#pragma once
// What a path holds and how it is read and analysed, in one place for the app (LoadJob, the
// main window, Compare With), `gapscope analyze`, `export` and `compare`: the kind is decided
// from the content (a memory-budget log is recognised by its lines, anything else goes to the
// stormlog trace loader), the loader follows from the kind, and one request (session, rank,
// window, thresholds) analyses either kind, so no caller can pick a loader or an option the
// others would not.

#include "analysis/CollectiveAttribution.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/report/ReportContent.h"
#include "model/store/BudgetData.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace gapscope {

enum class DocumentKind
{
    StormlogTrace,
    BudgetLog
};
DocumentKind detectDocumentKind(const QString& path);

// One loaded document of either kind: exactly one of trace and budget is set on success.
struct DocumentOutcome
{
    DocumentKind kind = DocumentKind::StormlogTrace;
    QString path;
    std::shared_ptr<const TraceData> trace;
    std::shared_ptr<const BudgetData> budget;
    QString fatalError; // why neither is set ("path: reason")
    bool cancelled = false;
    bool ok() const { return trace || budget; }
    // Why the load failed: fatalError, or "path: could not be loaded" when the loader gave none.
    QString failure() const;
    // The records (traces) or lines (budget logs) the loader rejected; nullptr unless ok().
    const ProblemLog* problems() const;
};
DocumentOutcome loadDocument(const QString& path, const LoadControl& control = {});

// What to analyse in a document and with which thresholds.
struct DocumentRequest
{
    std::optional<QString> session; // by id; traces only (nullopt = the default session)
    std::optional<int64_t> rank;    // traces only (nullopt = the lowest rank)
    std::optional<TimeWindow> window;
    GapThresholds thresholds;          // traces
    BudgetThresholds budgetThresholds; // budget logs (osGap: their OS-vs-allocator gap rule)
    QStringList budgetOnlySettings;    // threshold names only budget logs know: refused for traces
    CollectiveSettings collective;     // `--set collective.*` (traces: the cross-rank analyses)
};

// The analysis of one document: exactly one of trace and budget is set on success.
struct DocumentAnalysis
{
    std::shared_ptr<const AnalysisResult> trace;
    std::shared_ptr<const BudgetAnalysisResult> budget;
    QString error; // one line, "path: reason", when neither is set
    bool ok() const { return trace || budget; }
    // What every report of the analysis writes (window included).
    ReportContent reportContent(bool crossRankAnalyses = true) const;
};

// Runs the analysis the request asks for on a loaded document.
DocumentAnalysis analyzeDocument(const DocumentOutcome& document, const DocumentRequest& request);

} // namespace gapscope
