#pragma once
// A distributed job made up in memory, for the tests of the job views and the benchmark:
// any number of ranks and samples, gaps from a function, ranks left out as missing.

#include "model/job/JobViewData.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace gapscope::test {

// A job of rankCount ranks with `samples` samples each, every intervalNs from startNs; the gap
// of rank r's sample i is gapOf(r, i) (reserved 1 GiB, device total 80 GiB). Ranks in missing
// have no input. Only the columns the job views read are filled.
template <typename GapOf>
std::shared_ptr<const JobViewData> syntheticJob(int rankCount, int samples, int64_t intervalNs, GapOf&& gapOf,
                                                const std::vector<int>& missing = {},
                                                int64_t startNs = 1'796'000'000'000'000'000)
{
    auto trace = std::make_shared<TraceData>();
    EventStore& s = trace->store;
    const size_t rows = size_t(rankCount) * size_t(samples);
    for (auto* column : {&s.timestampNs, &s.allocated, &s.reserved, &s.used, &s.total})
        column->reserve(rows);
    s.type.reserve(rows);
    auto data = std::make_shared<JobViewData>();
    data->worldSize = rankCount;
    data->jobId = QStringLiteral("synthetic");
    std::vector<std::pair<uint32_t, uint32_t>> spans;
    for (int r = 0; r < rankCount; ++r) {
        const auto begin = uint32_t(s.timestampNs.size());
        if (std::find(missing.begin(), missing.end(), r) == missing.end())
            for (int i = 0; i < samples; ++i) {
                constexpr int64_t reserved = int64_t(1) << 30;
                s.timestampNs.push_back(startNs + int64_t(i) * intervalNs);
                s.allocated.push_back(reserved / 2 + int64_t(i) * 1024);
                s.reserved.push_back(reserved + int64_t(i) * 2048);
                s.used.push_back(reserved + int64_t(i) * 2048 + gapOf(r, i));
                s.total.push_back(int64_t(80) << 30);
                s.type.push_back(EventType::Sample);
            }
        spans.emplace_back(begin, uint32_t(s.timestampNs.size()));
    }
    for (int r = 0; r < rankCount; ++r) {
        RankSeries series;
        series.rank = r;
        series.present = spans[size_t(r)].second > spans[size_t(r)].first;
        if (series.present) {
            series.host = QStringLiteral("node-%1").arg(r / 8);
            series.localRank = r % 8;
            series.sampleCount = size_t(samples);
            series.trace = trace;
            for (uint32_t row = spans[size_t(r)].first; row < spans[size_t(r)].second; ++row)
                series.rows.push_back(row);
            finishRankSeries(series);
        }
        data->ranks.push_back(std::move(series));
    }
    return data;
}

} // namespace gapscope::test
