#include "model/document/Document.h"

#include "model/budget/BudgetLoader.h"
#include "model/document/JobOpen.h"
#include "model/document/Recognition.h"
#include "model/fleetdata/FleetQuery.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobRanks.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/trace/OomBundle.h"

#include <mutex>

namespace gapscope {

// The cross-rank analyses of a job, run once on first use (DocumentAnalysis::jobAnalysis).
struct JobAnalysisOnce
{
    std::once_flag flag;
    CollectiveConfig collective;
    std::optional<TimeWindow> window;
    std::shared_ptr<const JobAnalysisResult> result;
};

namespace {

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
    if (request.deviceLog) {
        QString why;
        if (!(analysisRequest.deviceLog = loadRequestedDeviceLog(*request.deviceLog, &why))) {
            analysis.error = why;
            return analysis;
        }
    }
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
    if (request.deviceLog) {
        analysis.error = QStringLiteral("%1: --device-log applies to stormlog traces only (a budget log "
                                        "carries its own device counters)")
                             .arg(document.path);
        return analysis;
    }
    analysis.budget = runBudgetAnalysis(document.budget, request.budgetThresholds, request.window);
    return analysis;
}

} // namespace

DocumentKind detectDocumentKind(const QString& path)
{
    const InputRecognition input = recognizeInput(path);
    if (input.bundle)
        return DocumentKind::StormlogTrace; // an OOM bundle: loadDocument reads it
    switch (input.kind) {
    case InputKind::BudgetLog:
        return DocumentKind::BudgetLog;
    case InputKind::Job:
        return DocumentKind::Job;
    case InputKind::PytorchSnapshot:
        return DocumentKind::PytorchSnapshot;
    case InputKind::FleetDatabase:
        return DocumentKind::FleetDatabase;
    default:
        return DocumentKind::StormlogTrace; // the trace loader reads it or says why not
    }
}

QString DocumentOutcome::failure() const
{
    return fatalError.isEmpty() ? QStringLiteral("%1: could not be loaded").arg(path) : fatalError;
}

const ProblemLog* DocumentOutcome::problems() const
{
    if (trace)
        return &trace->problems;
    if (snapshot)
        return &snapshot->problems;
    if (fleet)
        return &fleet->problems;
    return budget ? &budget->problems : nullptr;
}

LoadedDocument DocumentOutcome::loaded() const
{
    LoadedDocument document;
    document.trace = trace;
    document.budget = budget;
    document.snapshot = snapshot;
    if (trace)
        document.snapshotBeside = snapshotBeside;
    document.fleet = fleet;
    return document;
}

DocumentOutcome loadDocument(const QString& given, const LoadControl& control, const TraceCache* cache)
{
    DocumentOutcome outcome;
    outcome.path = given;
    const InputRecognition input = recognizeInput(given);
    if (input.kind == InputKind::SeveralRuns) {
        outcome.fatalError = input.reason;
        return outcome;
    }
    if (input.plan.kind == OpenKind::Document && !input.plan.paths.isEmpty()) {
        outcome.path = input.plan.paths.front();
        outcome.notes = input.plan.notes;
        outcome.snapshotBeside = input.plan.snapshot;
    }
    const QString& path = outcome.path;
    // An OOM flight-recorder bundle (or the folder holding one): its events with its OOM facts.
    // Small: never cached.
    if (input.bundle) {
        LoadOutcome loaded = loadOomBundle(*input.bundle, control);
        outcome.trace = std::move(loaded.data);
        outcome.fatalError = loaded.fatalError;
        outcome.cancelled = loaded.cancelled;
        return outcome;
    }
    if (cache && (outcome.cacheKey = traceCacheKey(path))) {
        // an entry exists only for an input that loaded as a trace, and is valid only while
        // the input is unchanged: no need to look at its content
        if (auto cached = cache->read(*outcome.cacheKey)) {
            attachOomBundlesBeside(*cached); // files of their own, not in the entry
            outcome.trace = std::move(cached);
            outcome.fromCache = true;
            if (control.progress)
                control.progress(outcome.cacheKey->inputBytes(), outcome.cacheKey->inputBytes());
            return outcome;
        }
    }
    if (input.kind == InputKind::Job) {
        outcome.kind = DocumentKind::Job;
        outcome.fatalError =
            QStringLiteral("%1: a folder of per-rank inputs (a distributed job), not one trace; it "
                           "is opened as a job")
                .arg(path);
        return outcome;
    }
    if (input.kind == InputKind::BudgetLog) {
        outcome.kind = DocumentKind::BudgetLog;
        BudgetLoadOutcome loaded = loadBudgetLog(path, control);
        outcome.budget = std::move(loaded.data);
        outcome.fatalError = loaded.fatalError;
        outcome.cancelled = loaded.cancelled;
        return outcome;
    }
    if (input.kind == InputKind::PytorchSnapshot) {
        outcome.kind = DocumentKind::PytorchSnapshot;
        SnapshotLoadOutcome loaded = loadSnapshotFile(path, control);
        outcome.snapshot = std::move(loaded.data);
        outcome.fatalError = loaded.fatalError;
        outcome.cancelled = loaded.cancelled;
        return outcome;
    }
    if (input.kind == InputKind::FleetDatabase) {
        outcome.kind = DocumentKind::FleetDatabase;
        FleetLoadOutcome loaded = loadFleetDatabase(path, control);
        outcome.fleet = std::move(loaded.data);
        outcome.fatalError = loaded.fatalError;
        outcome.cancelled = loaded.cancelled;
        return outcome;
    }
    // a form gapscope does not read is named for what it is, not judged as a broken trace
    if (input.namedForeign()) {
        outcome.fatalError = QStringLiteral("%1: %2").arg(path, input.reason);
        return outcome;
    }
    // a trace, or what the trace loader is to say no to (in its own words)
    LoadOutcome loaded = loadTrace(path, control);
    outcome.trace = std::move(loaded.data);
    outcome.fatalError = loaded.fatalError;
    outcome.cancelled = loaded.cancelled;
    return outcome;
}

bool keepInCache(const DocumentOutcome& document, const TraceCache& cache, const std::atomic<bool>* cancel,
                 QString* error)
{
    if (!document.trace || document.fromCache || !document.cacheKey ||
        !cache.worthWriting(*document.cacheKey, *document.trace))
        return false;
    if (traceCacheKey(document.path) != document.cacheKey)
        return false; // written to while it was read: what was loaded is not what it holds now
    return cache.write(*document.cacheKey, *document.trace, cancel, error);
}

DocumentAnalysis analyzeDocument(const DocumentOutcome& document, const DocumentRequest& request)
{
    if (document.trace)
        return analyzeTrace(document, request);
    if (document.budget)
        return analyzeBudgetLog(document, request);
    DocumentAnalysis analysis;
    analysis.error =
        document.snapshot
            ? QStringLiteral("%1: a PyTorch memory snapshot has no gap analysis to compare; `gapscope "
                             "analyze` and `gapscope export` report its totals and findings, and the window "
                             "shows it")
                  .arg(document.path)
        : document.fleet
            ? QStringLiteral("%1: a fleet index has no gap analysis of its own; the window shows it "
                             "(File > Open Fleet...), sqlite3 or DuckDB query it")
                  .arg(document.path)
            : document.failure();
    return analysis;
}

bool opensAsJob(const QStringList& paths)
{
    return !paths.isEmpty() && recognizeInputs(paths).kind == InputKind::Job;
}

namespace {

// What a job is called in a message: its one input, or the first and how many more.
QString jobLabel(const QStringList& paths)
{
    return paths.size() == 1
               ? paths.front()
               : QStringLiteral("%1 and %2 more inputs").arg(paths.front()).arg(paths.size() - 1);
}

// A request a job of several inputs cannot take; empty when fine.
QString jobRequestError(const QString& label, JobMode mode, const DocumentRequest& request)
{
    if (!request.budgetOnlySettings.isEmpty())
        return QStringLiteral("%1: --set %2 applies to memory-budget logs only")
            .arg(label, request.budgetOnlySettings.join(QStringLiteral(", ")));
    if (request.session && mode == JobMode::Job)
        return QStringLiteral(
                   "%1: --session applies to one input; each input of a job is read in its default session")
            .arg(label);
    return {};
}

} // namespace

DocumentAnalysis analyzeJobDocument(std::shared_ptr<const JobData> job, const DocumentRequest& request,
                                    const QString& givenLabel)
{
    DocumentAnalysis analysis;
    if (!job || job->inputs.empty()) {
        analysis.error = QStringLiteral("no job loaded");
        return analysis;
    }
    QStringList paths;
    for (const JobInput& input : job->inputs)
        paths << input.path;
    const QString label = givenLabel.isEmpty() ? jobLabel(paths) : givenLabel;
    if (analysis.error = jobRequestError(label, job->mode, request); !analysis.error.isEmpty())
        return analysis;
    const JobRank* shown = nullptr;
    QStringList present;
    for (const JobRank& rank : job->ranks) {
        if (!rank.present)
            continue;
        present << QString::number(rank.rank);
        if (!shown && (!request.rank || *request.rank == rank.rank))
            shown = &rank;
    }
    if (!shown) {
        analysis.error = request.rank ? QStringLiteral("%1: no rank %2 in the job (ranks: %3)")
                                            .arg(label)
                                            .arg(*request.rank)
                                            .arg(present.join(QStringLiteral(", ")))
                                      : QStringLiteral("%1: the job has no rank with events").arg(label);
        return analysis;
    }
    AnalysisRequest each;
    each.thresholds = request.thresholds;
    each.window = request.window;
    each.collective = request.collective.resolve();
    if (request.deviceLog) {
        QString why;
        if (!(each.deviceLog = loadRequestedDeviceLog(*request.deviceLog, &why))) {
            analysis.error = why;
            return analysis;
        }
    }
    analysis.ranks = analyzeJobRanks(*job, each);
    analysis.trace = analysis.ranks[size_t(shown - job->ranks.data())];
    analysis.jobAnalysisOnce = std::make_shared<JobAnalysisOnce>();
    analysis.jobAnalysisOnce->collective = each.collective;
    analysis.jobAnalysisOnce->window = request.window;
    analysis.job = std::move(job);
    return analysis;
}

InputsAnalysis analyzeInputs(const QStringList& paths, const DocumentRequest& request,
                             const LoadControl& control, const TraceCache* cache)
{
    InputsAnalysis inputs;
    const InputRecognition input = recognizeInputs(paths);
    const OpenPlan& plan = input.plan;
    if (input.kind == InputKind::SeveralRuns) {
        inputs.analysis.error = input.reason;
        return inputs;
    }
    if (input.kind == InputKind::Job) {
        // refused before the (possibly long) load
        if (inputs.analysis.error = jobRequestError(jobLabel(paths), JobMode::Job, request);
            !inputs.analysis.error.isEmpty())
            return inputs;
        inputs.job = loadJob(plan.paths, control, cache);
        if (inputs.job.job)
            inputs.analysis = analyzeJobDocument(inputs.job.job, request, jobLabel(paths));
        else
            inputs.analysis.error = inputs.job.fatalError;
        return inputs;
    }
    // one run: one path given (its own notes), or copies of one run given together
    inputs.document = loadDocument(paths.size() == 1 ? paths.front() : plan.paths.value(0), control, cache);
    if (paths.size() > 1)
        inputs.document.notes = plan.notes + inputs.document.notes;
    inputs.analysis = analyzeDocument(inputs.document, request);
    if (const auto& shown = inputs.analysis.trace;
        shown && jobSessionOf(*shown->trace, shown->sessionIndex)) {
        inputs.job.job = jobFromTraceSession(shown->trace, shown->sessionIndex);
        inputs.analysis = analyzeJobDocument(inputs.job.job, request);
    }
    return inputs;
}

std::shared_ptr<const JobAnalysisResult> DocumentAnalysis::jobAnalysis() const
{
    if (!job || !jobAnalysisOnce)
        return nullptr;
    JobAnalysisOnce& once = *jobAnalysisOnce;
    std::call_once(once.flag, [&] { once.result = analyzeJob(*job, once.collective, once.window); });
    return once.result;
}

ReportContent DocumentAnalysis::reportContent(bool crossRankAnalyses) const
{
    if (trace && job) {
        // the job's cross-rank analyses, over every input, not those of the rank shown's input
        ReportContent content = buildReportContent(*trace, false);
        content.jobAnalysis = crossRankAnalyses ? jobAnalysis() : nullptr;
        content.job = buildReportJob(*job, ranks, content.jobAnalysis.get());
        return content;
    }
    if (trace)
        return buildReportContent(*trace, crossRankAnalyses);
    if (!budget)
        return {};
    ReportContent content = buildBudgetReportContent(*budget->data, budget->findings, budget->thresholds);
    content.window = budget->window;
    return content;
}

} // namespace gapscope
