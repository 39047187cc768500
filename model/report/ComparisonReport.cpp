#include "model/report/ComparisonReport.h"

#include "model/report/JsonWriter.h"
#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "model/text/Text.h"

#include <QStringList>

#include <cmath>

namespace gapscope {

namespace {

void writeSide(JsonWriter& json, const ComparedSide& side)
{
    json.beginObject();
    json.field("path", side.path);
    json.field("session_id", side.sessionId);
    json.field("rank", side.rank);
    json.field("origin_ns", side.originNs);
    json.field("sample_count", int64_t(side.result->usableRows.size()));
    json.field("finding_count", int64_t(side.result->findings.size()));
    writeDeviceUsedSourceJson(json, side.result->deviceUsedSource.get());
    json.field("gap_observable", gapObservable(*side.result));
    json.key("notices");
    writeNoticesJson(json, side.result->notices);
    json.endObject();
}

void writeFindingSide(JsonWriter& json, std::string_view name, const std::optional<Finding>& finding)
{
    if (!finding) {
        json.nullField(name);
        return;
    }
    json.key(name).beginObject();
    json.field("severity", toString(finding->severity));
    json.field("confidence", finding->confidence);
    json.key("evidence").beginObject();
    for (const EvidenceValue& value : finding->evidence) {
        if (value.isInteger)
            json.field(value.key, int64_t(std::llround(value.value)));
        else
            json.field(value.key, value.value);
    }
    json.endObject();
    json.field("evidence_timestamp_ns", finding->evidenceTimestampNs);
    json.endObject();
}

} // namespace

QByteArray renderComparisonJson(const TraceComparison& comparison)
{
    JsonWriter json;
    json.beginObject();
    json.key("a");
    writeSide(json, comparison.a);
    json.key("b");
    writeSide(json, comparison.b);
    json.field("alignment", comparison.alignment.toString());
    json.key("summary").beginObject();
    for (FindingChange change : {FindingChange::New, FindingChange::Gone, FindingChange::Changed,
                                 FindingChange::Unchanged, FindingChange::NotComparable})
        json.field(toString(change).toStdString(), int64_t(comparison.count(change)));
    json.endObject();
    json.key("cautions").beginArray();
    for (const ComparisonCaution& caution : comparison.cautions)
        json.value(caution.text);
    json.endArray();
    json.key("findings").beginArray();
    for (const FindingComparison& finding : comparison.findings) {
        json.beginObject();
        json.field("classification", toString(finding.classification));
        json.field("change", toString(finding.change));
        writeFindingSide(json, "a", finding.a);
        writeFindingSide(json, "b", finding.b);
        json.optionalField("confidence_delta", finding.confidenceDelta());
        json.key("evidence_deltas").beginObject();
        for (const EvidenceDelta& delta : finding.evidence)
            json.optionalField(delta.key, delta.delta());
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.key("phases").beginArray();
    for (const PhasePeakDelta& phase : comparison.phases) {
        json.beginObject();
        json.field("label", phase.label);
        json.optionalField("peak_gap_a_bytes", phase.peakGapA);
        json.optionalField("peak_gap_b_bytes", phase.peakGapB);
        json.optionalField("delta_bytes", phase.delta());
        json.endObject();
    }
    json.endArray();
    json.endObject();
    QByteArray out = json.take();
    out.append('\n');
    return out;
}

QByteArray renderComparisonMarkdown(const TraceComparison& comparison)
{
    QString md;
    auto sideLine = [&](const char* name, const ComparedSide& side) {
        md += QStringLiteral("- **%1**: %2, session %3, rank %4, %5 samples, %6 finding(s)\n")
                  .arg(QLatin1String(name), markdownEscape(side.path),
                       markdownEscape(side.sessionId.isEmpty() ? QStringLiteral("(none)") : side.sessionId))
                  .arg(side.rank)
                  .arg(side.result->usableRows.size())
                  .arg(side.result->findings.size());
    };
    md += QStringLiteral("# Trace comparison\n\n");
    sideLine("A", comparison.a);
    sideLine("B", comparison.b);
    for (const auto& [name, side] : {std::pair{"A", &comparison.a}, std::pair{"B", &comparison.b}})
        md += QStringLiteral("- **%1 %2\n")
                  .arg(QLatin1String(name),
                       markdownEscape(deviceUsedSourceText(side->result->deviceUsedSource.get()))
                           .replace(QStringLiteral("device used:"), QStringLiteral("device used**:")));
    md += QStringLiteral("- **Aligned at**: %1\n\n").arg(markdownEscape(comparison.alignment.toString()));
    md += comparisonCountsText(comparison) + QStringLiteral("\n\n");
    for (const ComparisonCaution& caution : comparison.cautions)
        md += QStringLiteral("> **%1**\n\n").arg(markdownEscape(caution.text));
    for (const auto& [name, side] : {std::pair{"A", &comparison.a}, std::pair{"B", &comparison.b}}) {
        for (const Notice& notice : side->result->notices)
            md += QStringLiteral("- **%1 notice** (%2, `%3`): %4\n")
                      .arg(QLatin1String(name), qs(toString(notice.severity)), qs(notice.code),
                           markdownEscape(qs(notice.title)));
    }
    if (!comparison.a.result->notices.empty() || !comparison.b.result->notices.empty())
        md += QLatin1Char('\n');

    md += QStringLiteral("## Findings\n\n");
    if (comparison.findings.empty()) {
        md += QStringLiteral("No findings on either side.\n\n");
    } else {
        md += QStringLiteral(
            "| Classification | Change | Severity A | Severity B | Confidence A | Confidence B | "
            "Confidence delta | Evidence deltas |\n");
        md += QStringLiteral("|---|---|---|---|---:|---:|---:|---|\n");
        for (const FindingComparison& f : comparison.findings) {
            auto severity = [](const std::optional<Finding>& x) {
                return x ? qs(toString(x->severity)) : QStringLiteral("-");
            };
            auto confidence = [](const std::optional<Finding>& x) {
                return x ? QString::number(x->confidence) : QStringLiteral("-");
            };
            QStringList deltas;
            for (const EvidenceDelta& delta : f.evidence) {
                if (!delta.delta() || *delta.delta() != 0)
                    deltas << evidenceDeltaText(delta);
            }
            const auto confidenceDelta = f.confidenceDelta();
            md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                      .arg(markdownEscape(qs(toString(f.classification))), markdownEscape(toString(f.change)),
                           severity(f.a), severity(f.b), confidence(f.a), confidence(f.b),
                           confidenceDelta ? deltaText(*confidenceDelta, EvidenceUnit::Probability, false)
                                           : QStringLiteral("-"),
                           markdownEscape(deltas.join(QStringLiteral("; "))));
        }
        md += QLatin1Char('\n');
    }

    md += QStringLiteral("## Peak gap per phase\n\n");
    if (comparison.phases.empty()) {
        md += QStringLiteral("Neither side has phases.\n");
    } else {
        md += QStringLiteral("| Phase | Peak gap A | Peak gap B | Delta |\n|---|---:|---:|---:|\n");
        auto bytes = [](const std::optional<int64_t>& v) {
            return v ? bytesText(double(*v)) : QStringLiteral("-");
        };
        for (const PhasePeakDelta& phase : comparison.phases) {
            const auto delta = phase.delta();
            md +=
                QStringLiteral("| %1 | %2 | %3 | %4 |\n")
                    .arg(markdownEscape(phase.label), bytes(phase.peakGapA), bytes(phase.peakGapB),
                         delta ? deltaText(double(*delta), EvidenceUnit::Bytes, true) : QStringLiteral("-"));
        }
    }
    return md.toUtf8();
}

} // namespace gapscope
