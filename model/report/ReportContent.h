#pragma once
// One neutral report structure built from an analysis result: what every export format
// (JSON, Markdown, HTML, CSV, PDF) writes, so they cannot disagree. Values are raw (for
// JSON) with their display text beside them (for the human formats); trace-provided strings
// are kept verbatim here and escaped by each writer for its format.

#include "analysis/Int64Math.h"
#include "model/job/JobAnalysis.h"
#include "model/trace/AnalysisRunner.h"

#include "model/text/Text.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

enum class ReportKind
{
    StormlogTrace,
    BudgetLog
};
QString toString(ReportKind kind); // "stormlog_trace", "budget_log"

struct ReportProblem
{
    QString file;
    qint64 line = 0;
    qint64 index = -1; // array element index, -1 when not an array element
    bool isError = true;
    QString reason;
};

struct ReportSession
{
    QString id;
    QString status;
    QString host;
    qint64 pid = 0;
    QString jobId; // empty = none
    std::vector<int64_t> ranks;
    qint64 eventCount = 0;
};

struct ReportEvidence
{
    std::string key; // upstream field name
    double value = 0;
    bool isInteger = false;
    EvidenceUnit unit = EvidenceUnit::Count;
    QString text;           // value with its unit ("10.46 GiB", "7.797"), or the label
    std::string label = {}; // EvidenceValue::label: JSON writes it in place of the value
};

struct ReportFinding
{
    Severity severity = Severity::Info;
    Classification classification = Classification::TransientSpike;
    double confidence = 0;
    int64_t timestampNs = 0;
    QString relativeTime; // "+10.800 s" from the report's origin
    std::optional<PhaseAttribution> phase;
    QString phaseText; // "train / step", "ambiguous (a, b), most recent: b" or "none"
    QString description;
    std::vector<ReportEvidence> evidence;
    QStringList remediation;
    // a job finding's rank and the ranks it names (Finding::rank, Finding::ranks)
    std::optional<int64_t> rank;
    std::vector<int64_t> ranks;
    // gapscope's own fields (analysis/GapEpisodes.h), beside upstream's: the evidence's step,
    // the episodes of a transient_spike, the growth intervals of a persistent_drift
    std::optional<StepRef> step;
    QString stepText; // "step 620"; empty without a step
    std::vector<SpikeEpisode> episodes;
    std::vector<GrowthInterval> growthIntervals;
    // The episodes or growth intervals in words for the human formats (findingShapeLines);
    // shapeTitle "Episodes" or "Growth intervals", empty when there are none.
    QString shapeTitle;
    QStringList shapeLines;
};

struct ReportThreshold
{
    std::string name;
    double value = 0;
};

// A spike interval of a rank that the collective attribution puts down to communication.
struct ReportCollectiveInterval
{
    int64_t startNs = 0;
    int64_t endNs = 0;
    QString classification; // collective_confident, collective_likely, collective_suspect
    double confidence = 0;
    QString phaseText; // as a finding's
};

// A rank among the first-cause suspects of the cross-rank analysis.
struct ReportFirstCause
{
    QString confidence; // high, medium, low
    int64_t firstSpikeNs = 0;
    int64_t leadOverOnsetNs = 0;
    int64_t peakDeltaBytes = 0; // device used added by its first spike
    size_t order = 0;           // among the suspects, earliest aligned spike first (upstream's order)
};

// One rank of a distributed job (model/job/JobData.h) with its own gap analysis.
struct ReportRank
{
    int64_t rank = 0;
    bool present = false;
    QString input;   // the input whose partition of the rank is shown; empty when missing
    QString session; // its session id
    QString host;
    int64_t localRank = 0;
    uint64_t sampleCount = 0;               // `sample` events over all its inputs
    std::optional<int64_t> latestGapBytes;  // device used - reserved at the last sample analysed
    std::optional<int64_t> peakAbsGapBytes; // the largest |gap| among the samples analysed
    int64_t originNs = 0;                   // its first event: its relative times count from here
    std::vector<ReportFinding> findings;    // its own gap analysis
    std::vector<Notice> notices;            // of its own analysis (analysis/Notice.h)
    // from the job's cross-rank analyses (when the report has them)
    std::vector<ReportCollectiveInterval> collective;
    std::optional<ReportFirstCause> firstCause;
};

struct ReportJobInput
{
    QString path;
    QString form;
    QString session; // the session of the input that belongs to the job
    std::vector<int64_t> ranks;
    qint64 recordsRead = 0;
    qint64 recordsRejected = 0;
    qint64 warnings = 0;
};

// The ranks and notes of a job, when the report is of one.
struct ReportJob
{
    QString mode;  // "session" (one input, several ranks) or "job" (several inputs)
    QString jobId; // empty = none
    int64_t worldSize = 0;
    std::vector<ReportJobInput> inputs;
    std::vector<ReportProblem> notes; // every note kept (file, reason; line 0)
    qint64 notesNotKept = 0;
    std::vector<ReportRank> ranks; // ascending rank, missing ranks included
    int64_t originNs = 0;          // the job's first event: its intervals and spikes count from here
    bool crossRank = false;        // the ranks carry the cross-rank analyses
    // What holds for every present rank, said once for the job (a gap_not_observable on every
    // rank is one notice with `ranks`): the report shows these instead of the same code of the
    // rank shown.
    std::vector<Notice> notices;
    std::optional<int64_t> clusterOnsetNs;
    // gapscope's own findings of the job (rank_divergence), most severe first; times from
    // originNs. Filled with the cross-rank analyses.
    std::vector<ReportFinding> findings;
};

// A bookmark the user set on the document's timeline (the app's; the CLI has none).
struct ReportBookmark
{
    int64_t timeNs = 0;
    QString name;
};

// An out-of-memory error of the trace (TraceData::ooms: a stormlog OOM flight-recorder bundle).
struct ReportOom
{
    std::optional<int64_t> timeNs;
    bool timeFromEvent = false; // the bundle's error event; else its created_at_utc (a second)
    QString relativeTime;       // from the report's origin; empty without a time
    QString reason;
    QString exceptionType;
    QString exceptionModule;
    QString exceptionMessage;
    QString bundle;                                 // the bundle folder
    std::vector<std::pair<QString, QString>> facts; // model/trace/OomBundle oomKeyFacts
};

struct ReportContent
{
    ReportKind kind = ReportKind::StormlogTrace;

    // --- input ---
    QString path;
    QString form;
    qint64 recordsRead = 0;
    qint64 recordsLoaded = 0;
    qint64 recordsRejected = 0;
    qint64 warnings = 0;
    std::vector<ReportProblem> problems; // the first kReportedProblems

    // --- session (stormlog) ---
    QString sessionId; // empty for events without session_id
    QString sessionStatus;
    QString host;
    int64_t rank = 0;
    std::vector<ReportSession> sessions;
    qint64 eventCount = 0; // events of the analysed (session, rank)

    // --- window and time origin ---
    std::optional<TimeWindow> window; // as requested
    // traces: where device used came from (an attached nvidia-smi log); nullptr: the trace
    std::shared_ptr<const DeviceUsedSource> deviceUsedSource;
    int64_t originNs = 0; // relative times count from here (first event analysed)

    // --- summary ---
    QString backend;
    QString sampleNoun = QStringLiteral("samples"); // "ticks" for budget logs
    uint64_t samples = 0;
    std::optional<int64_t> firstTimestampNs;
    std::optional<int64_t> lastTimestampNs;
    std::optional<int64_t> peakGapBytes;
    std::optional<int64_t> peakGapTimestampNs;
    std::optional<int64_t> peakRssBytes; // budget logs
    std::optional<int64_t> peakRssTimestampNs;
    std::optional<int64_t> tickPeriodNs; // budget logs: median time between ticks

    std::vector<ReportFinding> findings;
    // gapscope's own judgement of what the input can show (analysis/Notice.h), beside upstream's
    // findings; of the rank shown in a job's report (reportNotices merges the job's).
    std::vector<Notice> notices;
    std::vector<ReportThreshold> thresholds;
    std::vector<ReportOom> ooms; // ascending time (stormlog traces)

    // --- the cross-rank analyses of the session, or of the job (stormlog) ---
    std::shared_ptr<const JobAnalysisResult> jobAnalysis;

    // --- a distributed job: the report above is of its rank shown ---
    std::optional<ReportJob> job;
    // --- the app's bookmarks (Markdown, HTML and PDF list them; JSON stays the CLI's bytes) ---
    std::vector<ReportBookmark> bookmarks; // ascending time

    std::optional<int64_t> durationNs() const
    {
        if (!firstTimestampNs || !lastTimestampNs)
            return std::nullopt;
        return saturatingSub(*lastTimestampNs, *firstTimestampNs);
    }
};

inline constexpr size_t kReportedProblems = 20;

// The notices a report shows at its top: a job's own (ReportJob::notices), then those of the
// analysis shown whose code the job's do not already say.
std::vector<Notice> reportNotices(const ReportContent& content);

// crossRankAnalyses: the session's collective attribution and cross-rank analysis
// (AnalysisResult::jobAnalysis), which only the JSON writer prints: the other formats leave
// them out rather than run them.
ReportContent buildReportContent(const AnalysisResult& result, bool crossRankAnalyses = true);

struct JobData;
// The ranks of a job with their own analyses (one per JobData::ranks entry, null when missing:
// model/job/JobRanks analyzeJobRanks), its inputs and notes, and each rank's collective
// intervals and first-cause place from crossRank (the job's, when given).
ReportJob buildReportJob(const JobData& job,
                         const std::vector<std::shared_ptr<const AnalysisResult>>& rankAnalyses,
                         const JobAnalysisResult* crossRank = nullptr);

// A finding of a job's cross-rank analyses (model/job/JobFindings: collective memory, first
// cause) as a report of that one finding, for "Copy Finding as Markdown" on the job page: the
// input is the job (jobPath as the page names it), the session, rank and host those of the
// finding's rank, its time relative to the job's first event (the origin of the job report's
// intervals and spikes).
ReportContent buildJobFindingReport(const JobData& job, const Finding& finding, const QString& jobPath);

struct BudgetData;
struct BudgetThresholds;
// A memory-budget log's report: ticks, duration, peak rss, the rules' findings (from
// analyzeBudget) and the thresholds they ran with.
ReportContent buildBudgetReportContent(const BudgetData& data, const std::vector<Finding>& findings,
                                       const BudgetThresholds& thresholds);

// A finding as the reports write it, its time relative to originNs read at resolutionNs
// (timeResolutionNs of the report's span).
ReportFinding toReportFinding(const Finding& f, int64_t originNs, int64_t resolutionNs = kMillisecondNs);

// One evidence value with its unit in words ("1.50 GiB", "0.9992 (99.9 %)", "214.6 MB/s").
QString formatEvidenceValue(const EvidenceValue& value);
// The name of a finding's class wherever a person reads it (the findings table, the detail,
// every report): "Transient spike", "OS allocator spike", "Fragmentation-like".
QString classificationTitle(Classification classification);
// "+12.345 s", "+8 h 15 min 50 s" relative to origin: relativeTimeText (model/text/Text.h)
// at resolutionNs (timeResolutionNs of the span shown; the millisecond unless told).
QString formatRelativeTime(int64_t ns, int64_t originNs, int64_t resolutionNs = kMillisecondNs);
// The episodes of a transient_spike or the growth intervals of a persistent_drift in words, one
// line each ("steps 621-630 (+8.025 s to +8.131 s): peak 5.61 GiB, 6 samples (6 above the spike
// line)"), the first 12 and a line that counts the rest; *title "Episodes" or "Growth
// intervals" (empty when there are none). The reports and the finding detail show the same lines.
QStringList findingShapeLines(const Finding& f, int64_t originNs, int64_t resolutionNs = kMillisecondNs,
                              QString* title = nullptr);
// A duration to the millisecond: "12.345 s", "1 h 2 min 3.500 s" (durationText).
QString formatReportDuration(int64_t ns);
// "ambiguous (a, b), most recent: b", the unique path, or "none"
QString phaseAttributionText(const std::optional<PhaseAttribution>& attribution);

} // namespace gapscope
