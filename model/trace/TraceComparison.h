#pragma once
// Side-by-side comparison of two analyses (two traces, or two sessions/ranks of one): the
// gap series on one aligned time axis, findings matched by classification (new, gone,
// changed, unchanged) and the peak gap of every phase label on both sides. Qt Core only;
// the CompareWindow and `gapscope compare` draw and print what this computes.

#include "model/trace/AnalysisRunner.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

// Where time zero of each side lies on the shared axis.
struct CompareAlignment
{
    enum class Mode
    {
        Start, // first event of each partition
        Phase, // first start of the phase labelled `phaseLabel` on each side
    };
    Mode mode = Mode::Start;
    QString phaseLabel; // full label, e.g. "train / step"

    // "start" or "phase:LABEL"; nullopt for anything else.
    static std::optional<CompareAlignment> fromString(const QString& text);
    QString toString() const;
};

enum class FindingChange
{
    New,       // only in B
    Gone,      // only in A
    Changed,   // in both, severity, confidence or an evidence value differs
    Unchanged, // in both, identical numbers
    // a gap finding on one side only, where the other side cannot observe the gap
    // (gap_not_observable): its absence there says nothing
    NotComparable,
};
QString toString(FindingChange change);

struct EvidenceDelta
{
    std::string key;
    std::optional<double> a;
    std::optional<double> b;
    EvidenceUnit unit = EvidenceUnit::Count;
    bool isInteger = false; // written without a fraction (a count)
    // b - a when both exist
    std::optional<double> delta() const
    {
        if (a && b)
            return *b - *a;
        return std::nullopt;
    }
};

struct FindingComparison
{
    Classification classification = Classification::TransientSpike;
    FindingChange change = FindingChange::Unchanged;
    std::optional<Finding> a;
    std::optional<Finding> b;
    std::vector<EvidenceDelta> evidence; // union of keys, A's order first (both sides present)

    bool severityChanged() const { return a && b && a->severity != b->severity; }
    std::optional<double> confidenceDelta() const
    {
        if (a && b)
            return b->confidence - a->confidence;
        return std::nullopt;
    }
};

struct PhasePeakDelta
{
    QString label;
    std::optional<int64_t> peakGapA; // bytes; nullopt: no usable sample in that phase on A
    std::optional<int64_t> peakGapB;
    std::optional<int64_t> delta() const
    {
        if (peakGapA && peakGapB)
            return *peakGapB - *peakGapA;
        return std::nullopt;
    }
};

struct ComparedSide
{
    std::shared_ptr<const AnalysisResult> result;
    QString path;
    QString sessionId;
    int64_t rank = 0;
    int64_t originNs = 0; // absolute time that is zero on the shared axis
};

// One point of an aligned gap series: ns since the side's origin (may be negative before a
// phase alignment point) and the gap in bytes.
struct AlignedGapPoint
{
    int64_t offsetNs = 0;
    int64_t gapBytes = 0;
};

// What a reader must know before reading the counts: a side that cannot observe the gap, a side
// whose gap findings exist only below upstream's ratio gate. One sentence each, our own words.
struct ComparisonCaution
{
    enum class Kind
    {
        GapNotObservable, // side cannot see the gap: the other side's gap findings are not comparable
        BelowRatioGate,   // side's gap findings exist only below the ratio gate (not counted)
    };
    Kind kind = Kind::GapNotObservable;
    char side = 'A'; // 'A' or 'B'
    QString text;
};

struct TraceComparison
{
    ComparedSide a;
    ComparedSide b;
    CompareAlignment alignment;
    std::vector<FindingComparison> findings; // A's findings in order, then the ones new in B
    std::vector<PhasePeakDelta> phases;      // labels sorted by first start on A, then B's others
    std::vector<ComparisonCaution> cautions; // A's, then B's

    size_t count(FindingChange change) const;
    // The usable samples of one side on the shared axis.
    static std::vector<AlignedGapPoint> alignedGapSeries(const ComparedSide& side);
    // B - A on the shared axis: at each usable sample of B inside A's span, B's gap minus A's
    // gap interpolated linearly between A's two samples around that time (rounded to bytes).
    std::vector<AlignedGapPoint> gapDifference() const;
};

// nullopt with *error set when a side has no analysis or the alignment phase is missing on a
// side ("B: no phase 'x' (phases: ...)").
std::optional<TraceComparison> compareAnalyses(std::shared_ptr<const AnalysisResult> a,
                                               std::shared_ptr<const AnalysisResult> b,
                                               const CompareAlignment& alignment, QString* error = nullptr);

// Labels of the phases of one analysis, in order of first start (for alignment pickers).
std::vector<QString> phaseLabelsOf(const AnalysisResult& result);

// The side's relation to upstream's gap: whether it can see it at all (no gap_not_observable).
bool gapObservable(const AnalysisResult& result);
// b - a of one value in its unit: "+1.50 MiB", "+2.00 MiB/s", "+12", "-0.05". The one delta text
// of the compare window and the compare reports.
QString deltaText(double delta, EvidenceUnit unit, bool isInteger);
// "growth_bytes +1.50 MiB", or "growth_bytes only on A" when one side lacks the key.
QString evidenceDeltaText(const EvidenceDelta& delta);
// "0 new, 0 gone, 0 changed, 0 unchanged, 2 not comparable." (the last only when there are any)
QString comparisonCountsText(const TraceComparison& comparison);

} // namespace gapscope
