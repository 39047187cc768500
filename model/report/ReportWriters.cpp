#include "model/report/ReportWriters.h"
#include "model/text/Text.h"

#include "analysis/Units.h"
#include "model/report/JobAnalysisJson.h"
#include "model/report/JsonWriter.h"

#include <QDateTime>
#include <QLocale>
#include <QTextStream>
#include <QUrl>

#include <algorithm>
#include <charconv>
#include <concepts>
#include <type_traits>
#include <variant>

namespace gapscope {

QString formatUtcTime(int64_t ns)
{
    // floor division: timestamps before 1970 must not round towards zero (nor overflow at
    // the bottom of the int64 range)
    const int64_t ms = ns / 1000000 - (ns % 1000000 < 0 ? 1 : 0);
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

namespace {

QString sessionText(const ReportContent& c)
{
    return c.sessionId.isEmpty() ? QStringLiteral("(none)") : c.sessionId;
}

QString thresholdText(double value)
{
    return QString::fromLatin1(pythonFloatRepr(value));
}

// Rejected records and warnings beyond the problems the report lists.
qint64 unlistedProblems(const ReportContent& c)
{
    return saturatingSub(saturatingAdd(c.recordsRejected, c.warnings), qint64(c.problems.size()));
}

QString findingsSummary(const ReportContent& c)
{
    int counts[3] = {0, 0, 0};
    for (const auto& f : c.findings)
        ++counts[int(f.severity)];
    if (c.findings.empty())
        return QStringLiteral("none");
    QStringList parts;
    if (counts[int(Severity::Critical)])
        parts << QStringLiteral("%1 critical").arg(counts[int(Severity::Critical)]);
    if (counts[int(Severity::Warning)])
        parts << QStringLiteral("%1 warning").arg(counts[int(Severity::Warning)]);
    if (counts[int(Severity::Info)])
        parts << QStringLiteral("%1 info").arg(counts[int(Severity::Info)]);
    return parts.join(QStringLiteral(", "));
}

QString noticeSeverityTitle(NoticeSeverity severity)
{
    QString name = qs(toString(severity));
    name[0] = name[0].toUpper();
    return name;
}

} // namespace

QString reportNoFindingsText(const ReportContent& c)
{
    if (c.kind == ReportKind::BudgetLog)
        return QStringLiteral("No budget findings.");
    if (findNotice(reportNotices(c), notice_code::kGapNotObservable))
        return QStringLiteral("No hidden-memory findings, and none could be found: the gap cannot be "
                              "observed in this trace (see Notices).");
    return QStringLiteral("No hidden-memory findings.");
}

void writePhaseAttribution(JsonWriter& json, const PhaseAttribution& a)
{
    json.beginObject();
    json.field("phase_resolution", toString(a.resolution));
    json.key("phase_paths").beginArray();
    for (const auto& path : a.phasePaths)
        json.value(path);
    json.endArray();
    if (a.source)
        json.field("phase_source", *a.source);
    if (a.phasePath)
        json.field("phase_path", *a.phasePath);
    if (a.scopeId)
        json.field("scope_id", *a.scopeId);
    if (a.threadId)
        json.field("thread_id", *a.threadId);
    if (a.threadName)
        json.field("thread_name", *a.threadName);
    if (a.summary) {
        json.key("phase_summary").beginObject();
        json.field("phase_path", a.summary->phasePath);
        json.field("source", a.summary->source);
        json.endObject();
    }
    json.endObject();
}

namespace {

// Which findings a list takes: upstream's "gap_analysis" (and the budget rules'), or gapscope's
// own findings on the allocator's counters, written apart as "allocator_findings" so that
// gap_analysis stays exactly upstream's.
enum class FindingList
{
    GapAnalysis,
    Allocator
};

bool inList(const ReportFinding& f, FindingList list)
{
    return isAllocatorClassification(f.classification) == (list == FindingList::Allocator);
}

bool anyInList(const std::vector<ReportFinding>& findings, FindingList list)
{
    return std::any_of(findings.begin(), findings.end(),
                       [list](const ReportFinding& f) { return inList(f, list); });
}

// `start_step`, `end_step` (and `start_epoch`, `end_epoch` where the epoch is named), and
// `step_count`, where both ends have a step.
void writeStepRange(JsonWriter& json, const std::optional<StepRef>& first, const std::optional<StepRef>& last,
                    size_t stepCount)
{
    if (!first || !last)
        return;
    if (first->epoch)
        json.field("start_epoch", *first->epoch);
    json.field("start_step", first->step);
    if (last->epoch)
        json.field("end_epoch", *last->epoch);
    json.field("end_step", last->step);
    json.field("step_count", int64_t(stepCount));
}

// gapscope's own keys after upstream's (docs/report-json.md): written only where they say
// something, so a finding without steps, episodes or intervals keeps upstream's keys alone.
void writeFindingShape(JsonWriter& json, const ReportFinding& f)
{
    if (f.step) {
        json.key("evidence_step").beginObject();
        if (f.step->epoch)
            json.field("epoch", *f.step->epoch);
        json.field("step", f.step->step);
        json.endObject();
    }
    if (!f.episodes.empty()) {
        json.key("episodes").beginArray();
        for (const SpikeEpisode& e : f.episodes) {
            json.beginObject();
            json.field("start_ns", e.startNs);
            json.field("end_ns", e.endNs);
            json.field("peak_gap_bytes", e.peakGapBytes);
            json.field("peak_ns", e.peakNs);
            json.field("samples", int64_t(e.samples));
            json.field("spike_samples", int64_t(e.spikeSamples));
            writeStepRange(json, e.startStep, e.endStep, e.stepCount);
            json.endObject();
        }
        json.endArray();
    }
    if (!f.growthIntervals.empty()) {
        json.key("growth_intervals").beginArray();
        for (const GrowthInterval& g : f.growthIntervals) {
            json.beginObject();
            json.field("start_ns", g.startNs);
            json.field("end_ns", g.endNs);
            json.field("growth_bytes", g.growthBytes);
            json.field("still_growing", g.stillGrowing);
            writeStepRange(json, g.startStep, g.endStep, g.stepCount);
            json.endObject();
        }
        json.endArray();
    }
}

// The list upstream calls "gap_analysis", or gapscope's own "allocator_findings".
void writeFindings(JsonWriter& json, const std::vector<ReportFinding>& findings,
                   FindingList list = FindingList::GapAnalysis)
{
    json.beginArray();
    for (const ReportFinding& f : findings) {
        if (!inList(f, list))
            continue;
        json.beginObject();
        json.field("classification", toString(f.classification));
        json.field("severity", toString(f.severity));
        json.field("confidence", f.confidence);
        if (!f.ranks.empty()) { // a job finding: its rank (of the evidence) and every rank it names
            if (f.rank)
                json.field("rank", *f.rank);
            json.key("ranks").beginArray();
            for (const int64_t rank : f.ranks)
                json.value(rank);
            json.endArray();
        }
        json.key("evidence").beginObject();
        for (const auto& e : f.evidence) {
            json.key(e.key);
            if (!e.label.empty())
                json.value(e.label);
            else if (const auto whole = e.isInteger ? toInt64(e.value) : std::nullopt)
                json.value(*whole);
            else
                json.value(e.value);
        }
        json.endObject();
        json.field("evidence_timestamp_ns", f.timestampNs);
        json.key("phase_attribution");
        if (f.phase)
            writePhaseAttribution(json, *f.phase);
        else
            json.null();
        json.field("description", f.description);
        json.key("remediation").beginArray();
        for (const auto& step : f.remediation)
            json.value(step);
        json.endArray();
        writeFindingShape(json, f);
        json.endObject();
    }
    json.endArray();
}

} // namespace

void writeNoticesJson(JsonWriter& json, const std::vector<Notice>& notices)
{
    json.beginArray();
    for (const Notice& notice : notices) {
        json.beginObject();
        json.field("code", notice.code);
        json.field("severity", toString(notice.severity));
        json.field("title", notice.title);
        json.field("message", notice.message);
        for (const NoticeField& f : notice.fields) {
            json.key(f.key);
            std::visit(
                [&json](const auto& value) {
                    using Value = std::decay_t<decltype(value)>;
                    if constexpr (std::is_same_v<Value, std::monostate>) {
                        json.null();
                    } else if constexpr (std::is_same_v<Value, std::vector<std::string>> ||
                                         std::is_same_v<Value, std::vector<int64_t>>) {
                        json.beginArray();
                        for (const auto& item : value)
                            json.value(item);
                        json.endArray();
                    } else {
                        json.value(value);
                    }
                },
                f.value);
        }
        json.endObject();
    }
    json.endArray();
}

namespace {

void writeNotices(JsonWriter& json, const std::vector<Notice>& notices)
{
    writeNoticesJson(json, notices);
}

// withLine: a record's problem has a line; a job's note is about a whole file.
void writeProblem(JsonWriter& json, const ReportProblem& p, bool withLine)
{
    json.beginObject();
    json.field("file", p.file);
    if (withLine)
        json.field("line", int64_t(p.line));
    if (p.index >= 0)
        json.field("index", int64_t(p.index));
    json.field("level", p.isError ? "error" : "warning");
    json.field("reason", p.reason);
    json.endObject();
}

// "ranks" (each with its own gap analysis, as `analyze INPUT --rank N` writes it) and "job".
void writeJob(JsonWriter& json, const ReportJob& job)
{
    json.key("ranks").beginArray();
    for (const ReportRank& r : job.ranks) {
        json.beginObject();
        json.field("rank", r.rank);
        json.field("present", r.present);
        const auto text = [&](const QString& value) {
            return r.present ? std::optional<QString>(value) : std::nullopt;
        };
        json.optionalField("input", text(r.input));
        json.optionalField("session", text(r.session));
        json.optionalField("host", text(r.host));
        json.optionalField("local_rank", r.present ? std::optional<int64_t>(r.localRank) : std::nullopt);
        json.field("sample_count", uint64_t(r.sampleCount));
        json.optionalField("latest_gap_bytes", r.latestGapBytes);
        json.optionalField("peak_abs_gap_bytes", r.peakAbsGapBytes);
        json.key("gap_analysis");
        if (r.present)
            writeFindings(json, r.findings);
        else
            json.null();
        json.key("notices");
        if (r.present)
            writeNotices(json, r.notices);
        else
            json.null();
        if (r.present && anyInList(r.findings, FindingList::Allocator)) {
            json.key("allocator_findings");
            writeFindings(json, r.findings, FindingList::Allocator);
        }
        json.endObject();
    }
    json.endArray();

    json.key("job").beginObject();
    json.field("mode", job.mode);
    json.optionalField("job_id", job.jobId.isEmpty() ? std::nullopt : std::optional<QString>(job.jobId));
    json.field("world_size", job.worldSize);
    json.key("inputs").beginArray();
    for (const ReportJobInput& input : job.inputs) {
        json.beginObject();
        json.field("path", input.path);
        json.field("form", input.form);
        json.field("session", input.session);
        json.key("ranks").beginArray();
        for (int64_t rank : input.ranks)
            json.value(rank);
        json.endArray();
        json.field("records_read", int64_t(input.recordsRead));
        json.field("records_rejected", int64_t(input.recordsRejected));
        json.field("warnings", int64_t(input.warnings));
        json.endObject();
    }
    json.endArray();
    json.key("notes").beginArray();
    for (const ReportProblem& note : job.notes)
        writeProblem(json, note, false);
    json.endArray();
    if (job.notesNotKept > 0)
        json.field("notes_not_listed", int64_t(job.notesNotKept));
    json.key("findings");
    writeFindings(json, job.findings);
    json.endObject();
}

} // namespace

std::vector<std::pair<QString, QString>> reportInputRows(const ReportContent& c)
{
    std::vector<std::pair<QString, QString>> rows;
    if (c.job)
        rows.emplace_back(QStringLiteral("Job"), reportJobSummary(*c.job));
    rows.emplace_back(QStringLiteral("Input"), QStringLiteral("%1 (%2)").arg(c.path, c.form));
    if (c.kind == ReportKind::StormlogTrace) {
        rows.emplace_back(
            QStringLiteral("Session"),
            QStringLiteral("%1, rank %2, %3").arg(sessionText(c)).arg(c.rank).arg(c.sessionStatus));
        rows.emplace_back(QStringLiteral("Host"), c.host.isEmpty() ? QStringLiteral("(unknown)") : c.host);
        rows.emplace_back(QStringLiteral("Backend"), c.backend);
        // the line of the text report without its "device used: "
        const QString source = deviceUsedSourceText(c.deviceUsedSource.get());
        rows.emplace_back(QStringLiteral("Device used"), source.mid(source.indexOf(QLatin1Char(':')) + 2));
    }
    rows.emplace_back(QStringLiteral("Records"),
                      QStringLiteral("%1 read, %2 loaded, %3 rejected, %4 warnings")
                          .arg(c.recordsRead)
                          .arg(c.recordsLoaded)
                          .arg(c.recordsRejected)
                          .arg(c.warnings));
    if (c.firstTimestampNs && c.lastTimestampNs)
        rows.emplace_back(QStringLiteral("Time range"), QStringLiteral("%1 to %2")
                                                            .arg(formatUtcTime(*c.firstTimestampNs))
                                                            .arg(formatUtcTime(*c.lastTimestampNs)));
    if (c.window)
        rows.emplace_back(QStringLiteral("Window"),
                          QStringLiteral("%1 to %2 (%3 to %4 ns)")
                              .arg(formatRelativeTime(c.window->beginNs, c.originNs),
                                   formatRelativeTime(c.window->endNs, c.originNs))
                              .arg(c.window->beginNs)
                              .arg(c.window->endNs));
    return rows;
}

QString reportJobSummary(const ReportJob& job)
{
    const auto present =
        std::count_if(job.ranks.begin(), job.ranks.end(), [](const ReportRank& r) { return r.present; });
    const qsizetype missing = qsizetype(job.ranks.size()) - qsizetype(present);
    QString text = job.jobId.isEmpty() ? QStringLiteral("a job without job id")
                                       : QStringLiteral("job %1").arg(job.jobId);
    text += job.mode == QLatin1String("session")
                ? QStringLiteral(": one input's session")
                : englishPlural(QStringLiteral(": %1 input(s)"), qint64(job.inputs.size()))
                      .arg(job.inputs.size());
    text += QStringLiteral(", world size %1, ").arg(job.worldSize);
    text += englishPlural(QStringLiteral("%1 rank(s) present, "), qint64(present)).arg(present);
    text += missing == 0 ? QStringLiteral("none missing") : QStringLiteral("%1 missing").arg(missing);
    return text;
}

ReportTable reportRankTable(const ReportContent& c)
{
    ReportTable table;
    if (!c.job)
        return table;
    const bool crossRank = c.job->crossRank;
    table.header =
        QStringList{QStringLiteral("Rank"),    QStringLiteral("Host"),       QStringLiteral("Present"),
                    QStringLiteral("Samples"), QStringLiteral("Latest gap"), QStringLiteral("Peak |gap|"),
                    QStringLiteral("Findings")};
    if (crossRank)
        table.header << QStringLiteral("Collective spikes") << QStringLiteral("First cause");
    // the codes of each rank's notices, in a column only when a rank has one
    const bool notices = std::any_of(c.job->ranks.begin(), c.job->ranks.end(),
                                     [](const ReportRank& r) { return !r.notices.empty(); });
    if (notices)
        table.header << QStringLiteral("Notices");
    table.header << QStringLiteral("Input");
    const QString none = QStringLiteral("—");
    const auto bytes = [&](const std::optional<int64_t>& value) { return value ? bytesText(*value) : none; };
    for (const ReportRank& r : c.job->ranks) {
        QStringList row{QString::number(r.rank)};
        if (!r.present) {
            row << none << QStringLiteral("missing") << QStringLiteral("0") << none << none << none;
            if (crossRank)
                row << none << none;
            if (notices)
                row << none;
            table.rows.push_back(row << none);
            continue;
        }
        row << (r.host.isEmpty() ? none : r.host) << QStringLiteral("yes") << countText(r.sampleCount)
            << bytes(r.latestGapBytes) << bytes(r.peakAbsGapBytes) << QString::number(r.findings.size());
        if (crossRank)
            row << QString::number(r.collective.size()) << (r.firstCause ? r.firstCause->confidence : none);
        if (notices) {
            QStringList codes;
            for (const Notice& n : r.notices)
                codes << qs(n.code);
            row << (codes.isEmpty() ? none : codes.join(QStringLiteral(", ")));
        }
        table.rows.push_back(row << r.input);
    }
    return table;
}

std::vector<ReportJobSection> reportJobSections(const ReportContent& c)
{
    std::vector<ReportJobSection> sections;
    if (!c.job)
        return sections;
    const ReportJob& job = *c.job;
    const auto at = [&](int64_t ns) { return formatRelativeTime(ns, job.originNs); };
    if (job.crossRank) {
        ReportJobSection collective;
        collective.title = QStringLiteral("Collective spikes");
        collective.intro = QStringLiteral("Hidden-memory spikes the collective attribution puts down to "
                                          "communication (times from the job's first event).");
        collective.table.header = QStringList{QStringLiteral("Rank"),       QStringLiteral("From"),
                                              QStringLiteral("To"),         QStringLiteral("Classification"),
                                              QStringLiteral("Confidence"), QStringLiteral("Phase")};
        for (const ReportRank& r : job.ranks)
            for (const ReportCollectiveInterval& i : r.collective)
                collective.table.rows.push_back(QStringList{QString::number(r.rank), at(i.startNs),
                                                            at(i.endNs), i.classification,
                                                            confidenceText(i.confidence), i.phaseText});
        collective.empty = QStringLiteral("No spike is attributed to communication.");
        sections.push_back(collective);

        ReportJobSection firstCause;
        firstCause.title = QStringLiteral("First cause");
        firstCause.intro =
            job.clusterOnsetNs
                ? QStringLiteral("The ranks whose first spike came at or before the cluster onset "
                                 "(%1), earliest first.")
                      .arg(at(*job.clusterOnsetNs))
                : QStringLiteral("The ranks whose first spike came earliest.");
        firstCause.table.header = QStringList{
            QStringLiteral("Rank"), QStringLiteral("First spike"), QStringLiteral("Lead over onset"),
            QStringLiteral("Device used added"), QStringLiteral("Confidence")};
        std::vector<const ReportRank*> suspects;
        for (const ReportRank& r : job.ranks)
            if (r.firstCause)
                suspects.push_back(&r);
        std::sort(suspects.begin(), suspects.end(), [](const ReportRank* a, const ReportRank* b) {
            return a->firstCause->order < b->firstCause->order;
        });
        for (const ReportRank* r : suspects)
            firstCause.table.rows.push_back(
                QStringList{QString::number(r->rank), at(r->firstCause->firstSpikeNs),
                            formatReportDuration(r->firstCause->leadOverOnsetNs),
                            bytesText(r->firstCause->peakDeltaBytes), r->firstCause->confidence});
        firstCause.empty = QStringLiteral("No rank spiked first (or the job has one rank).");
        if (const Notice* startup = findNotice(job.notices, notice_code::kFirstCauseAtStartup))
            firstCause.trailer =
                qs(startup->title) + QStringLiteral(": information, not an alarm (see Notices).");
        sections.push_back(firstCause);
    }
    if (job.crossRank) {
        ReportJobSection divergence;
        divergence.title = QStringLiteral("Rank divergence");
        divergence.intro = QStringLiteral(
            "Ranks whose gap or reserved memory departs from their peers' in level or slope (median and "
            "median absolute deviation over the other ranks; at least 64 MiB or 10 % of their level).");
        divergence.table.header =
            QStringList{QStringLiteral("Severity"),    QStringLiteral("Ranks"),     QStringLiteral("Series"),
                        QStringLiteral("Above peers"), QStringLiteral("Faster by"), QStringLiteral("Since")};
        QStringList descriptions;
        for (const ReportFinding& f : job.findings) {
            if (f.classification != Classification::RankDivergence)
                continue;
            QStringList ranks;
            for (const int64_t rank : f.ranks)
                ranks << QString::number(rank);
            const auto evidenceText = [&f](std::string_view key) {
                for (const ReportEvidence& e : f.evidence)
                    if (e.key == key)
                        return e.text;
                return QStringLiteral("—");
            };
            divergence.table.rows.push_back(QStringList{
                qs(toString(f.severity)), ranks.join(QStringLiteral(", ")), evidenceText("series"),
                evidenceText("excess_bytes"), evidenceText("excess_bytes_per_second"), at(f.timestampNs)});
            descriptions << f.description;
        }
        divergence.empty = QStringLiteral("No rank departs from its peers.");
        divergence.trailer = descriptions.join(QLatin1Char(' '));
        sections.push_back(divergence);
    }
    if (!job.notes.empty()) {
        ReportJobSection notes;
        notes.title = QStringLiteral("Job notes");
        notes.table.header =
            QStringList{QStringLiteral("Level"), QStringLiteral("File"), QStringLiteral("Note")};
        for (const ReportProblem& note : job.notes)
            notes.table.rows.push_back(QStringList{
                note.isError ? QStringLiteral("error") : QStringLiteral("warning"), note.file, note.reason});
        if (job.notesNotKept > 0)
            notes.trailer = QStringLiteral("%1 more not listed.").arg(job.notesNotKept);
        sections.push_back(notes);
    }
    return sections;
}

std::vector<ReportSummaryFigure> reportSummaryFigures(const ReportContent& c)
{
    std::vector<ReportSummaryFigure> figures;
    QString noun = c.sampleNoun;
    if (!noun.isEmpty())
        noun[0] = noun[0].toUpper();
    QString detail =
        QStringLiteral("of %1 events").arg(countText(uint64_t(std::max<qint64>(0, c.eventCount))));
    if (c.kind == ReportKind::BudgetLog)
        detail = c.tickPeriodNs ? QStringLiteral("one every %1").arg(formatReportDuration(*c.tickPeriodNs))
                                : QString();
    figures.push_back({noun + QStringLiteral(" analysed"), countText(c.samples), detail});
    if (auto duration = c.durationNs())
        figures.push_back({QStringLiteral("Duration"), formatReportDuration(*duration), QString()});
    const std::vector<Notice> notices = reportNotices(c);
    const Notice* blind = findNotice(notices, notice_code::kGapNotObservable);
    if (c.peakGapBytes && blind) {
        // a peak of 0 B would read as "nothing outside the allocator": it is not a measurement
        const auto* recordedAs = std::get_if<std::string>(blind->field("recorded_as"));
        figures.push_back(
            {QStringLiteral("Peak gap"), QStringLiteral("not observable"),
             recordedAs ? QStringLiteral("device used is %1").arg(qs(*recordedAs)) : QString()});
    } else if (c.peakGapBytes) {
        figures.push_back(
            {QStringLiteral("Peak gap"), bytesText(double(*c.peakGapBytes)),
             QStringLiteral("at %1").arg(formatRelativeTime(*c.peakGapTimestampNs, c.originNs))});
    }
    if (c.peakRssBytes)
        figures.push_back({QStringLiteral("Peak RSS"), bytesText(double(*c.peakRssBytes)),
                           c.peakRssTimestampNs ? QStringLiteral("at %1").arg(
                                                      formatRelativeTime(*c.peakRssTimestampNs, c.originNs))
                                                : QString()});
    figures.push_back({QStringLiteral("Findings"), QString::number(c.findings.size()), findingsSummary(c)});
    return figures;
}

// ---------------------------------------------------------------------------------- JSON

// Where device used came from: the trace's own field, or an attached nvidia-smi log.
void writeDeviceUsedSourceJson(JsonWriter& json, const DeviceUsedSource* source)
{
    json.key("device_used_source").beginObject();
    if (!source) {
        json.field("kind", "trace");
        json.endObject();
        return;
    }
    json.field("kind", "nvidia-smi");
    json.field("path", source->path);
    json.field("time_zone", source->timeZone);
    json.field("scope", toString(source->scope));
    json.key("pids").beginArray();
    for (int64_t pid : source->pids)
        json.value(pid);
    json.endArray();
    json.field("matched_samples", int64_t(source->matchedSamples));
    json.field("unmatched_samples", int64_t(source->unmatchedSamples));
    json.field("unmatched_before_log", int64_t(source->samplesBefore));
    json.field("unmatched_after_log", int64_t(source->samplesAfter));
    json.field("tolerance_ns", source->toleranceNs);
    json.field("log_rows", int64_t(source->logRows));
    json.field("log_rows_rejected", int64_t(source->logRowsRejected));
    json.endObject();
}

QByteArray reportJson(const ReportContent& c)
{
    JsonWriter json;
    json.beginObject();
    json.field("gapscope_report", kReportSchemaVersion);
    json.field("kind", toString(c.kind));

    json.key("input").beginObject();
    json.field("path", c.path);
    json.field("form", c.form);
    json.field("records_read", int64_t(c.recordsRead));
    json.field("records_loaded", int64_t(c.recordsLoaded));
    json.field("records_rejected", int64_t(c.recordsRejected));
    json.field("warnings", int64_t(c.warnings));
    json.key("problems").beginArray();
    for (const ReportProblem& p : c.problems)
        writeProblem(json, p, true);
    json.endArray();
    json.endObject();

    if (c.kind == ReportKind::StormlogTrace) {
        json.key("session").beginObject();
        json.field("selected", c.sessionId);
        json.field("rank", c.rank);
        json.key("ids").beginArray();
        for (const auto& s : c.sessions)
            json.value(s.id);
        json.endArray();
        json.key("sessions").beginArray();
        for (const auto& s : c.sessions) {
            json.beginObject();
            json.field("id", s.id);
            json.field("status", s.status);
            json.field("host", s.host);
            json.field("pid", int64_t(s.pid));
            if (s.jobId.isEmpty())
                json.nullField("job_id");
            else
                json.field("job_id", s.jobId);
            json.key("ranks").beginArray();
            for (int64_t r : s.ranks)
                json.value(r);
            json.endArray();
            json.field("event_count", int64_t(s.eventCount));
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }

    json.field("event_count", int64_t(c.eventCount));
    if (c.window) {
        json.key("window").beginObject();
        json.field("begin_ns", c.window->beginNs);
        json.field("end_ns", c.window->endNs);
        json.endObject();
    } else {
        json.nullField("window");
    }
    if (c.kind == ReportKind::StormlogTrace)
        writeDeviceUsedSourceJson(json, c.deviceUsedSource.get());

    json.key("thresholds").beginObject();
    for (const auto& t : c.thresholds)
        json.field(t.name, t.value);
    json.endObject();

    json.key("summary").beginObject();
    json.field("backend", c.backend);
    json.field(c.kind == ReportKind::BudgetLog ? "ticks" : "samples", c.samples);
    if (c.firstTimestampNs && c.lastTimestampNs) {
        json.field("first_timestamp_ns", *c.firstTimestampNs);
        json.field("last_timestamp_ns", *c.lastTimestampNs);
        json.field("duration_ns", *c.durationNs());
    }
    if (c.peakGapBytes) {
        json.field("peak_gap_bytes", *c.peakGapBytes);
        json.field("peak_gap_timestamp_ns", *c.peakGapTimestampNs);
    }
    if (c.peakRssBytes) {
        json.field("peak_rss_bytes", *c.peakRssBytes);
        if (c.peakRssTimestampNs)
            json.field("peak_rss_timestamp_ns", *c.peakRssTimestampNs);
    }
    json.endObject();

    // gapscope's own judgement of what the input can show, beside upstream's findings; always
    // written (an empty array: nothing to say) so readers need not test for the key
    json.key("notices");
    writeNotices(json, reportNotices(c));

    // "gap_analysis" is upstream's name for the findings list; budget findings use it too so
    // one reader handles both kinds.
    json.key("gap_analysis");
    writeFindings(json, c.findings);
    // gapscope's own findings on the allocator's counters (allocator_fragmentation); absent when
    // there are none, so that every other report keeps its bytes
    if (anyInList(c.findings, FindingList::Allocator)) {
        json.key("allocator_findings");
        writeFindings(json, c.findings, FindingList::Allocator);
    }
    // upstream's report keys beside its gap_analysis (of the session, or of every input of a job)
    if (c.kind == ReportKind::StormlogTrace && c.jobAnalysis)
        writeJobAnalysisFields(json, *c.jobAnalysis);
    // the trace's out-of-memory errors (stormlog OOM bundles); absent when there are none, so
    // that the reports of every other trace keep their bytes
    if (!c.ooms.empty()) {
        json.key("oom").beginArray();
        for (const ReportOom& o : c.ooms) {
            json.beginObject();
            json.optionalField("time_ns", o.timeNs);
            json.field("time_source", o.timeNs ? (o.timeFromEvent ? QStringLiteral("error_event")
                                                                  : QStringLiteral("created_at_utc"))
                                               : QStringLiteral("unknown"));
            json.field("reason", o.reason);
            json.field("exception_type", o.exceptionType);
            json.field("exception_module", o.exceptionModule);
            json.field("exception_message", o.exceptionMessage);
            json.field("bundle", o.bundle);
            json.endObject();
        }
        json.endArray();
    }
    if (c.job)
        writeJob(json, *c.job);
    json.endObject();
    QByteArray out = json.take();
    out += '\n';
    return out;
}

// ------------------------------------------------------------------------------ Markdown

namespace {

// Text appended to a QString, for the Markdown and HTML writers. QTextStream makes a QString
// of every C string streamed into it (an allocation per literal: 59 of the 148 allocations
// of an HTML report for a fuzz input), and an escaped field was a QString of its own before
// it was copied in. The C strings written here are ASCII literals, appended as Latin-1;
// integers are written as QTextStream wrote them (decimal, no group separators).
class TextOut
{
public:
    explicit TextOut(QString& out) : m_out(out) {}

    // An escaped field, appended without a QString of its own. It views the text: it is
    // made and streamed in one expression.
    struct Html
    {
        QStringView text;
    };
    struct Markdown
    {
        QStringView text;
    };

    TextOut& operator<<(const char* ascii)
    {
        m_out.append(QLatin1StringView(ascii));
        return *this;
    }
    TextOut& operator<<(const QString& text)
    {
        m_out.append(text);
        return *this;
    }
    TextOut& operator<<(Html field)
    {
        appendHtmlEscaped(m_out, field.text);
        return *this;
    }
    TextOut& operator<<(Markdown field)
    {
        appendMarkdownEscaped(m_out, field.text);
        return *this;
    }
    template <std::integral Integer>
    requires(!std::same_as<Integer, bool> && !std::same_as<Integer, char>) TextOut& operator<<(Integer n)
    {
        char digits[24];
        const char* end = std::to_chars(digits, digits + sizeof digits, n).ptr;
        m_out.append(QLatin1StringView(digits, end - digits));
        return *this;
    }

private:
    QString& m_out;
};

TextOut::Html htmlField(QStringView text)
{
    return TextOut::Html{text};
}
TextOut::Markdown markdownField(QStringView text)
{
    return TextOut::Markdown{text};
}

} // namespace

QString reportFindingMarkdown(const ReportContent& c, size_t index, bool standalone)
{
    if (index >= c.findings.size())
        return {};
    const auto md = markdownField;
    const ReportFinding& f = c.findings[index];
    QString out;
    TextOut s(out);
    s << "### " << (index + 1) << ". " << classificationTitle(f.classification) << " ("
      << qs(toString(f.severity)) << ", confidence " << confidenceText(f.confidence) << ")\n\n";
    s << md(f.description) << "\n\n";
    s << "- Classification: " << md(qs(toString(f.classification))) << "\n";
    if (standalone)
        s << "- Input: " << md(c.path) << "\n";
    if (standalone && c.kind == ReportKind::StormlogTrace)
        s << "- Session: " << md(sessionText(c)) << ", rank " << c.rank << ", host " << md(c.host) << "\n";
    s << "- Time: " << md(f.relativeTime) << " (" << f.timestampNs << " ns)\n";
    if (!f.stepText.isEmpty())
        s << "- Step: " << md(f.stepText) << "\n";
    if (c.kind == ReportKind::StormlogTrace)
        s << "- Phase: " << md(f.phaseText) << "\n";
    s << "\n";
    if (!f.shapeLines.isEmpty()) {
        s << "**" << f.shapeTitle << "**\n\n";
        for (const QString& line : f.shapeLines)
            s << "- " << md(line) << "\n";
        s << "\n";
    }
    if (!f.evidence.empty()) {
        s << "| Evidence | Value |\n|---|---|\n";
        for (const auto& e : f.evidence)
            s << "| " << md(qs(e.key)) << " | " << md(e.text) << " |\n";
        s << "\n";
    }
    if (!f.remediation.isEmpty()) {
        s << "**What to do**\n\n";
        int step = 1;
        for (const auto& text : f.remediation)
            s << step++ << ". " << md(text) << "\n";
        s << "\n";
    }
    return out;
}

namespace {

void markdownTable(TextOut& s, const ReportTable& table)
{
    const auto md = markdownField;
    s << "|";
    for (const QString& title : table.header)
        s << " " << md(title) << " |";
    s << "\n|" << QStringLiteral("---|").repeated(table.header.size()) << "\n";
    for (const QStringList& row : table.rows) {
        s << "|";
        for (const QString& cell : row)
            s << " " << md(cell) << " |";
        s << "\n";
    }
}

// "## Ranks": the rank table, the cross-rank analyses and the job's notes.
QString ranksMarkdown(const ReportContent& c)
{
    const auto md = markdownField;
    QString out;
    TextOut s(out);
    s << "\n## Ranks\n\n" << md(reportJobSummary(*c.job)) << ".\n\n";
    markdownTable(s, reportRankTable(c));
    for (const ReportJobSection& section : reportJobSections(c)) {
        s << "\n### " << md(section.title) << "\n\n";
        if (!section.intro.isEmpty())
            s << md(section.intro) << "\n\n";
        if (section.table.rows.empty())
            s << md(section.empty) << "\n";
        else
            markdownTable(s, section.table);
        if (!section.trailer.isEmpty())
            s << "\n" << md(section.trailer) << "\n";
    }
    return out;
}

} // namespace

QString reportOomHeadline(const ReportOom& oom)
{
    const QString what = oom.reason.isEmpty() ? QStringLiteral("reason unknown") : oom.reason;
    return oom.relativeTime.isEmpty() ? QStringLiteral("Out of memory (time unknown): %1").arg(what)
                                      : QStringLiteral("Out of memory at %1: %2").arg(oom.relativeTime, what);
}

QString reportMarkdown(const ReportContent& c, const std::vector<ReportImage>& images)
{
    const auto md = markdownField;
    QString out;
    TextOut s(out);
    s << "# gapscope report\n\n";
    s << "| | |\n|---|---|\n";
    for (const auto& [label, value] : reportInputRows(c))
        s << "| " << md(label) << " | " << md(value) << " |\n";

    if (const std::vector<Notice> notices = reportNotices(c); !notices.empty()) {
        s << "\n## Notices\n";
        for (const Notice& n : notices)
            s << "\n> **" << noticeSeverityTitle(n.severity) << ": " << md(qs(n.title)) << ".** "
              << md(qs(n.message)) << " (`" << qs(n.code) << "`)\n";
    }

    s << "\n## Summary\n\n";
    s << "| | | |\n|---|---|---|\n";
    for (const auto& figure : reportSummaryFigures(c))
        s << "| " << md(figure.label) << " | **" << md(figure.value) << "** | " << md(figure.detail)
          << " |\n";

    if (!c.ooms.empty()) {
        s << "\n## Out of memory\n";
        for (const ReportOom& oom : c.ooms) {
            s << "\n**" << md(reportOomHeadline(oom)) << "**\n\n| | |\n|---|---|\n";
            for (const auto& [label, value] : oom.facts)
                s << "| " << md(label) << " | " << md(value) << " |\n";
        }
    }

    if (c.job)
        s << ranksMarkdown(c);

    if (!images.empty()) {
        s << "\n## Charts\n";
        for (const ReportImage& image : images) {
            if (image.fileName.isEmpty()) {
                s << "\n*" << md(image.title)
                  << "*: a picture written beside the report when the report is written to a file.\n";
                continue;
            }
            // percent-encoded: a file name with spaces, brackets or parentheses stays one link
            s << "\n![" << md(image.title) << "]("
              << QString::fromLatin1(QUrl::toPercentEncoding(image.fileName)) << ")\n\n**" << md(image.title)
              << ".** " << md(image.caption) << "\n";
        }
    }

    s << "\n## Findings";
    if (c.job)
        s << " of rank " << c.rank;
    s << "\n\n";
    if (c.findings.empty())
        s << reportNoFindingsText(c) << "\n\n"; // our own words: nothing to escape
    for (size_t i = 0; i < c.findings.size(); ++i)
        s << reportFindingMarkdown(c, i, false);

    if (!c.bookmarks.empty()) {
        s << "## Bookmarks\n\n";
        for (const ReportBookmark& b : c.bookmarks)
            s << "- " << md(formatRelativeTime(b.timeNs, c.originNs)) << ": " << md(b.name) << "\n";
        s << "\n";
    }

    s << "## Thresholds\n\n";
    s << "| Name | Value |\n|---|---|\n";
    for (const auto& t : c.thresholds)
        s << "| " << md(qs(t.name)) << " | " << md(thresholdText(t.value)) << " |\n";

    if (!c.problems.empty()) {
        s << "\n## Load problems\n\n";
        s << "| Level | Where | Reason |\n|---|---|---|\n";
        for (const auto& p : c.problems)
            s << "| " << (p.isError ? "error" : "warning") << " | "
              << md(QStringLiteral("%1:%2").arg(p.file).arg(p.line)) << " | " << md(p.reason) << " |\n";
        if (const qint64 more = unlistedProblems(c); more > 0)
            s << "\n" << more << " more not listed.\n";
    }
    return out;
}

// ---------------------------------------------------------------------------------- Text

namespace {

// Columns padded to their widest cell; a column of numbers (rank, counts, sizes, times) is
// right-aligned, the last column is not padded.
void textTable(QTextStream& s, const ReportTable& table)
{
    const auto numeric = [](const QString& cell) {
        return !cell.isEmpty() && (cell[0].isDigit() || cell[0] == QLatin1Char('+') ||
                                   cell[0] == QLatin1Char('-') || cell == QStringLiteral("—"));
    };
    std::vector<qsizetype> widths;
    std::vector<bool> right;
    for (const QString& title : table.header) {
        widths.push_back(title.size());
        right.push_back(!table.rows.empty());
    }
    for (const QStringList& row : table.rows)
        for (qsizetype i = 0; i < row.size() && size_t(i) < widths.size(); ++i) {
            widths[size_t(i)] = std::max(widths[size_t(i)], row[i].size());
            right[size_t(i)] = right[size_t(i)] && numeric(row[i]);
        }
    const auto line = [&](const QStringList& cells) {
        QStringList padded;
        for (qsizetype i = 0; i < cells.size(); ++i) {
            const auto width = int(widths[size_t(i)]);
            padded << (i + 1 == cells.size() ? cells[i]
                       : right[size_t(i)]    ? cells[i].rightJustified(width)
                                             : cells[i].leftJustified(width));
        }
        s << padded.join(QStringLiteral("  ")) << "\n";
    };
    line(table.header);
    for (const QStringList& row : table.rows)
        line(row);
}

} // namespace

QString reportText(const ReportContent& c)
{
    QString out;
    QTextStream s(&out);
    if (c.job) {
        s << reportJobSummary(*c.job) << "\n";
        textTable(s, reportRankTable(c));
        for (const ReportJobSection& section : reportJobSections(c)) {
            s << "\n" << section.title.toLower() << ":\n";
            if (section.table.rows.empty())
                s << section.empty << "\n";
            else
                textTable(s, section.table);
            if (!section.trailer.isEmpty())
                s << section.trailer << "\n";
        }
        s << "\nrank " << c.rank << ":\n";
    }
    s << c.path << " (" << c.form << "): " << c.recordsRead << " records, " << c.recordsRejected
      << " rejected\n";
    if (c.kind == ReportKind::StormlogTrace)
        s << "session " << sessionText(c) << " rank " << c.rank << " [" << c.sessionStatus << "], "
          << c.samples << " samples analysed\n"
          << deviceUsedSourceText(c.deviceUsedSource.get()) << "\n";
    else
        s << c.samples << " " << c.sampleNoun << " analysed\n";
    for (const Notice& n : reportNotices(c))
        s << "\nNOTICE " << qs(toString(n.severity)).toUpper() << "  " << qs(n.code) << "\n  " << qs(n.title)
          << ".\n  " << qs(n.message) << "\n";
    for (const ReportOom& oom : c.ooms) {
        s << "\n" << reportOomHeadline(oom) << "\n";
        for (const auto& [label, value] : oom.facts)
            s << "  " << label << ": " << value << "\n";
    }
    if (c.findings.empty())
        s << (reportNotices(c).empty() && c.ooms.empty() ? "no findings\n" : "\nno findings\n");
    for (const ReportFinding& f : c.findings) {
        s << "\n"
          << qs(toString(f.severity)).toUpper() << "  " << qs(toString(f.classification)) << "  confidence "
          << confidenceText(f.confidence) << "  at " << f.relativeTime;
        if (!f.stepText.isEmpty())
            s << " (" << f.stepText << ")";
        s << "  phase " << f.phaseText << "\n";
        s << "  " << f.description << "\n";
        if (!f.shapeLines.isEmpty()) {
            s << "  " << f.shapeTitle << ":\n";
            for (const QString& line : f.shapeLines)
                s << "    " << line << "\n";
        }
        for (const auto& e : f.evidence)
            s << "    " << qs(e.key) << " = " << e.text << "\n";
        for (const auto& step : f.remediation)
            s << "  - " << step << "\n";
    }
    return out;
}

// ---------------------------------------------------------------------------------- HTML

namespace {

const char* const kHtmlStyle = R"CSS(
:root {
  color-scheme: light dark;
  --bg: #f4f6f9; --card: #ffffff; --fg: #1b2330; --muted: #5d6778; --border: #dde3eb;
  --accent: #2563c9; --code: #eef1f6; --stripe: #f8fafc;
  --critical: #c0352b; --critical-bg: #fdeceb; --warning: #a45c00; --warning-bg: #fff3df;
  --info: #2563c9; --info-bg: #e7effc;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12151a; --card: #1b2028; --fg: #e3e8ef; --muted: #9aa5b6; --border: #2e3542;
    --accent: #73a5ff; --code: #262c37; --stripe: #1f252e;
    --critical: #ff7a70; --critical-bg: #3b1f1f; --warning: #ffb650; --warning-bg: #3a2d16;
    --info: #73a5ff; --info-bg: #1a2944;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1060px; margin: 0 auto; padding: 32px 28px 40px; }
header { border-bottom: 1px solid var(--border); padding-bottom: 14px; margin-bottom: 22px; }
header .brand { color: var(--accent); font-weight: 700; letter-spacing: .08em; text-transform: uppercase; font-size: 12px; }
h1 { font-size: 26px; margin: 4px 0 6px; font-weight: 650; }
h2 { font-size: 18px; margin: 30px 0 12px; font-weight: 650; }
h3 { font-size: 16px; margin: 0; font-weight: 650; }
h3.notes { margin: 18px 0 8px; }
.subtitle { color: var(--muted); overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 12px; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 10px; padding: 12px 16px; }
.card .label { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .06em; }
.card .value { font-size: 21px; font-weight: 650; margin-top: 2px; }
.card .detail { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--border);
  border-radius: 10px; overflow: hidden; }
th, td { text-align: left; padding: 7px 12px; border-bottom: 1px solid var(--border); vertical-align: top;
  overflow-wrap: anywhere; }
tr:last-child td { border-bottom: none; }
th { color: var(--muted); font-weight: 600; font-size: 12px; width: 240px; }
th code { overflow-wrap: normal; white-space: nowrap; }
thead th { background: var(--stripe); width: auto; }
td.num { font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px;
  background: var(--code); padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
figure { margin: 0 0 16px; background: var(--card); border: 1px solid var(--border); border-radius: 10px;
  padding: 14px; }
figure .frame { background: #ffffff; border-radius: 6px; padding: 4px; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 8px; }
figcaption strong { color: var(--fg); }
.finding { background: var(--card); border: 1px solid var(--border); border-left: 5px solid var(--sev);
  border-radius: 10px; padding: 16px 18px; margin-bottom: 14px; }
.finding.critical { --sev: var(--critical); --sev-bg: var(--critical-bg); }
.finding.warning { --sev: var(--warning); --sev-bg: var(--warning-bg); }
.finding.info { --sev: var(--info); --sev-bg: var(--info-bg); }
.notice { background: var(--sev-bg); border: 1px solid var(--border); border-left: 5px solid var(--sev);
  border-radius: 10px; padding: 14px 18px; margin-bottom: 18px; }
.notice.critical { --sev: var(--critical); --sev-bg: var(--critical-bg); }
.notice.warning { --sev: var(--warning); --sev-bg: var(--warning-bg); }
.notice.info { --sev: var(--info); --sev-bg: var(--info-bg); }
.notice p { margin: 6px 0; }
.finding .head { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; margin-bottom: 8px; }
.badge { color: var(--sev); background: var(--sev-bg); border-radius: 999px; padding: 2px 10px;
  font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .06em; }
.meta { color: var(--muted); font-size: 12.5px; margin: 6px 0 10px; }
.meta span { margin-right: 16px; }
.finding table { margin: 8px 0 4px; }
.finding h4 { font-size: 13px; margin: 14px 0 4px; }
.finding ol { margin: 4px 0 0; padding-left: 22px; }
.finding li { margin: 2px 0; }
.none { color: var(--muted); }
footer { color: var(--muted); font-size: 12px; margin-top: 36px; border-top: 1px solid var(--border); padding-top: 12px; }
@media print { body { background: #fff; } .finding, figure { break-inside: avoid; } }
)CSS";

} // namespace

namespace {

// lastIsPath: the last column holds a path (set in code).
void htmlTable(TextOut& s, const ReportTable& table, bool lastIsPath)
{
    const auto h = htmlField;
    s << "<table>\n<thead><tr>";
    for (const QString& title : table.header)
        s << "<th>" << h(title) << "</th>";
    s << "</tr></thead>\n<tbody>\n";
    for (const QStringList& row : table.rows) {
        s << "<tr>";
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (lastIsPath && i + 1 == row.size())
                s << "<td><code>" << h(row[i]) << "</code></td>";
            else
                s << "<td class=\"num\">" << h(row[i]) << "</td>";
        }
        s << "</tr>\n";
    }
    s << "</tbody>\n</table>\n";
}

} // namespace

QString reportHtml(const ReportContent& c, const std::vector<ReportImage>& images)
{
    const auto h = htmlField;
    QString out;
    TextOut s(out);
    s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n"
      << "<meta name=\"color-scheme\" content=\"light dark\" />\n"
      << "<title>gapscope report: " << h(c.path.section(QLatin1Char('/'), -1)) << "</title>\n"
      << "<style>" << kHtmlStyle << "</style>\n</head>\n<body>\n<main>\n";

    s << "<header>\n<div class=\"brand\">gapscope</div>\n<h1>"
      << (c.kind == ReportKind::BudgetLog ? "Memory budget report" : "Hidden-memory report") << "</h1>\n"
      << "<div class=\"subtitle\"><code>" << h(c.path) << "</code></div>\n</header>\n";

    for (const Notice& n : reportNotices(c)) {
        const QString severity = qs(toString(n.severity));
        s << "<section class=\"notice " << h(severity) << "\"><span class=\"badge\">" << h(severity)
          << "</span> <strong>" << h(qs(n.title)) << ".</strong><p>" << h(qs(n.message)) << "</p><code>"
          << h(qs(n.code)) << "</code></section>\n";
    }

    s << "<section class=\"cards\">\n";
    for (const auto& figure : reportSummaryFigures(c)) {
        s << "<div class=\"card\"><div class=\"label\">" << h(figure.label) << "</div><div class=\"value\">"
          << h(figure.value) << "</div>";
        if (!figure.detail.isEmpty())
            s << "<div class=\"detail\">" << h(figure.detail) << "</div>";
        s << "</div>\n";
    }
    s << "</section>\n";

    s << "<h2>Input</h2>\n<table>\n";
    for (const auto& [label, value] : reportInputRows(c))
        s << "<tr><th>" << h(label) << "</th><td>" << h(value) << "</td></tr>\n";
    s << "</table>\n";

    if (!c.ooms.empty()) {
        s << "<h2>Out of memory</h2>\n";
        for (const ReportOom& oom : c.ooms) {
            s << "<h3>" << h(reportOomHeadline(oom)) << "</h3>\n<table>\n";
            for (const auto& [label, value] : oom.facts)
                s << "<tr><th>" << h(label) << "</th><td>" << h(value) << "</td></tr>\n";
            s << "</table>\n";
        }
    }

    if (c.job) {
        s << "<h2>Ranks</h2>\n<p>" << h(reportJobSummary(*c.job)) << ".</p>\n";
        htmlTable(s, reportRankTable(c), true);
        for (const ReportJobSection& section : reportJobSections(c)) {
            s << "<h3 class=\"notes\">" << h(section.title) << "</h3>\n";
            if (!section.intro.isEmpty())
                s << "<p>" << h(section.intro) << "</p>\n";
            if (section.table.rows.empty())
                s << "<p class=\"none\">" << h(section.empty) << "</p>\n";
            else
                htmlTable(s, section.table, false);
            if (!section.trailer.isEmpty())
                s << "<p class=\"none\">" << h(section.trailer) << "</p>\n";
        }
    }

    if (!images.empty()) {
        s << "<h2>Charts</h2>\n";
        for (const ReportImage& image : images) {
            s << "<figure>\n<div class=\"frame\"><img src=\"data:" << h(image.mimeType) << ";base64,"
              << QString::fromLatin1(image.data.toBase64()) << "\" width=\"" << image.size.width()
              << "\" height=\"" << image.size.height() << "\" alt=\"" << h(image.title) << "\" /></div>\n"
              << "<figcaption><strong>" << h(image.title) << ".</strong> " << h(image.caption)
              << "</figcaption>\n</figure>\n";
        }
    }

    s << "<h2>Findings";
    if (c.job)
        s << " of rank " << c.rank;
    s << "</h2>\n";
    if (c.findings.empty())
        s << "<p class=\"none\">" << h(reportNoFindingsText(c)) << "</p>\n";
    int index = 1;
    for (const ReportFinding& f : c.findings) {
        const QString severity = qs(toString(f.severity));
        s << "<article class=\"finding " << h(severity) << "\">\n<div class=\"head\"><span class=\"badge\">"
          << h(severity) << "</span><h3>" << index++ << ". " << h(classificationTitle(f.classification))
          << "</h3><code>" << h(qs(toString(f.classification))) << "</code></div>\n";
        s << "<div class=\"meta\"><span>Confidence <strong>" << h(confidenceText(f.confidence))
          << "</strong></span><span>At <strong>" << h(f.relativeTime) << "</strong> (" << f.timestampNs
          << " ns)</span>";
        if (!f.stepText.isEmpty())
            s << "<span>Step <strong>" << h(f.stepText) << "</strong></span>";
        if (c.kind == ReportKind::StormlogTrace)
            s << "<span>Phase <strong>" << h(f.phaseText) << "</strong></span>";
        s << "</div>\n";
        s << "<p>" << h(f.description) << "</p>\n";
        if (!f.shapeLines.isEmpty()) {
            s << "<h4>" << h(f.shapeTitle) << "</h4>\n<ul>\n";
            for (const QString& line : f.shapeLines)
                s << "<li>" << h(line) << "</li>\n";
            s << "</ul>\n";
        }
        if (!f.evidence.empty()) {
            s << "<table>\n<thead><tr><th>Evidence</th><th>Value</th></tr></thead>\n<tbody>\n";
            for (const auto& e : f.evidence)
                s << "<tr><td><code>" << h(qs(e.key)) << "</code></td><td class=\"num\">" << h(e.text)
                  << "</td></tr>\n";
            s << "</tbody>\n</table>\n";
        }
        if (!f.remediation.isEmpty()) {
            s << "<h4>What to do</h4>\n<ol>\n";
            for (const auto& step : f.remediation)
                s << "<li>" << h(step) << "</li>\n";
            s << "</ol>\n";
        }
        s << "</article>\n";
    }

    if (!c.bookmarks.empty()) {
        s << "<h2>Bookmarks</h2>\n<ul class=\"bookmarks\">\n";
        for (const ReportBookmark& b : c.bookmarks)
            s << "<li><strong>" << h(formatRelativeTime(b.timeNs, c.originNs)) << "</strong> " << h(b.name)
              << "</li>\n";
        s << "</ul>\n";
    }

    s << "<h2>Thresholds</h2>\n<table>\n";
    for (const auto& t : c.thresholds)
        s << "<tr><th><code>" << h(qs(t.name)) << "</code></th><td class=\"num\">"
          << h(thresholdText(t.value)) << "</td></tr>\n";
    s << "</table>\n";

    if (!c.problems.empty()) {
        s << "<h2>Load "
             "problems</h2>\n<table>\n<thead><tr><th>Level</th><th>Where</th><th>Reason</th></tr></thead>\n"
          << "<tbody>\n";
        for (const auto& p : c.problems)
            s << "<tr><td>" << (p.isError ? "error" : "warning") << "</td><td><code>"
              << h(QStringLiteral("%1:%2").arg(p.file).arg(p.line)) << "</code></td><td>" << h(p.reason)
              << "</td></tr>\n";
        s << "</tbody>\n</table>\n";
        if (const qint64 more = unlistedProblems(c); more > 0)
            s << "<p class=\"none\">" << more << " more not listed.</p>\n";
    }

    s << "<footer>Written by gapscope. Times are relative to the first event analysed ("
      << h(formatUtcTime(c.originNs))
      << "); byte sizes in IEC units (1 GiB = 1024<sup>3</sup> bytes).</footer>\n";
    s << "</main>\n</body>\n</html>\n";
    return out;
}

QString reportTableMarkdown(const ReportTable& table)
{
    QString out;
    TextOut s(out);
    markdownTable(s, table);
    return out;
}

QString reportTableHtml(const ReportTable& table, bool lastIsPath)
{
    QString out;
    TextOut s(out);
    htmlTable(s, table, lastIsPath);
    return out;
}

QLatin1StringView reportHtmlStyle()
{
    return QLatin1StringView(kHtmlStyle);
}

// ----------------------------------------------------------------------------------- CSV

QByteArray reportFindingsCsv(const ReportContent& c)
{
    QString out;
    out += QStringLiteral("session_id,host,rank,severity,classification,confidence,evidence_timestamp_ns,"
                          "relative_s,phase,description,evidence,remediation\r\n");
    const auto rows = [&out](const QString& session, const QString& host, int64_t rank,
                             const std::vector<ReportFinding>& findings, int64_t originNs) {
        for (const ReportFinding& f : findings) {
            QStringList evidence;
            for (const auto& e : f.evidence)
                evidence << QStringLiteral("%1=%2").arg(qs(e.key), e.text);
            // Numbers written by us go in verbatim; every text goes through csvField.
            out += csvField(session) + QLatin1Char(',') + csvField(host) + QLatin1Char(',') +
                   QString::number(rank) + QLatin1Char(',') + csvField(qs(toString(f.severity))) +
                   QLatin1Char(',') + csvField(qs(toString(f.classification))) + QLatin1Char(',') +
                   QString::fromLatin1(pythonFloatRepr(f.confidence)) + QLatin1Char(',') +
                   QString::number(f.timestampNs) + QLatin1Char(',') +
                   QString::number(differenceAsDouble(f.timestampNs, originNs) / 1e9, 'f', 9) +
                   QLatin1Char(',') + csvField(f.phaseText) + QLatin1Char(',') + csvField(f.description) +
                   QLatin1Char(',') + csvField(evidence.join(QStringLiteral("; "))) + QLatin1Char(',') +
                   csvField(f.remediation.join(QStringLiteral(" | "))) + QStringLiteral("\r\n");
        }
    };
    if (c.job) {
        // every rank's own findings, relative to its own first event
        for (const ReportRank& r : c.job->ranks)
            if (r.present)
                rows(r.session, r.host, r.rank, r.findings, r.originNs);
    } else {
        rows(c.sessionId, c.host, c.rank, c.findings, c.originNs);
    }
    return out.toUtf8();
}

} // namespace gapscope
