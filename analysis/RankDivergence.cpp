#include "analysis/RankDivergence.h"

#include "analysis/PyNumeric.h"

#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

// The scale of a normal distribution's standard deviation in median absolute deviations.
constexpr double kMadToSigma = 1.4826;

double median(std::vector<double> values)
{
    return numpyMedian(values);
}

// 1.4826 x the median absolute deviation from centre.
double robustSigma(const std::vector<double>& values, double centre)
{
    std::vector<double> deviations;
    deviations.reserve(values.size());
    for (const double value : values)
        deviations.push_back(std::abs(value - centre));
    return kMadToSigma * median(std::move(deviations));
}

EvidenceValue bytesEvidence(std::string key, double value)
{
    return {std::move(key), std::round(value), true, EvidenceUnit::Bytes};
}

EvidenceValue rateEvidence(std::string key, double value)
{
    return {std::move(key), std::round(value * 100.0) / 100.0, false, EvidenceUnit::BytesPerSecond};
}

} // namespace

std::string_view toString(DivergenceSeries series)
{
    return series == DivergenceSeries::Gap ? "gap" : "reserved";
}

std::optional<RankSeriesProfile> profileRankSeries(const RankSeriesSamples& samples)
{
    const size_t n = std::min(samples.timestampNs.size(), samples.bytes.size());
    if (n < 2)
        return std::nullopt;
    RankSeriesProfile profile;
    profile.rank = samples.rank;
    profile.firstTimestampNs = samples.timestampNs.front();
    profile.lastTimestampNs = samples.timestampNs[n - 1];
    profile.startBytes = double(samples.bytes.front());
    const size_t tail = std::max<size_t>(1, n / 10);
    profile.levelBytes = median(std::vector<double>(samples.bytes.begin() + std::ptrdiff_t(n - tail),
                                                    samples.bytes.begin() + std::ptrdiff_t(n)));
    // least squares of bytes on seconds from the first sample (centred: no cancellation)
    double meanT = 0, meanY = 0;
    for (size_t i = 0; i < n; ++i) {
        meanT += double(samples.timestampNs[i] - profile.firstTimestampNs) * 1e-9;
        meanY += double(samples.bytes[i]);
    }
    meanT /= double(n);
    meanY /= double(n);
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; ++i) {
        const double t = double(samples.timestampNs[i] - profile.firstTimestampNs) * 1e-9 - meanT;
        sxy += t * (double(samples.bytes[i]) - meanY);
        sxx += t * t;
    }
    profile.slopeBytesPerSecond = sxx > 0 ? sxy / sxx : 0;
    return profile;
}

std::vector<RankDivergence> findRankDivergence(std::span<const RankSeriesSamples> ranks,
                                               DivergenceSeries series)
{
    std::vector<RankSeriesProfile> profiles;
    std::vector<const RankSeriesSamples*> sources;
    for (const RankSeriesSamples& samples : ranks)
        if (auto profile = profileRankSeries(samples)) {
            profiles.push_back(*profile);
            sources.push_back(&samples);
        }
    std::vector<RankDivergence> divergences;
    if (profiles.size() < kMinDivergenceRanks)
        return divergences;
    for (size_t i = 0; i < profiles.size(); ++i) {
        const RankSeriesProfile& self = profiles[i];
        std::vector<double> levels, slopes, growths;
        for (size_t j = 0; j < profiles.size(); ++j)
            if (j != i) {
                levels.push_back(profiles[j].levelBytes);
                slopes.push_back(profiles[j].slopeBytesPerSecond);
                growths.push_back(profiles[j].growthBytes());
            }
        RankDivergence d;
        d.rank = self.rank;
        d.series = series;
        d.profile = self;
        d.peers = levels.size();
        d.peerMedianLevelBytes = median(levels);
        d.peerMedianSlopeBytesPerSecond = median(slopes);
        d.peerMedianGrowthBytes = median(growths);
        d.excessBytes = self.levelBytes - d.peerMedianLevelBytes;
        d.excessBytesPerSecond = self.slopeBytesPerSecond - d.peerMedianSlopeBytesPerSecond;
        const double floorBytes =
            std::max(double(kDivergenceFloorBytes), kDivergenceFloorShare * std::abs(d.peerMedianLevelBytes));
        const double seconds = double(self.lastTimestampNs - self.firstTimestampNs) * 1e-9;
        d.levelThresholdBytes =
            std::max(floorBytes, kMadMultiplier * robustSigma(levels, d.peerMedianLevelBytes));
        d.slopeThresholdBytesPerSecond =
            std::max(seconds > 0 ? floorBytes / seconds : HUGE_VAL,
                     kMadMultiplier * robustSigma(slopes, d.peerMedianSlopeBytesPerSecond));
        d.byLevel = d.excessBytes > d.levelThresholdBytes;
        d.bySlope = d.excessBytesPerSecond > d.slopeThresholdBytesPerSecond;
        if (!d.byLevel && !d.bySlope)
            continue;
        const RankSeriesSamples& samples = *sources[i];
        d.departureTimestampNs = self.lastTimestampNs;
        for (size_t k = 0; k < samples.bytes.size() && k < samples.timestampNs.size(); ++k)
            if (double(samples.bytes[k]) - d.peerMedianLevelBytes > d.levelThresholdBytes) {
                d.departureTimestampNs = samples.timestampNs[k];
                break;
            }
        divergences.push_back(d);
    }
    std::sort(divergences.begin(), divergences.end(),
              [](const RankDivergence& a, const RankDivergence& b) { return a.rank < b.rank; });
    return divergences;
}

Finding rankDivergenceFinding(const std::vector<RankDivergence>& divergences)
{
    Finding f;
    f.classification = Classification::RankDivergence;
    f.severity = Severity::Warning;
    if (divergences.empty())
        return f;
    // the evidence is of the rank furthest above its peers, in thresholds passed
    const auto worst = std::max_element(
        divergences.begin(), divergences.end(), [](const RankDivergence& a, const RankDivergence& b) {
            const auto passed = [](const RankDivergence& d) {
                return std::max(d.excessBytes / d.levelThresholdBytes,
                                d.excessBytesPerSecond / d.slopeThresholdBytesPerSecond);
            };
            return passed(a) < passed(b);
        });
    const RankDivergence& d = *worst;
    for (const RankDivergence& each : divergences)
        f.ranks.push_back(each.rank);
    f.rank = d.rank;
    f.evidenceTimestampNs = d.departureTimestampNs;
    // 0.5 at the threshold, towards 1 the further above it
    const double passed =
        std::max(d.excessBytes / (d.excessBytes + d.levelThresholdBytes),
                 d.excessBytesPerSecond / (d.excessBytesPerSecond + d.slopeThresholdBytesPerSecond));
    f.confidence = std::round(std::clamp(passed, 0.0, 1.0) * 1000.0) / 1000.0;
    std::string ranksText;
    for (const int64_t rank : f.ranks)
        ranksText += (ranksText.empty() ? "" : ", ") + std::to_string(rank);
    f.evidence.push_back({"series", 0, false, EvidenceUnit::Count, std::string(toString(d.series))});
    f.evidence.push_back({"ranks", 0, false, EvidenceUnit::Count, ranksText});
    f.evidence.push_back({"departed_in", 0, false, EvidenceUnit::Count,
                          d.byLevel && d.bySlope ? "level and slope"
                          : d.byLevel            ? "level"
                                                 : "slope"});
    f.evidence.push_back(bytesEvidence("excess_bytes", d.excessBytes));
    f.evidence.push_back(rateEvidence("excess_bytes_per_second", d.excessBytesPerSecond));
    f.evidence.push_back(bytesEvidence("start_bytes", d.profile.startBytes));
    f.evidence.push_back(bytesEvidence("level_bytes", d.profile.levelBytes));
    f.evidence.push_back(bytesEvidence("growth_bytes", d.profile.growthBytes()));
    f.evidence.push_back(bytesEvidence("peer_median_level_bytes", d.peerMedianLevelBytes));
    f.evidence.push_back(bytesEvidence("peer_median_growth_bytes", d.peerMedianGrowthBytes));
    f.evidence.push_back(rateEvidence("slope_bytes_per_second", d.profile.slopeBytesPerSecond));
    f.evidence.push_back(rateEvidence("peer_median_slope_bytes_per_second", d.peerMedianSlopeBytesPerSecond));
    f.evidence.push_back({"peer_ranks", double(d.peers), true, EvidenceUnit::Count});
    f.evidence.push_back(bytesEvidence("level_threshold_bytes", d.levelThresholdBytes));
    return f;
}

} // namespace gapscope
