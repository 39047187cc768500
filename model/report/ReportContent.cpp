#include "model/report/ReportContent.h"
#include "model/text/Text.h"
#include "model/trace/OomBundle.h"

#include "analysis/BudgetAnalysis.h"
#include "analysis/PhaseSteps.h"
#include "model/job/JobData.h"
#include "model/job/JobFindings.h"
#include "model/store/BudgetData.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace gapscope {

ReportFinding toReportFinding(const Finding& f, int64_t originNs, int64_t resolutionNs)
{
    ReportFinding rf;
    rf.severity = f.severity;
    rf.classification = f.classification;
    rf.confidence = f.confidence;
    rf.timestampNs = f.evidenceTimestampNs;
    rf.relativeTime = formatRelativeTime(f.evidenceTimestampNs, originNs, resolutionNs);
    rf.phase = f.phase;
    rf.phaseText = phaseAttributionText(f.phase);
    rf.description = qs(f.description);
    rf.rank = f.rank;
    rf.ranks = f.ranks;
    for (const auto& e : f.evidence)
        rf.evidence.push_back({e.key, e.value, e.isInteger, e.unit, formatEvidenceValue(e), e.label});
    for (const auto& step : f.remediation)
        rf.remediation << qs(step);
    rf.step = f.evidenceStep;
    if (f.evidenceStep)
        rf.stepText = qs(stepLabel(*f.evidenceStep));
    rf.episodes = f.episodes;
    rf.growthIntervals = f.growthIntervals;
    rf.shapeLines = findingShapeLines(f, originNs, resolutionNs, &rf.shapeTitle);
    return rf;
}

namespace {

ReportProblem toReportProblem(const LoadProblem& p)
{
    return {p.file, p.line, p.index, p.level == LoadProblem::Level::Error, p.reason};
}

// |gap| without overflow at the bottom of the int64 range.
int64_t absoluteGap(int64_t gap)
{
    return gap == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : std::abs(gap);
}

} // namespace

QStringList findingShapeLines(const Finding& f, int64_t originNs, int64_t resolutionNs, QString* title)
{
    QStringList lines;
    QString shapeTitle;
    const auto where = [&](const std::optional<StepRef>& first, const std::optional<StepRef>& last,
                           int64_t startNs, int64_t endNs) {
        QString times = formatRelativeTime(startNs, originNs, resolutionNs);
        if (endNs != startNs)
            times += QStringLiteral(" to ") + formatRelativeTime(endNs, originNs, resolutionNs);
        if (first && last)
            return qs(stepRangeLabel(*first, *last)) + QStringLiteral(" (") + times + QLatin1Char(')');
        return times;
    };
    if (!f.episodes.empty()) {
        shapeTitle = QStringLiteral("Episodes");
        for (const SpikeEpisode& e : f.episodes)
            lines << where(e.startStep, e.endStep, e.startNs, e.endNs) + QStringLiteral(": peak ") +
                         bytesText(e.peakGapBytes) +
                         (e.samples == 1 ? QStringLiteral(", 1 sample")
                                         : QStringLiteral(", %1 samples (%2 above the spike line)")
                                               .arg(e.samples)
                                               .arg(e.spikeSamples));
    } else if (!f.growthIntervals.empty()) {
        shapeTitle = QStringLiteral("Growth intervals");
        for (const GrowthInterval& g : f.growthIntervals)
            lines << where(g.startStep, g.endStep, g.startNs, g.endNs) + QStringLiteral(": grew ") +
                         bytesText(g.growthBytes) +
                         (g.stillGrowing ? QStringLiteral(", still growing at the last sample") : QString());
    }
    // a noisy trace can have hundreds of episodes: the human formats list the first ones
    constexpr qsizetype kListed = 12;
    if (lines.size() > kListed) {
        const qsizetype more = lines.size() - kListed;
        lines.resize(kListed);
        lines << QStringLiteral("and %1 more (every one is in the JSON report)").arg(more);
    }
    if (title)
        *title = shapeTitle;
    return lines;
}

QString toString(ReportKind kind)
{
    switch (kind) {
    case ReportKind::StormlogTrace:
        return QStringLiteral("stormlog_trace");
    case ReportKind::BudgetLog:
        return QStringLiteral("budget_log");
    }
    return {};
}

QString classificationTitle(Classification classification)
{
    switch (classification) {
    case Classification::TransientSpike:
        return QStringLiteral("Transient spike");
    case Classification::PersistentDrift:
        return QStringLiteral("Persistent drift");
    case Classification::FragmentationLike:
        return QStringLiteral("Fragmentation-like");
    case Classification::LeakOutsideCaches:
        return QStringLiteral("Leak outside caches");
    case Classification::AllocatorRetention:
        return QStringLiteral("Allocator retention");
    case Classification::UnattributedGrowth:
        return QStringLiteral("Unattributed growth");
    case Classification::WedgedBudget:
        return QStringLiteral("Wedged budget");
    case Classification::LeasePressure:
        return QStringLiteral("Lease pressure");
    case Classification::OverTarget:
        return QStringLiteral("Over target");
    case Classification::OsAllocatorSpike:
        return QStringLiteral("OS allocator spike");
    case Classification::OsAllocatorDrift:
        return QStringLiteral("OS allocator drift");
    case Classification::CacheThrash:
        return QStringLiteral("Cache thrash");
    case Classification::CollectiveMemory:
        return QStringLiteral("Collective memory");
    case Classification::FirstCause:
        return QStringLiteral("First cause");
    case Classification::RankDivergence:
        return QStringLiteral("Rank divergence");
    case Classification::AllocatorFragmentation:
        return QStringLiteral("Allocator fragmentation");
    }
    return qs(toString(classification));
}

QString formatRelativeTime(int64_t ns, int64_t originNs, int64_t resolutionNs)
{
    return relativeTimeText(saturatingSub(ns, originNs), resolutionNs);
}

QString formatReportDuration(int64_t ns)
{
    return durationText(ns, kMillisecondNs);
}

QString formatEvidenceValue(const EvidenceValue& value)
{
    if (!value.label.empty())
        return qs(value.label);
    switch (value.unit) {
    case EvidenceUnit::Bytes:
        return bytesText(value.value);
    case EvidenceUnit::BytesPerSecond:
        return bytesPerSecondText(value.value);
    case EvidenceUnit::Ratio:
        return QStringLiteral("%1 (%2)").arg(value.value).arg(percentText(value.value));
    case EvidenceUnit::Ticks:
        return QStringLiteral("%1 ticks").arg(value.value);
    case EvidenceUnit::Seconds:
        return QStringLiteral("%1 s").arg(value.value);
    case EvidenceUnit::Nanoseconds:
        if (const auto ns = toInt64(value.value))
            return formatReportDuration(*ns);
        break;
    case EvidenceUnit::Count:
    case EvidenceUnit::ZScore:
    case EvidenceUnit::Probability:
        break;
    }
    // an integer beyond the int64 range (or not finite) is printed as the double it is
    if (const auto whole = value.isInteger ? toInt64(value.value) : std::nullopt)
        return QString::number(qlonglong(*whole));
    return QString::number(value.value, 'g', 10);
}

QString phaseAttributionText(const std::optional<PhaseAttribution>& a)
{
    if (!a)
        return QStringLiteral("none");
    if (a->resolution == PhaseResolution::Unique)
        return qs(a->phasePath.value_or(a->phasePaths.empty() ? std::string() : a->phasePaths.front()));
    QStringList paths;
    for (const auto& p : a->phasePaths)
        paths << qs(p);
    QString text = QStringLiteral("ambiguous (%1)").arg(paths.join(QStringLiteral(", ")));
    if (a->summary)
        text += QStringLiteral(", most recent: %1").arg(qs(a->summary->phasePath));
    return text;
}

ReportContent buildReportContent(const AnalysisResult& result, bool crossRankAnalyses)
{
    const TraceData& trace = *result.trace;
    const SessionInfo& session = trace.sessions[result.sessionIndex];
    const EventStore& store = trace.store;

    ReportContent c;
    c.kind = ReportKind::StormlogTrace;
    c.path = trace.path;
    c.form = toString(trace.form);
    c.recordsRead = trace.recordsRead;
    c.recordsLoaded = qint64(store.size());
    c.recordsRejected = trace.problems.errorCount();
    c.warnings = trace.problems.warningCount();
    for (size_t i = 0; i < std::min(kReportedProblems, trace.problems.kept().size()); ++i)
        c.problems.push_back(toReportProblem(trace.problems.kept()[i]));

    c.sessionId = session.id;
    c.sessionStatus = toString(session.status);
    c.host = session.host;
    c.rank = result.rank;
    for (const auto& s : trace.sessions)
        c.sessions.push_back({s.id, toString(s.status), s.host, s.pid, s.jobId, s.ranks, s.eventCount});
    c.eventCount = qint64(result.partition.size());
    c.window = result.request.window;
    c.deviceUsedSource = result.deviceUsedSource;
    if (crossRankAnalyses)
        c.jobAnalysis = jobAnalysisOf(result);
    c.originNs = result.partition.size() ? store.timestampNs[result.partition.begin] : 0;

    c.backend = qs(toString(result.backend));
    c.samples = result.usableRows.size();
    if (!result.usableRows.empty()) {
        c.firstTimestampNs = store.timestampNs[result.usableRows.front()];
        c.lastTimestampNs = store.timestampNs[result.usableRows.back()];
        // the first largest gap, the rows read a block at a time
        Int64ColumnReader used(store.used), reserved(store.reserved);
        uint32_t peak = result.usableRows.front();
        int64_t peakGap = gapBytes(used[peak], reserved[peak]);
        for (const uint32_t row : result.usableRows) {
            if (const int64_t gap = gapBytes(used[row], reserved[row]); gap > peakGap) {
                peak = row;
                peakGap = gap;
            }
        }
        c.peakGapBytes = store.gapAt(peak);
        c.peakGapTimestampNs = store.timestampNs[peak];
    }

    // read at the span of the analysed events, as the findings table reads them
    const int64_t span = result.partition.size() ? saturatingSub(store.timestampNs[result.partition.end - 1],
                                                                 store.timestampNs[result.partition.begin])
                                                 : 0;
    for (const Finding& f : result.findings)
        c.findings.push_back(toReportFinding(f, c.originNs, timeResolutionNs(span)));
    c.notices = result.notices;
    for (auto name : GapThresholds::names())
        c.thresholds.push_back({std::string(name), *result.request.thresholds.get(name)});
    for (const OomInfo& oom : trace.ooms) {
        ReportOom r;
        r.timeNs = oom.timeNs;
        r.timeFromEvent = oom.timeFromEvent;
        if (oom.timeNs)
            r.relativeTime = formatRelativeTime(*oom.timeNs, c.originNs, timeResolutionNs(span));
        r.reason = oom.reason;
        r.exceptionType = oom.exceptionType;
        r.exceptionModule = oom.exceptionModule;
        r.exceptionMessage = oom.exceptionMessage;
        r.bundle = oom.bundlePath;
        r.facts = oomKeyFacts(oom);
        c.ooms.push_back(std::move(r));
    }
    return c;
}

std::vector<Notice> reportNotices(const ReportContent& content)
{
    if (!content.job)
        return content.notices;
    std::vector<Notice> notices = content.job->notices;
    for (const Notice& notice : content.notices) {
        const auto sameCode = [&notice](const Notice& n) { return n.code == notice.code; };
        if (std::none_of(content.job->notices.begin(), content.job->notices.end(), sameCode))
            notices.push_back(notice);
    }
    return notices;
}

namespace {

// gap_not_observable on every present rank, recorded the same way: one notice for the job.
// A job of one present rank says nothing more than the rank does.
std::vector<Notice> jobWideNotices(const std::vector<ReportRank>& ranks)
{
    size_t present = 0;
    int64_t samples = 0;
    std::optional<BlindRelation> recordedAs;
    const NoticeValue* collector = nullptr;
    for (const ReportRank& rank : ranks) {
        if (!rank.present)
            continue;
        ++present;
        const Notice* blind = findNotice(rank.notices, notice_code::kGapNotObservable);
        if (!blind)
            return {};
        const auto* count = std::get_if<int64_t>(blind->field("samples"));
        const auto* text = std::get_if<std::string>(blind->field("recorded_as"));
        const std::optional<BlindRelation> relation = text ? blindRelationFromString(*text) : std::nullopt;
        if (!count || !relation || (recordedAs && *recordedAs != *relation))
            return {};
        samples = saturatingAdd(samples, *count);
        recordedAs = relation;
        if (!collector)
            collector = blind->field("collector");
    }
    if (present < 2)
        return {};
    const auto* name = collector ? std::get_if<std::string>(collector) : nullptr;
    return {gapNotObservableNotice(size_t(samples), name ? *name : std::string(), *recordedAs, present)};
}

} // namespace

ReportJob buildReportJob(const JobData& job,
                         const std::vector<std::shared_ptr<const AnalysisResult>>& rankAnalyses,
                         const JobAnalysisResult* crossRank)
{
    ReportJob r;
    r.originNs = job.firstTimestampNs;
    r.mode = job.mode == JobMode::Session ? QStringLiteral("session") : QStringLiteral("job");
    r.jobId = job.jobId;
    r.worldSize = job.worldSize;
    for (const JobInput& input : job.inputs) {
        const SessionInfo& session = input.trace->sessions[input.sessionIndex];
        r.inputs.push_back({input.path, toString(input.trace->form), session.id, session.ranks,
                            input.trace->recordsRead, input.trace->problems.errorCount(),
                            input.trace->problems.warningCount()});
    }
    for (const LoadProblem& p : job.problems.kept())
        r.notes.push_back(toReportProblem(p));
    r.notesNotKept = saturatingSub(saturatingAdd(job.problems.errorCount(), job.problems.warningCount()),
                                   qint64(r.notes.size()));
    for (size_t i = 0; i < job.ranks.size(); ++i) {
        const JobRank& rank = job.ranks[i];
        ReportRank row;
        row.rank = rank.rank;
        row.present = rank.present && !rank.parts.empty();
        row.sampleCount = rank.sampleCount;
        if (row.present) {
            const JobInput& input = job.inputs[rank.parts.front().inputIndex];
            row.input = input.path;
            row.session = input.trace->sessions[input.sessionIndex].id;
            row.host = rank.host;
            row.localRank = rank.localRank;
        }
        const AnalysisResult* analysis = i < rankAnalyses.size() ? rankAnalyses[i].get() : nullptr;
        if (row.present && analysis) {
            const EventStore& store = analysis->trace->store;
            if (!analysis->usableRows.empty()) {
                row.latestGapBytes = store.gapAt(analysis->usableRows.back());
                int64_t peak = 0;
                for (uint32_t sampleRow : analysis->usableRows)
                    peak = std::max(peak, absoluteGap(store.gapAt(sampleRow)));
                row.peakAbsGapBytes = peak;
            }
            row.originNs = analysis->partition.size() ? store.timestampNs[analysis->partition.begin] : 0;
            for (const Finding& f : analysis->findings)
                row.findings.push_back(toReportFinding(f, row.originNs));
            row.notices = analysis->notices;
        }
        r.ranks.push_back(std::move(row));
    }
    r.notices = jobWideNotices(r.ranks);
    if (!crossRank)
        return r;
    r.crossRank = true;
    // gapscope's own judgement of the job: its notices after the ranks', its rank_divergence
    // findings (first_cause and collective_memory are upstream's sections below)
    for (Notice& notice : jobNotices(*crossRank))
        r.notices.push_back(std::move(notice));
    for (const Finding& f : jobFindings(*crossRank, jobBackend(job), &job))
        if (f.classification == Classification::RankDivergence)
            r.findings.push_back(toReportFinding(f, r.originNs));
    const auto rowOf = [&r](int64_t rank) -> ReportRank* {
        for (ReportRank& row : r.ranks)
            if (row.rank == rank)
                return &row;
        return nullptr;
    };
    for (const CollectiveAttribution& a : crossRank->collective)
        if (ReportRank* row = rowOf(a.rank))
            row->collective.push_back({a.intervalStartNs, a.intervalEndNs, qs(toString(a.classification)),
                                       a.confidence, phaseAttributionText(a.phase)});
    if (crossRank->crossRank) {
        r.clusterOnsetNs = crossRank->crossRank->clusterOnsetTimestampNs;
        const auto& suspects = crossRank->crossRank->suspects;
        for (size_t i = 0; i < suspects.size(); ++i)
            if (ReportRank* row = rowOf(suspects[i].rank); row && !row->firstCause)
                row->firstCause =
                    ReportFirstCause{qs(toString(suspects[i].confidence)), suspects[i].firstSpikeTimestampNs,
                                     suspects[i].leadOverClusterOnsetNs, suspects[i].peakDeltaBytes, i};
    }
    return r;
}

ReportContent buildJobFindingReport(const JobData& job, const Finding& finding, const QString& jobPath)
{
    ReportContent c;
    c.kind = ReportKind::StormlogTrace;
    c.path = jobPath;
    c.originNs = job.firstTimestampNs;
    const JobRank* rank = finding.rank ? job.findRank(*finding.rank) : nullptr;
    if (rank && rank->present && !rank->parts.empty()) {
        const JobInput& input = job.inputs[rank->parts.front().inputIndex];
        const SessionInfo& session = input.trace->sessions[input.sessionIndex];
        c.sessionId = session.id;
        c.sessionStatus = toString(session.status);
        c.host = rank->host;
        c.rank = rank->rank;
    } else if (finding.rank) {
        c.rank = *finding.rank;
    }
    c.findings.push_back(toReportFinding(finding, c.originNs));
    return c;
}

ReportContent buildBudgetReportContent(const BudgetData& data, const std::vector<Finding>& findings,
                                       const BudgetThresholds& thresholds)
{
    const BudgetTicks& ticks = data.ticks;
    ReportContent c;
    c.kind = ReportKind::BudgetLog;
    c.path = data.path;
    c.form = QString::fromLatin1(toString(data.form));
    c.recordsRead = data.linesRead;
    c.recordsLoaded = data.linesUsed;
    c.recordsRejected = data.problems.errorCount();
    c.warnings = data.problems.warningCount();
    for (size_t i = 0; i < std::min(kReportedProblems, data.problems.kept().size()); ++i)
        c.problems.push_back(toReportProblem(data.problems.kept()[i]));
    c.eventCount = qint64(ticks.size());
    c.sampleNoun = QStringLiteral("ticks");
    c.backend = ticks.empty() || !ticks.hasJemalloc(0) ? QStringLiteral("system allocator")
                                                       : QStringLiteral("jemalloc");
    c.samples = ticks.size();
    if (!ticks.empty()) {
        c.originNs = ticks.timestampNs.front();
        c.firstTimestampNs = ticks.timestampNs.front();
        c.lastTimestampNs = ticks.timestampNs.back();
        size_t peak = 0;
        for (size_t i = 1; i < ticks.size(); ++i)
            if (ticks.rssBytes[i] > ticks.rssBytes[peak])
                peak = i;
        c.peakRssBytes = ticks.rssBytes[peak];
        c.peakRssTimestampNs = ticks.timestampNs[peak];
    }
    if (data.tickPeriodNs > 0)
        c.tickPeriodNs = data.tickPeriodNs;
    for (const Finding& f : findings)
        c.findings.push_back(toReportFinding(f, c.originNs, timeResolutionNs(c.durationNs().value_or(0))));
    const BudgetThresholds& t = thresholds;
    c.thresholds = {
        {"min_trend_ticks", double(t.minTrendTicks)},
        {"growth_r_squared", t.growthRSquared},
        {"growth_p_value", t.growthPValue},
        {"min_growth_bytes", double(t.minGrowthBytes)},
        {"flat_tolerance_bytes", double(t.flatToleranceBytes)},
        {"flat_tolerance_share", t.flatToleranceShare},
        {"retention_share_of_growth", t.retentionShareOfGrowth},
        {"critical_r_squared", t.criticalRSquared},
        {"critical_growth_share_of_target", t.criticalGrowthShareOfTarget},
        {"wedge_skip_ticks", double(t.wedgeSkipTicks)},
        {"over_target_share", t.overTargetShare},
        {"hard_ceiling_approach_share", t.hardCeilingApproachShare},
        {"thrash_alternations", double(t.thrashAlternations)},
        {"thrash_window_ticks", double(t.thrashWindowTicks)},
        {"low_hit_rate", t.lowHitRate},
        {"low_hit_rate_budget_share", t.lowHitRateBudgetShare},
        {"min_hit_rate_ticks", double(t.minHitRateTicks)},
    };
    if (t.hardCeilingBytes)
        c.thresholds.push_back({"hard_ceiling_bytes", double(*t.hardCeilingBytes)});
    for (auto name : GapThresholds::names())
        c.thresholds.push_back({"os_gap." + std::string(name), *t.osGap.get(name)});
    return c;
}

} // namespace gapscope
