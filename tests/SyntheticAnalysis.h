#pragma once
// A hand-built AnalysisResult for the widget tests: a long run with a drift, spikes, phases
// and three findings, filled column by column so the tests depend on no parser. The
// statistics are computed here with plain loops (what the analysis would report).

#include "model/trace/AnalysisRunner.h"

#include <cmath>
#include <memory>

namespace gapscope::testing {

inline constexpr int64_t kStartNs = 1'764'530'479'000'000'000; // epoch ns
inline constexpr int64_t kIntervalNs = 10'000'000;             // 10 ms
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * kMiB;

struct SyntheticOptions
{
    size_t samples = 100'000;
    size_t spikeEvery = 7919;
    size_t largestSpikeAt = 61'234;
    bool drift = true;
    std::optional<TimeWindow> window; // rows outside are not usable (as runAnalysis does)
};

inline SyntheticOptions hundredSamples()
{
    SyntheticOptions options;
    options.samples = 100;
    return options;
}

inline std::shared_ptr<AnalysisResult> makeSyntheticAnalysis(const SyntheticOptions& options = {})
{
    auto trace = std::make_shared<TraceData>();
    EventStore& s = trace->store;
    const size_t n = options.samples;
    uint32_t lcg = 42;
    for (size_t i = 0; i < n; ++i) {
        const int64_t t = kStartNs + int64_t(i) * kIntervalNs;
        const double phase = double(i) / double(n);
        lcg = lcg * 1664525u + 1013904223u;
        const double noise = (double(lcg >> 8) / double(1 << 24) - 0.5) * 24 * kMiB;
        const int64_t allocated = int64_t(2 * kGiB + std::sin(phase * 40) * 300 * kMiB);
        const int64_t reserved = allocated + int64_t(400 * kMiB + (i % 5000 == 0 ? 600 * kMiB : 0));
        double gap = 180 * kMiB + noise + (options.drift ? phase * 700 * kMiB : 0);
        if (options.spikeEvery && i % options.spikeEvery == options.spikeEvery / 2)
            gap += 1.4 * kGiB;
        if (i == options.largestSpikeAt)
            gap += 2.6 * kGiB;
        s.timestampNs.push_back(t);
        s.allocated.push_back(allocated);
        s.reserved.push_back(reserved);
        s.used.push_back(reserved + int64_t(gap));
        s.total.push_back(int64_t(16 * kGiB));
        s.type.push_back(EventType::Sample);
    }
    for (auto* column : {&s.active, &s.inactive, &s.change, &s.free})
        column->assign(n, kNullInt);
    s.typeName.assign(n, 0);
    s.source.assign(n, 0);
    s.context.assign(n, 0);
    s.metadata.assign(n, 0);

    auto result = std::make_shared<AnalysisResult>();
    result->trace = trace;
    result->partition = Partition{0, 0, 0, uint32_t(n)};
    result->request.window = options.window;
    for (uint32_t row = 0; row < n; ++row) {
        const int64_t t = s.timestampNs[row];
        if (!options.window || (t >= options.window->beginNs && t <= options.window->endNs))
            result->usableRows.push_back(row);
    }
    result->counterRows = result->usableRows; // every synthetic sample carries counters

    // statistics as the analysis reports them: ddof 1 std, OLS fit of gap on t - t0
    GapStatistics& st = result->statistics;
    const auto& rows = result->usableRows;
    st.sampleCount = rows.size();
    double sum = 0, maxGap = -1e300;
    double maxFrag = -1;
    size_t maxFragIndex = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const double gap = double(s.used[rows[i]] - s.reserved[rows[i]]);
        sum += gap;
        if (gap > maxGap) {
            maxGap = gap;
            st.maxGapIndex = i;
        }
        const double frag = double(s.reserved[rows[i]] - s.allocated[rows[i]]) / double(s.reserved[rows[i]]);
        if (frag > maxFrag) {
            maxFrag = frag;
            maxFragIndex = i;
        }
    }
    st.meanGap = sum / double(rows.size());
    double sq = 0, sxy = 0, sxx = 0;
    st.fitOriginNs = s.timestampNs[rows.front()];
    const double meanX = double(s.timestampNs[rows.back()] - st.fitOriginNs) / 2; // uniform spacing
    for (uint32_t row : rows) {
        const double gap = double(s.used[row] - s.reserved[row]);
        const double x = double(s.timestampNs[row] - st.fitOriginNs);
        sq += (gap - st.meanGap) * (gap - st.meanGap);
        sxy += (x - meanX) * (gap - st.meanGap);
        sxx += (x - meanX) * (x - meanX);
    }
    st.stdGap = std::sqrt(sq / double(rows.size() - 1));
    st.maxZScore = (maxGap - st.meanGap) / st.stdGap;
    st.hasFit = true;
    st.slopePerNs = sxy / sxx;
    st.intercept = st.meanGap - st.slopePerNs * meanX;
    st.maxFragmentation = maxFrag;
    st.maxFragmentationIndex = maxFragIndex;

    auto finding = [&](Classification c, Severity severity, uint32_t row) {
        Finding f;
        f.classification = c;
        f.severity = severity;
        f.evidenceRow = row;
        f.evidenceTimestampNs = s.timestampNs[row];
        result->findings.push_back(f);
    };
    finding(Classification::TransientSpike, Severity::Critical, rows[*st.maxGapIndex]);
    // the samples that finding counted, chosen by the analysis's spike rule over these statistics
    result->spikeRows = spikeRows(result->gapInput(), result->request.thresholds, st);
    if (options.drift)
        finding(Classification::PersistentDrift, Severity::Warning, rows.back());
    finding(Classification::FragmentationLike, Severity::Info, rows[maxFragIndex]);

    // phases: warmup, train (with four epochs), eval; a tenth, eight tenths, a tenth
    const int64_t end = s.timestampNs.back();
    const int64_t tenth = (end - kStartNs) / 10;
    auto span = [&](const char* name, const char* label, int64_t depth, int64_t a, int64_t b) {
        PhaseSpan p;
        p.name = name;
        p.label = label;
        p.depth = depth;
        p.startNs = a;
        p.endNs = b;
        result->phases.push_back(p);
    };
    span("warmup", "warmup", 0, kStartNs, kStartNs + tenth);
    span("train", "train", 0, kStartNs + tenth + 1, kStartNs + 9 * tenth);
    for (int e = 0; e < 4; ++e) {
        const std::string name = "epoch " + std::to_string(e + 1);
        span(name.c_str(), ("train / " + name).c_str(), 1, kStartNs + tenth + 1 + e * 2 * tenth,
             kStartNs + tenth + (e + 1) * 2 * tenth);
    }
    span("eval", "eval", 0, kStartNs + 9 * tenth + 1, end);
    return result;
}

} // namespace gapscope::testing
