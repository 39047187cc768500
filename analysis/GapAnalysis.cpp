#include "analysis/GapAnalysis.h"

#include "analysis/PyNumeric.h"
#include "analysis/PyRound.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gapscope {

namespace {

// The three centred moments of the fit summed together: each keeps its own pairwise tree,
// so the result equals three separate sums, in a third of the passes.
struct Moments
{
    double xx = 0;
    double xy = 0;
    double yy = 0;
    Moments& operator+=(const Moments& other)
    {
        xx += other.xx;
        xy += other.xy;
        yy += other.yy;
        return *this;
    }
    friend Moments operator+(Moments a, const Moments& b) { return a += b; }
};

// The gap, the time and the fragmentation counters of the usable rows, read through column
// readers of its own: the sums run on two threads, each with its own GapRows. The readers
// are mutable: reading decodes a block into them, which is not a change of what they show.
class GapRows
{
public:
    explicit GapRows(const GapInput& input)
        : m_rows(input.rows), m_time(input.timestampNs), m_allocated(input.allocated),
          m_reserved(input.reserved), m_used(input.used), m_total(input.total)
    {
    }
    int64_t gap(size_t i) const { return gapBytes(m_used[m_rows[i]], m_reserved[m_rows[i]]); }
    int64_t time(size_t i) const { return m_time[m_rows[i]]; }
    int64_t allocated(size_t i) const { return m_allocated[m_rows[i]]; }
    int64_t reserved(size_t i) const { return m_reserved[m_rows[i]]; }
    int64_t total(size_t i) const { return m_total[m_rows[i]]; }

private:
    std::span<const uint32_t> m_rows;
    mutable Int64ColumnReader m_time, m_allocated, m_reserved, m_used, m_total;
};

EvidenceValue evidence(const char* key, double value, EvidenceUnit unit, bool isInteger = false)
{
    return EvidenceValue{key, value, isInteger, unit};
}

} // namespace

double linregressPValue(double r, size_t n)
{
    if (n < 3 || std::isnan(r))
        return std::nan("");
    const double df = static_cast<double>(n - 2);
    constexpr double kTiny = 1.0e-20; // scipy's guard against r = +-1
    const double t = r * std::sqrt(df / ((1.0 - r + kTiny) * (1.0 + r + kTiny)));
    if (std::isnan(t))
        return std::nan("");
    if (std::isinf(t))
        return 0.0;
    using NoThrow = boost::math::policies::policy<
        boost::math::policies::domain_error<boost::math::policies::ignore_error>,
        boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
        boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;
    const boost::math::students_t_distribution<double, NoThrow> distribution(df);
    return 2.0 * boost::math::cdf(boost::math::complement(distribution, std::fabs(t)));
}

GapStatistics computeGapStatistics(const GapInput& input, const GapThresholds& thresholds)
{
    GapStatistics stats;
    const size_t n = input.size();
    stats.sampleCount = n;
    if (n == 0)
        return stats;
    const GapRows reader(input);

    // Ratio of the gap to the device total, and the argmax of the gap, in one pass.
    // np.argmax runs on the doubles: the first of equal maxima wins.
    double maxRatio = 0;
    size_t maxGapIndex = 0;
    double maxGap = static_cast<double>(reader.gap(0));
    for (size_t i = 0; i < n; ++i) {
        const int64_t gap = reader.gap(i);
        if (static_cast<double>(gap) > maxGap) {
            maxGap = static_cast<double>(gap);
            maxGapIndex = i;
        }
        const int64_t total = reader.total(i);
        // Callers pass rows with a positive total; a null one here contributes nothing.
        if (total == kNullInt || total <= 0)
            continue;
        maxRatio = std::max(maxRatio, std::fabs(trueDivide(gap, total)));
    }
    stats.maxAbsGapRatio = maxRatio;
    stats.belowRatioThreshold = maxRatio < thresholds.gapRatio;
    stats.maxGapIndex = maxGapIndex;

    // Upstream holds the gaps as Python floats: the int difference rounded to double. The
    // sums may run on two threads: each term reads through GapRows of its own.
    const double count = static_cast<double>(n);
    const double mean = pairwiseSumOnCoresWith<double>(n,
                                                       [&input] {
                                                           return [rows = GapRows(input)](size_t i) {
                                                               return static_cast<double>(rows.gap(i));
                                                           };
                                                       }) /
                        count;
    stats.meanGap = mean;
    stats.avgGap = mean;

    // Transient spikes: np.std(ddof=1) is the root of the pairwise sum of squared
    // deviations over n - 1.
    if (n >= 2) {
        const double squares = pairwiseSumOnCoresWith<double>(n, [&input, mean] {
            return [rows = GapRows(input), mean](size_t i) {
                const double deviation = static_cast<double>(rows.gap(i)) - mean;
                return deviation * deviation;
            };
        });
        stats.stdGap = std::sqrt(squares / static_cast<double>(n - 1));
        if (stats.stdGap > 0) {
            for (size_t i = 0; i < n; ++i)
                if (isSpikeZScore(gapZScore(static_cast<double>(reader.gap(i)), stats), thresholds))
                    ++stats.spikeCount;
            stats.maxZScore = (maxGap - mean) / stats.stdGap;
        }
    }

    // Persistent drift: scipy 1.10 linregress, whose moments come from np.cov(bias=1): the
    // centred cross products times 1/n. Upstream converts each timestamp to double before
    // subtracting the first (x = float(ts) - float(ts0)); the parity vectors depend on it.
    if (n >= 2) {
        const double origin = static_cast<double>(reader.time(0));
        const double xMean =
            pairwiseSumOnCoresWith<double>(n,
                                           [&input, origin] {
                                               return [rows = GapRows(input), origin](size_t i) {
                                                   return static_cast<double>(rows.time(i)) - origin;
                                               };
                                           }) /
            count;
        const Moments sums = pairwiseSumOnCoresWith<Moments>(n, [&input, origin, xMean, mean] {
            return [rows = GapRows(input), origin, xMean, mean](size_t i) {
                const double dx = (static_cast<double>(rows.time(i)) - origin) - xMean;
                const double dy = static_cast<double>(rows.gap(i)) - mean;
                return Moments{dx * dx, dx * dy, dy * dy};
            };
        });
        const double scale = 1.0 / count;
        const double ssxm = sums.xx * scale;
        const double ssxym = sums.xy * scale;
        const double ssym = sums.yy * scale;
        double r = 0;
        if (ssxm != 0.0 && ssym != 0.0)
            r = std::clamp(ssxym / std::sqrt(ssxm * ssym), -1.0, 1.0);
        stats.r = r;
        stats.fitOriginNs = reader.time(0);
        // All timestamps equal: no line to fit (scipy's slope would be NaN).
        if (ssxm != 0.0) {
            stats.hasFit = true;
            stats.slopePerNs = ssxym / ssxm;
            stats.intercept = mean - stats.slopePerNs * xMean;
        }
        if (n >= 3)
            stats.pValue = linregressPValue(r, n);
    }

    // Fragmentation: ratios of the rows that have one (reserved > 0); the one double
    // vector of the analysis, since numpy's pairwise mean runs over the compacted list.
    std::vector<double> ratios;
    ratios.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const int64_t reserved = reader.reserved(i);
        if (reserved <= 0)
            continue;
        const int64_t unused = std::max<int64_t>(0, saturatingSub(reserved, reader.allocated(i)));
        const double ratio = trueDivide(unused, reserved);
        if (ratios.empty() || ratio > stats.maxFragmentation) {
            stats.maxFragmentation = ratio;
            stats.maxFragmentationIndex = i;
        }
        ratios.push_back(ratio);
    }
    stats.fragmentationCount = ratios.size();
    if (!ratios.empty())
        stats.avgFragmentation =
            pairwiseSumOnCores<double>(ratios.size(), [&](size_t i) { return ratios[i]; }) /
            static_cast<double>(ratios.size());
    return stats;
}

std::vector<uint32_t> spikeRows(const GapInput& input, const GapThresholds& thresholds,
                                const GapStatistics& stats)
{
    std::vector<uint32_t> rows;
    if (!(stats.stdGap > 0))
        return rows;
    rows.reserve(stats.spikeCount);
    const GapRows reader(input);
    for (size_t i = 0; i < input.size(); ++i)
        if (isSpikeZScore(gapZScore(static_cast<double>(reader.gap(i)), stats), thresholds))
            rows.push_back(input.rows[i]);
    return rows;
}

std::vector<Finding> analyzeGaps(const GapInput& input, const GapThresholds& thresholds)
{
    if (input.size() < 3)
        return {};
    return analyzeGaps(input, thresholds, computeGapStatistics(input, thresholds));
}

std::vector<Finding> analyzeGaps(const GapInput& input, const GapThresholds& thresholds,
                                 const GapStatistics& stats)
{
    std::vector<Finding> findings;
    const size_t n = input.size();
    if (n < 3)
        return findings;
    if (stats.belowRatioThreshold)
        return findings;
    const auto rows = input.rows;
    const auto at = [&](Finding& finding, size_t index) {
        finding.evidenceRow = rows[index];
        finding.evidenceTimestampNs = input.timestampNs[rows[index]];
    };

    if (stats.stdGap > 0 && stats.spikeCount > 0 && stats.maxGapIndex) {
        const double z = thresholds.spikeZScore;
        Finding spike;
        spike.classification = Classification::TransientSpike;
        spike.severity = stats.maxZScore > 2 * z ? Severity::Critical : Severity::Warning;
        spike.confidence = pyRound(std::min(1.0, stats.maxZScore / (3 * z)), 3);
        spike.evidence = {
            evidence("spike_count", static_cast<double>(stats.spikeCount), EvidenceUnit::Count, true),
            evidence("max_gap_bytes", static_cast<double>(input.gapAt(*stats.maxGapIndex)),
                     EvidenceUnit::Bytes),
            evidence("max_zscore", pyRound(stats.maxZScore, 3), EvidenceUnit::ZScore),
            evidence("mean_gap_bytes", pyRound(stats.meanGap, 1), EvidenceUnit::Bytes),
            evidence("std_gap_bytes", pyRound(stats.stdGap, 1), EvidenceUnit::Bytes),
        };
        at(spike, *stats.maxGapIndex);
        findings.push_back(std::move(spike));
    }

    const double rSquared = stats.r * stats.r;
    if (n >= 5 && stats.hasFit && stats.slopePerNs > 0 && !(rSquared < thresholds.driftRSquared)) {
        Finding drift;
        drift.classification = Classification::PersistentDrift;
        drift.severity = rSquared > 0.85 ? Severity::Critical : Severity::Warning;
        drift.confidence = pyRound(std::min(1.0, rSquared), 3);
        drift.evidence = {
            evidence("slope_bytes_per_sec", pyRound(stats.slopePerNs * 1e9, 1), EvidenceUnit::BytesPerSecond),
            evidence("r_squared", pyRound(rSquared, 4), EvidenceUnit::Ratio),
            evidence("p_value", pyRound(stats.pValue, 6), EvidenceUnit::Probability),
            evidence("gap_start_bytes", pyRound(static_cast<double>(input.gapAt(0)), 1), EvidenceUnit::Bytes),
            evidence("gap_end_bytes", pyRound(static_cast<double>(input.gapAt(n - 1)), 1),
                     EvidenceUnit::Bytes),
        };
        at(drift, n - 1);
        findings.push_back(std::move(drift));
    }

    if (stats.fragmentationCount > 0 && !(stats.avgFragmentation < thresholds.fragmentation) &&
        stats.maxFragmentationIndex) {
        Finding fragmentation;
        fragmentation.classification = Classification::FragmentationLike;
        fragmentation.severity = stats.avgFragmentation > 0.5 ? Severity::Critical : Severity::Warning;
        fragmentation.confidence = pyRound(std::min(1.0, stats.avgFragmentation / 0.6), 3);
        fragmentation.evidence = {
            evidence("avg_fragmentation_ratio", pyRound(stats.avgFragmentation, 4), EvidenceUnit::Ratio),
            evidence("max_fragmentation_ratio", pyRound(stats.maxFragmentation, 4), EvidenceUnit::Ratio),
            evidence("avg_gap_bytes", pyRound(stats.avgGap, 1), EvidenceUnit::Bytes),
            evidence("sample_count", static_cast<double>(stats.fragmentationCount), EvidenceUnit::Count,
                     true),
        };
        at(fragmentation, *stats.maxFragmentationIndex);
        findings.push_back(std::move(fragmentation));
    }

    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        const int rankA = severityRank(a.severity);
        const int rankB = severityRank(b.severity);
        if (rankA != rankB)
            return rankA < rankB;
        return a.confidence > b.confidence;
    });
    return findings;
}

} // namespace gapscope
