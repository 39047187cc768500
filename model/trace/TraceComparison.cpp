#include "model/trace/TraceComparison.h"
#include "analysis/Int64Math.h"
#include "model/text/Text.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gapscope {

namespace {

// Evidence values are rounded as upstream rounds them; a difference below the rounding is noise.
bool sameValue(double a, double b)
{
    return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

QString classificationList(const std::vector<Finding>& findings)
{
    QStringList names;
    for (const Finding& finding : findings)
        names << qs(toString(finding.classification));
    names.removeDuplicates();
    if (names.size() <= 1)
        return names.join(QString());
    const QString last = names.takeLast();
    return names.join(QStringLiteral(", ")) + QStringLiteral(" and ") + last;
}

std::vector<ComparisonCaution> cautionsOf(const TraceComparison& comparison)
{
    std::vector<ComparisonCaution> cautions;
    const std::pair<char, const ComparedSide*> sides[] = {{'A', &comparison.a}, {'B', &comparison.b}};
    for (const auto& [name, side] : sides) {
        const char otherName = name == 'A' ? 'B' : 'A';
        const AnalysisResult& result = *side->result;
        if (const Notice* blind = findNotice(result.notices, notice_code::kGapNotObservable)) {
            const NoticeValue* recorded = blind->field("recorded_as");
            const QString how = recorded && std::holds_alternative<std::string>(*recorded)
                                    ? qs(std::get<std::string>(*recorded))
                                    : QStringLiteral("max(allocated, reserved)");
            const size_t other = size_t(std::count_if(
                comparison.findings.begin(), comparison.findings.end(),
                [](const FindingComparison& f) { return f.change == FindingChange::NotComparable; }));
            QString text =
                QStringLiteral("%1 cannot observe the gap (device used is recorded as %2): its gap "
                               "findings cannot be compared")
                    .arg(QLatin1Char(name))
                    .arg(how);
            if (other > 0)
                text += QStringLiteral("; %1 of %2 %3 not comparable, not gone or new")
                            .arg(englishPlural(QStringLiteral("%1 finding(s)").arg(other), qint64(other)))
                            .arg(QLatin1Char(otherName))
                            .arg(other == 1 ? QStringLiteral("is") : QStringLiteral("are"));
            cautions.push_back({ComparisonCaution::Kind::GapNotObservable, name, text + QLatin1Char('.')});
        }
        if (const Notice* gate = findNotice(result.notices, notice_code::kBelowRatioGate);
            gate && !result.belowGateFindings.empty()) {
            const NoticeValue* threshold = gate->field("ratio_threshold");
            const NoticeValue* peak = gate->field("peak_gap_ratio");
            const auto ratio = [](const NoticeValue* v) {
                return v && std::holds_alternative<double>(*v) ? qs(ratioPercentText(std::get<double>(*v)))
                                                               : QStringLiteral("?");
            };
            cautions.push_back(
                {ComparisonCaution::Kind::BelowRatioGate, name,
                 QStringLiteral(
                     "%1's gap analysis finds %2 only below the %3 ratio gate (its largest gap is %4 "
                     "of the device): not counted here; lower gap_ratio_threshold to compare %5.")
                     .arg(QLatin1Char(name))
                     .arg(classificationList(result.belowGateFindings))
                     .arg(ratio(threshold))
                     .arg(ratio(peak))
                     .arg(result.belowGateFindings.size() == 1 ? QStringLiteral("it")
                                                               : QStringLiteral("them"))});
        }
    }
    return cautions;
}

FindingComparison compareFindings(const Finding* a, const Finding* b)
{
    FindingComparison out;
    out.classification = a ? a->classification : b->classification;
    if (a)
        out.a = *a;
    if (b)
        out.b = *b;
    if (!a || !b) {
        out.change = a ? FindingChange::Gone : FindingChange::New;
        return out;
    }
    bool differs = a->severity != b->severity || !sameValue(a->confidence, b->confidence);
    for (const EvidenceValue& value : a->evidence) {
        EvidenceDelta delta{value.key, value.value, std::nullopt, value.unit, value.isInteger};
        if (const EvidenceValue* other = b->findEvidence(value.key))
            delta.b = other->value;
        differs = differs || !delta.b || !sameValue(*delta.a, *delta.b);
        out.evidence.push_back(delta);
    }
    for (const EvidenceValue& value : b->evidence) {
        if (a->findEvidence(value.key))
            continue;
        out.evidence.push_back({value.key, std::nullopt, value.value, value.unit, value.isInteger});
        differs = true;
    }
    out.change = differs ? FindingChange::Changed : FindingChange::Unchanged;
    return out;
}

std::optional<int64_t> firstStartOf(const AnalysisResult& result, const QString& label)
{
    const std::string wanted = label.toStdString();
    std::optional<int64_t> first;
    for (const PhaseSpan& span : result.phases) {
        if (span.label == wanted && (!first || span.startNs < *first))
            first = span.startNs;
    }
    return first;
}

// Largest gap among the usable samples inside any span of the label.
std::optional<int64_t> peakGapIn(const AnalysisResult& result, const std::string& label)
{
    const EventStore& store = result.trace->store;
    std::optional<int64_t> peak;
    for (const PhaseSpan& span : result.phases) {
        if (span.label != label)
            continue;
        const auto begin =
            std::lower_bound(result.usableRows.begin(), result.usableRows.end(), span.startNs,
                             [&](uint32_t row, int64_t ns) { return store.timestampNs[row] < ns; });
        Int64ColumnReader time(store.timestampNs), used(store.used), reserved(store.reserved);
        for (auto it = begin; it != result.usableRows.end() && time[*it] <= span.endNs; ++it) {
            const int64_t gap = gapBytes(used[*it], reserved[*it]);
            if (!peak || gap > *peak)
                peak = gap;
        }
    }
    return peak;
}

ComparedSide sideOf(std::shared_ptr<const AnalysisResult> result)
{
    ComparedSide side;
    side.path = result->trace->path;
    side.sessionId = result->trace->sessions[result->sessionIndex].id;
    side.rank = result->rank;
    const Partition& p = result->partition;
    side.originNs = p.size() > 0 ? result->trace->store.timestampNs[p.begin] : 0;
    side.result = std::move(result);
    return side;
}

} // namespace

std::optional<CompareAlignment> CompareAlignment::fromString(const QString& text)
{
    if (text == QLatin1String("start"))
        return CompareAlignment{};
    if (text.startsWith(QLatin1String("phase:")) && text.size() > 6)
        return CompareAlignment{Mode::Phase, text.mid(6)};
    return std::nullopt;
}

QString CompareAlignment::toString() const
{
    return mode == Mode::Start ? QStringLiteral("start") : QStringLiteral("phase:") + phaseLabel;
}

QString toString(FindingChange change)
{
    switch (change) {
    case FindingChange::New:
        return QStringLiteral("new");
    case FindingChange::Gone:
        return QStringLiteral("gone");
    case FindingChange::Changed:
        return QStringLiteral("changed");
    case FindingChange::Unchanged:
        return QStringLiteral("unchanged");
    case FindingChange::NotComparable:
        return QStringLiteral("not_comparable");
    }
    return QStringLiteral("unchanged");
}

size_t TraceComparison::count(FindingChange change) const
{
    return size_t(std::count_if(findings.begin(), findings.end(),
                                [change](const FindingComparison& f) { return f.change == change; }));
}

std::vector<AlignedGapPoint> TraceComparison::alignedGapSeries(const ComparedSide& side)
{
    std::vector<AlignedGapPoint> points;
    if (!side.result)
        return points;
    const EventStore& store = side.result->trace->store;
    points.reserve(side.result->usableRows.size());
    Int64ColumnReader time(store.timestampNs), used(store.used), reserved(store.reserved);
    for (uint32_t row : side.result->usableRows)
        points.push_back({time[row] - side.originNs, gapBytes(used[row], reserved[row])});
    return points;
}

std::vector<AlignedGapPoint> TraceComparison::gapDifference() const
{
    const std::vector<AlignedGapPoint> pointsA = alignedGapSeries(a);
    const std::vector<AlignedGapPoint> pointsB = alignedGapSeries(b);
    std::vector<AlignedGapPoint> difference;
    if (pointsA.empty())
        return difference;
    difference.reserve(pointsB.size());
    size_t next = 0; // first A sample at or after the B sample (both sides in time order)
    for (const AlignedGapPoint& pointB : pointsB) {
        while (next < pointsA.size() && pointsA[next].offsetNs < pointB.offsetNs)
            ++next;
        if (next == pointsA.size())
            break; // after A's last sample
        const AlignedGapPoint& after = pointsA[next];
        double gapA = double(after.gapBytes);
        if (after.offsetNs != pointB.offsetNs) {
            if (next == 0)
                continue; // before A's first sample
            const AlignedGapPoint& before = pointsA[next - 1];
            const double f = differenceAsDouble(pointB.offsetNs, before.offsetNs) /
                             differenceAsDouble(after.offsetNs, before.offsetNs);
            gapA = double(before.gapBytes) + f * differenceAsDouble(after.gapBytes, before.gapBytes);
        }
        // held on the int64 range: a hostile trace's extreme gaps must not overflow
        const int64_t roundedA = toInt64(std::round(gapA)).value_or(gapA < 0 ? INT64_MIN : INT64_MAX);
        difference.push_back({pointB.offsetNs, saturatingSub(pointB.gapBytes, roundedA)});
    }
    return difference;
}

std::vector<QString> phaseLabelsOf(const AnalysisResult& result)
{
    std::vector<std::pair<int64_t, std::string>> firstStart;
    std::map<std::string, size_t> indexOf;
    for (const PhaseSpan& span : result.phases) {
        auto [it, inserted] = indexOf.try_emplace(span.label, firstStart.size());
        if (inserted)
            firstStart.emplace_back(span.startNs, span.label);
        else
            firstStart[it->second].first = std::min(firstStart[it->second].first, span.startNs);
    }
    std::stable_sort(firstStart.begin(), firstStart.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<QString> labels;
    for (const auto& entry : firstStart)
        labels.push_back(qs(entry.second));
    return labels;
}

std::optional<TraceComparison> compareAnalyses(std::shared_ptr<const AnalysisResult> a,
                                               std::shared_ptr<const AnalysisResult> b,
                                               const CompareAlignment& alignment, QString* error)
{
    auto fail = [error](const QString& why) -> std::optional<TraceComparison> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!a || !b)
        return fail(QStringLiteral("both sides need an analysis"));
    TraceComparison comparison;
    comparison.alignment = alignment;
    comparison.a = sideOf(std::move(a));
    comparison.b = sideOf(std::move(b));

    if (alignment.mode == CompareAlignment::Mode::Phase) {
        for (auto [side, name] : {std::pair{&comparison.a, "A"}, std::pair{&comparison.b, "B"}}) {
            const auto start = firstStartOf(*side->result, alignment.phaseLabel);
            if (!start) {
                QStringList labels;
                for (const QString& label : phaseLabelsOf(*side->result))
                    labels << label;
                return fail(
                    QStringLiteral("%1 (%2): no phase '%3' (phases: %4)")
                        .arg(QLatin1String(name), side->path, alignment.phaseLabel,
                             labels.isEmpty() ? QStringLiteral("none") : labels.join(QStringLiteral(", "))));
            }
            side->originNs = *start;
        }
    }

    // Findings by classification; the gap analysis reports each at most once, but a side with
    // two of a kind pairs them in order rather than losing one.
    const auto& findingsA = comparison.a.result->findings;
    const auto& findingsB = comparison.b.result->findings;
    std::vector<bool> usedB(findingsB.size(), false);
    for (const Finding& finding : findingsA) {
        const Finding* match = nullptr;
        for (size_t i = 0; i < findingsB.size() && !match; ++i) {
            if (!usedB[i] && findingsB[i].classification == finding.classification) {
                usedB[i] = true;
                match = &findingsB[i];
            }
        }
        comparison.findings.push_back(compareFindings(&finding, match));
    }
    for (size_t i = 0; i < findingsB.size(); ++i) {
        if (!usedB[i])
            comparison.findings.push_back(compareFindings(nullptr, &findingsB[i]));
    }
    // A gap finding whose other side cannot see the gap is neither gone nor new. The allocator's
    // own findings (allocator_fragmentation) read counters both sides have, and stay comparable.
    const bool observableA = gapObservable(*comparison.a.result);
    const bool observableB = gapObservable(*comparison.b.result);
    for (FindingComparison& f : comparison.findings) {
        if (!isGapClassification(f.classification))
            continue;
        if ((f.change == FindingChange::Gone && !observableB) ||
            (f.change == FindingChange::New && !observableA))
            f.change = FindingChange::NotComparable;
    }
    comparison.cautions = cautionsOf(comparison);

    std::vector<QString> labels = phaseLabelsOf(*comparison.a.result);
    for (const QString& label : phaseLabelsOf(*comparison.b.result)) {
        if (std::find(labels.begin(), labels.end(), label) == labels.end())
            labels.push_back(label);
    }
    for (const QString& label : labels) {
        const std::string key = label.toStdString();
        comparison.phases.push_back(
            {label, peakGapIn(*comparison.a.result, key), peakGapIn(*comparison.b.result, key)});
    }
    return comparison;
}

bool gapObservable(const AnalysisResult& result)
{
    return !findNotice(result.notices, notice_code::kGapNotObservable);
}

QString deltaText(double delta, EvidenceUnit unit, bool isInteger)
{
    if (unit == EvidenceUnit::Bytes)
        return signedBytesText(delta);
    if (unit == EvidenceUnit::BytesPerSecond)
        return signedBytesText(delta) + QStringLiteral("/s");
    const QString sign = delta > 0 ? QStringLiteral("+") : QString();
    if (isInteger)
        return sign + QString::number(qint64(std::llround(delta)));
    return sign + QString::number(delta, 'g', 6);
}

QString evidenceDeltaText(const EvidenceDelta& delta)
{
    const auto d = delta.delta();
    if (!d)
        return QStringLiteral("%1 only on %2")
            .arg(qs(delta.key), delta.a ? QStringLiteral("A") : QStringLiteral("B"));
    return QStringLiteral("%1 %2").arg(qs(delta.key), deltaText(*d, delta.unit, delta.isInteger));
}

QString comparisonCountsText(const TraceComparison& comparison)
{
    QString text = QStringLiteral("%1 new, %2 gone, %3 changed, %4 unchanged")
                       .arg(comparison.count(FindingChange::New))
                       .arg(comparison.count(FindingChange::Gone))
                       .arg(comparison.count(FindingChange::Changed))
                       .arg(comparison.count(FindingChange::Unchanged));
    if (const size_t notComparable = comparison.count(FindingChange::NotComparable))
        text += QStringLiteral(", %1 not comparable").arg(notComparable);
    return text + QLatin1Char('.');
}

} // namespace gapscope
