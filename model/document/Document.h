#pragma once
// What a path holds and how it is read and analysed, in one place for the app (LoadJob, the
// main window, Compare With), `gapscope analyze`, `export` and `compare`: the kind is decided
// from the content (a memory-budget log is recognised by its lines, anything else goes to the
// stormlog trace loader), the loader follows from the kind, and one request (session, rank,
// window, thresholds) analyses either kind, so no caller can pick a loader or an option the
// others would not.

#include "analysis/CollectiveAttribution.h"
#include "model/budget/BudgetAnalysisRunner.h"
#include "model/cache/TraceCache.h"
#include "model/document/JobOpen.h"
#include "model/document/LoadedDocument.h"
#include "model/document/OpenPlan.h"
#include "model/job/JobData.h"
#include "model/job/JobLoader.h"
#include "model/report/ReportContent.h"
#include "model/snapshot/SnapshotData.h"
#include "model/store/BudgetData.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

enum class DocumentKind
{
    StormlogTrace,
    BudgetLog,
    PytorchSnapshot, // torch.cuda.memory._dump_snapshot's pickle (model/snapshot/SnapshotLoader)
    Job              // a folder of the ranks of one job (OpenPlan OpenKind::Job): loadJob reads it
};
// The kind of document loadDocument reads path as: recognizeInput (model/document/Recognition)
// seen by the document loader (an OOM bundle, and anything that is not a budget log or a job,
// goes to the trace loader, which reads it or says why not).
DocumentKind detectDocumentKind(const QString& path);

// Whether paths open as a distributed job (model/document/JobOpen loadJob) rather than as one
// document or several: recognizeInputs(paths).kind == InputKind::Job. One path of a trace whose
// session holds several ranks opens as a document; jobSessionOf says it is a job, and
// jobFromTraceSession makes its job.
bool opensAsJob(const QStringList& paths);

// One loaded document: exactly one of trace, budget and snapshot is set on success.
struct DocumentOutcome
{
    DocumentKind kind = DocumentKind::StormlogTrace;
    QString path;      // what was read: the sink of a manifest.json given, the run of a folder
    QStringList notes; // what was read instead of the path given, and why (OpenPlan::notes)
    // A trace's: the PyTorch memory snapshot recorded beside it (OpenPlan::snapshot), not read
    // here: the trace page attaches it.
    QString snapshotBeside;
    std::shared_ptr<const TraceData> trace;
    std::shared_ptr<const BudgetData> budget;
    std::shared_ptr<const SnapshotData> snapshot; // a PyTorch memory snapshot (no analysis: its page sums it)
    QString fatalError;                           // why none is set ("path: reason")
    bool cancelled = false;
    // With a cache: the input's key taken before the load (a load of an input that changed
    // meanwhile is not kept), and whether the trace came from the cache.
    std::optional<TraceCacheKey> cacheKey;
    bool fromCache = false;
    bool ok() const { return trace || budget || snapshot; }
    // What the window hands to a tab (the one member set).
    LoadedDocument loaded() const;
    // Why the load failed: fatalError, or "path: could not be loaded" when the loader gave none.
    QString failure() const;
    // The records (traces, snapshots) or lines (budget logs) the loader rejected; nullptr unless ok().
    const ProblemLog* problems() const;
};
// The path goes through recognizeInput (and so planOpen) first: a sink's manifest or segment loads the sink,
// a folder of one run loads that run (notes say so); a job folder, or a folder of several runs, is refused
// with the reason (a job is loaded by loadJob; the runs one by one). With a cache, a valid entry for the
// input is read instead of the input (loadDocument never writes one: see keepInCache).
DocumentOutcome loadDocument(const QString& path, const LoadControl& control = {},
                             const TraceCache* cache = nullptr);
// Writes the trace of a document loaded with a cache into it when it is worth keeping (large
// enough, read from the input, the input unchanged since the load began). False when nothing
// was written (*error says why when a write failed).
bool keepInCache(const DocumentOutcome& document, const TraceCache& cache,
                 const std::atomic<bool>* cancel = nullptr, QString* error = nullptr);

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
    // `--device-log FILE [--device-log-tz ZONE]`, File > Attach Device Log...: nvidia-smi's log
    // gives the device used (traces: each rank's samples, by its pid for a per-process log)
    std::optional<DeviceLogRequest> deviceLog;
};

struct JobAnalysisOnce;

// The analysis of one document: exactly one of trace and budget is set on success. For a job,
// trace is the analysis of the rank shown (the request's rank, else the lowest present one)
// and ranks hold every rank's own analysis.
struct DocumentAnalysis
{
    std::shared_ptr<const AnalysisResult> trace;
    std::shared_ptr<const BudgetAnalysisResult> budget;
    std::shared_ptr<const JobData> job;                       // set for a job
    std::vector<std::shared_ptr<const AnalysisResult>> ranks; // per JobData::ranks; null when missing
    QString error;                                            // one line, "path: reason", when neither is set
    bool ok() const { return trace || budget; }
    // What every report of the analysis writes (window included; the ranks of a job).
    // crossRankAnalyses: the collective attribution and cross-rank analysis (of the session, or
    // of every input of a job), which the formats that print them ask for.
    ReportContent reportContent(bool crossRankAnalyses = true) const;
    // The cross-rank analyses of a job over every rank (model/job/JobAnalysis analyzeJob), run
    // on first use and kept; nullptr unless job.
    std::shared_ptr<const JobAnalysisResult> jobAnalysis() const;
    std::shared_ptr<JobAnalysisOnce> jobAnalysisOnce; // set by analyzeJobDocument
};

// Runs the analysis the request asks for on a loaded document.
DocumentAnalysis analyzeDocument(const DocumentOutcome& document, const DocumentRequest& request);

// Every rank of a job analysed alone (model/job/JobRanks) with the request's thresholds and
// window, and the rank the request names (else the lowest present one) as the one shown.
// A session in the request is refused: each input of a job is read in its own session.
// label names the job in messages (default: its first input and how many more).
DocumentAnalysis analyzeJobDocument(std::shared_ptr<const JobData> job, const DocumentRequest& request,
                                    const QString& label = {});

// What `analyze` and `export` read for their PATHs: one document, analysed as
// analyzeDocument does, or a job (opensAsJob, or one trace whose analysed session holds several
// ranks) analysed by analyzeJobDocument.
struct InputsAnalysis
{
    DocumentOutcome document; // one document (also the trace of a session's job); empty for loadJob
    JobOutcome job;           // a job: job.job set, or fatalError when none of its inputs loaded
    DocumentAnalysis analysis;
    bool cancelled() const { return document.cancelled || job.cancelled; }
};
// cache: read a valid entry for one trace instead of the input (never written here).
InputsAnalysis analyzeInputs(const QStringList& paths, const DocumentRequest& request,
                             const LoadControl& control = {}, const TraceCache* cache = nullptr);

} // namespace gapscope
