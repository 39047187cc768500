#include "AnalysisReport.h"

#include "JsonWriter.h"
#include "analysis/Units.h"

#include <QDateTime>
#include <QTextStream>

namespace gapscope {

namespace {

constexpr size_t kReportedProblems = 20;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

void writeAttribution(JsonWriter& json, const PhaseAttribution& a)
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

std::optional<int64_t> peakGapRow(const AnalysisResult& result)
{
    if (result.usableRows.empty())
        return std::nullopt;
    const GapInput input = result.gapInput();
    size_t best = 0;
    for (size_t i = 1; i < input.size(); ++i)
        if (input.gapAt(i) > input.gapAt(best))
            best = i;
    return result.usableRows[best];
}

QString attributionText(const std::optional<PhaseAttribution>& a)
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

// Markdown: escape the characters that would change the meaning of trace-provided text.
QString md(const QString& s)
{
    QString out;
    out.reserve(s.size());
    for (QChar c : s) {
        if (QStringLiteral("\\`*_{}[]<>()#+-.!|~").contains(c))
            out += QLatin1Char('\\');
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r'))
            out += QLatin1Char(' ');
        else
            out += c;
    }
    return out;
}

} // namespace

std::optional<ReportFormat> reportFormatFromString(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("json"))
        return ReportFormat::Json;
    if (n == QLatin1String("markdown") || n == QLatin1String("md"))
        return ReportFormat::Markdown;
    if (n == QLatin1String("text") || n == QLatin1String("txt"))
        return ReportFormat::Text;
    return std::nullopt;
}

QString formatRelativeTime(int64_t ns, int64_t originNs)
{
    const double seconds = double(ns - originNs) / 1e9;
    return QStringLiteral("%1%2 s").arg(seconds < 0 ? QString() : QStringLiteral("+")).arg(seconds, 0, 'f', 3);
}

QString formatEvidenceValue(const EvidenceValue& value)
{
    switch (value.unit) {
    case EvidenceUnit::Bytes:
        return qs(formatBytes(value.value));
    case EvidenceUnit::BytesPerSecond:
        return qs(formatBytesPerSecond(value.value));
    case EvidenceUnit::Ratio:
        return QStringLiteral("%1 (%2 %)").arg(value.value).arg(value.value * 100.0, 0, 'f', 1);
    case EvidenceUnit::Ticks:
        return QStringLiteral("%1 ticks").arg(value.value);
    case EvidenceUnit::Seconds:
        return QStringLiteral("%1 s").arg(value.value);
    case EvidenceUnit::Count:
    case EvidenceUnit::ZScore:
    case EvidenceUnit::Probability:
        break;
    }
    return value.isInteger ? QString::number(qlonglong(value.value)) : QString::number(value.value, 'g', 10);
}

QByteArray analysisReportJson(const AnalysisResult& result)
{
    const TraceData& trace = *result.trace;
    const SessionInfo& session = trace.sessions[result.sessionIndex];
    JsonWriter json;
    json.beginObject();
    json.field("gapscope_report", kReportSchemaVersion);
    json.field("kind", "stormlog_trace");

    json.key("input").beginObject();
    json.field("path", trace.path);
    json.field("form", toString(trace.form));
    json.field("records_read", int64_t(trace.recordsRead));
    json.field("records_loaded", int64_t(trace.store.size()));
    json.field("records_rejected", int64_t(trace.problems.errorCount()));
    json.field("warnings", int64_t(trace.problems.warningCount()));
    json.key("problems").beginArray();
    for (size_t i = 0; i < std::min(kReportedProblems, trace.problems.kept().size()); ++i) {
        const LoadProblem& p = trace.problems.kept()[i];
        json.beginObject();
        json.field("file", p.file);
        json.field("line", int64_t(p.line));
        if (p.index >= 0)
            json.field("index", int64_t(p.index));
        json.field("level", p.level == LoadProblem::Level::Error ? "error" : "warning");
        json.field("reason", p.reason);
        json.endObject();
    }
    json.endArray();
    json.endObject();

    json.key("session").beginObject();
    json.field("selected", session.id);
    json.field("rank", result.rank);
    json.key("ids").beginArray();
    for (const auto& s : trace.sessions)
        json.value(s.id);
    json.endArray();
    json.key("sessions").beginArray();
    for (const auto& s : trace.sessions) {
        json.beginObject();
        json.field("id", s.id);
        json.field("status", toString(s.status));
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

    json.field("event_count", int64_t(result.partition.size()));
    if (result.request.window) {
        json.key("window").beginObject();
        json.field("begin_ns", result.request.window->beginNs);
        json.field("end_ns", result.request.window->endNs);
        json.endObject();
    } else {
        json.nullField("window");
    }

    json.key("thresholds").beginObject();
    for (auto name : GapThresholds::names())
        json.field(name, *result.request.thresholds.get(name));
    json.endObject();

    const EventStore& store = trace.store;
    json.key("summary").beginObject();
    json.field("backend", toString(result.backend));
    json.field("samples", uint64_t(result.usableRows.size()));
    if (!result.usableRows.empty()) {
        const int64_t first = store.timestampNs[result.usableRows.front()];
        const int64_t last = store.timestampNs[result.usableRows.back()];
        json.field("first_timestamp_ns", first);
        json.field("last_timestamp_ns", last);
        json.field("duration_ns", last - first);
        const int64_t peak = *peakGapRow(result);
        json.field("peak_gap_bytes", store.used[peak] - store.reserved[peak]);
        json.field("peak_gap_timestamp_ns", store.timestampNs[peak]);
    }
    json.endObject();

    json.key("gap_analysis").beginArray();
    for (const Finding& f : result.findings) {
        json.beginObject();
        json.field("classification", toString(f.classification));
        json.field("severity", toString(f.severity));
        json.field("confidence", f.confidence);
        json.key("evidence").beginObject();
        for (const auto& e : f.evidence) {
            json.key(e.key);
            if (e.isInteger)
                json.value(int64_t(e.value));
            else
                json.value(e.value);
        }
        json.endObject();
        json.field("evidence_timestamp_ns", f.evidenceTimestampNs);
        json.key("phase_attribution");
        if (f.phase)
            writeAttribution(json, *f.phase);
        else
            json.null();
        json.field("description", f.description);
        json.key("remediation").beginArray();
        for (const auto& step : f.remediation)
            json.value(step);
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.endObject();
    QByteArray out = json.take();
    out += '\n';
    return out;
}

QString analysisReportMarkdown(const AnalysisResult& result)
{
    const TraceData& trace = *result.trace;
    const SessionInfo& session = trace.sessions[result.sessionIndex];
    const int64_t origin = result.partition.size() ? trace.store.timestampNs[result.partition.begin] : 0;
    QString out;
    QTextStream s(&out);
    s << "# gapscope report\n\n";
    s << "| | |\n|---|---|\n";
    s << "| Input | `" << QString(trace.path).replace(QLatin1Char('`'), QLatin1Char('\'')) << "` (" << toString(trace.form)
      << ") |\n";
    s << "| Session | " << md(session.id.isEmpty() ? QStringLiteral("(none)") : session.id) << ", rank "
      << result.rank << ", " << toString(session.status) << " |\n";
    s << "| Host | " << md(session.host) << " |\n";
    s << "| Records | " << trace.recordsRead << " read, " << trace.problems.errorCount() << " rejected |\n";
    s << "| Samples analysed | " << result.usableRows.size() << " |\n";
    if (result.request.window)
        s << "| Window | " << formatRelativeTime(result.request.window->beginNs, origin) << " to "
          << formatRelativeTime(result.request.window->endNs, origin) << " |\n";
    s << "\n## Findings\n\n";
    if (result.findings.empty())
        s << "No hidden-memory findings.\n";
    int index = 1;
    for (const Finding& f : result.findings) {
        s << "### " << index++ << ". " << qs(toString(f.classification)) << " (" << qs(toString(f.severity))
          << ", confidence " << f.confidence << ")\n\n";
        s << md(qs(f.description)) << "\n\n";
        s << "- Time: " << formatRelativeTime(f.evidenceTimestampNs, origin) << " (" << f.evidenceTimestampNs
          << " ns)\n";
        s << "- Phase: " << md(attributionText(f.phase)) << "\n";
        for (const auto& e : f.evidence)
            s << "- " << md(qs(e.key)) << ": " << md(formatEvidenceValue(e)) << "\n";
        if (!f.remediation.empty()) {
            s << "\n**What to do**\n\n";
            for (const auto& step : f.remediation)
                s << "1. " << md(qs(step)) << "\n";
        }
        s << "\n";
    }
    s << "## Thresholds\n\n";
    for (auto name : GapThresholds::names())
        s << "- " << md(qs(name)) << " = " << *result.request.thresholds.get(name) << "\n";
    return out;
}

QString analysisReportText(const AnalysisResult& result)
{
    const TraceData& trace = *result.trace;
    const SessionInfo& session = trace.sessions[result.sessionIndex];
    const int64_t origin = result.partition.size() ? trace.store.timestampNs[result.partition.begin] : 0;
    QString out;
    QTextStream s(&out);
    s << trace.path << " (" << toString(trace.form) << "): " << trace.recordsRead << " records, "
      << trace.problems.errorCount() << " rejected\n";
    s << "session " << (session.id.isEmpty() ? QStringLiteral("(none)") : session.id) << " rank " << result.rank
      << " [" << toString(session.status) << "], " << result.usableRows.size() << " samples analysed\n";
    if (result.findings.empty())
        s << "no findings\n";
    for (const Finding& f : result.findings) {
        s << "\n" << qs(toString(f.severity)).toUpper() << "  " << qs(toString(f.classification))
          << "  confidence " << f.confidence << "  at " << formatRelativeTime(f.evidenceTimestampNs, origin)
          << "  phase " << attributionText(f.phase) << "\n";
        s << "  " << qs(f.description) << "\n";
        for (const auto& e : f.evidence)
            s << "    " << qs(e.key) << " = " << formatEvidenceValue(e) << "\n";
        for (const auto& step : f.remediation)
            s << "  - " << qs(step) << "\n";
    }
    return out;
}

QByteArray renderAnalysisReport(const AnalysisResult& result, ReportFormat format)
{
    switch (format) {
    case ReportFormat::Json:
        return analysisReportJson(result);
    case ReportFormat::Markdown:
        return analysisReportMarkdown(result).toUtf8();
    case ReportFormat::Text:
        return analysisReportText(result).toUtf8();
    }
    return {};
}

} // namespace gapscope
