// libFuzzer target: a distributed job of several inputs (gapscope analyze A B C, the job page).
// The input is cut into 2-4 traces at "\n--input--\n" (at most three cuts; without one, at the
// line break nearest its middle), each a per-rank trace held in memory. They go through
// loadJobBytes (loadTraceBytes each, then the job building loadJob does: ranks, job id, world
// size, notes), analyzeJobDocument (every rank's gap analysis), the cross-rank and collective
// analyses, and the JSON report. Whatever the content:
// - the job is either built or refused with a reason; every input loaded is a valid trace;
// - the job's ranks are unique and ascending, a present rank's parts point at partitions of its
//   rank in the session the job reads, a missing one has none and lies within the world size;
// - there is one rank analysis per rank, none for a missing rank;
// - the report JSON parses (simdjson: strict JSON, integers kept exact) and its "ranks" are the
//   job's, in the same order.
#include "fuzz/FuzzSupport.h"

#include "model/document/Document.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobLoader.h"
#include "model/report/ReportWriters.h"

#include <simdjson.h>

#include <cstdio>
#include <vector>

namespace {

using namespace gapscope;

std::vector<JobBytes> cutIntoInputs(std::string_view input)
{
    constexpr std::string_view kSeparator = "\n--input--\n";
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t cut = input.find(kSeparator); cut != std::string_view::npos && parts.size() < 3;
         cut = input.find(kSeparator, start)) {
        parts.push_back(input.substr(start, cut - start));
        start = cut + kSeparator.size();
    }
    parts.push_back(input.substr(start));
    if (parts.size() == 1) {
        // No separator: two inputs, cut after the line break nearest the middle (a JSON lines
        // trace of two ranks becomes one input per half).
        size_t middle = input.rfind('\n', input.size() / 2);
        middle = middle == std::string_view::npos ? input.size() / 2 : middle + 1;
        parts = {input.substr(0, middle), input.substr(middle)};
    }
    std::vector<JobBytes> inputs;
    for (size_t i = 0; i < parts.size(); ++i)
        inputs.push_back(JobBytes{QStringLiteral("rank%1.jsonl").arg(i), parts[i]});
    return inputs;
}

void checkJob(const JobData& job)
{
    fuzz::require(!job.inputs.empty(), "a job without inputs");
    for (const JobInput& input : job.inputs) {
        fuzz::require(input.trace != nullptr, "a job input without its trace");
        fuzz::checkTraceOutcome(LoadOutcome{input.trace, QString(), false});
        fuzz::require(input.sessionIndex < input.trace->sessions.size(),
                      "a job input's session out of range");
    }
    for (size_t i = 0; i < job.ranks.size(); ++i) {
        const JobRank& rank = job.ranks[i];
        fuzz::require(i == 0 || job.ranks[i - 1].rank < rank.rank, "job ranks not unique and ascending");
        fuzz::require(rank.present != rank.parts.empty(),
                      "a present rank without parts, or a missing one with");
        if (!rank.present)
            fuzz::require(rank.rank >= 0 && rank.rank < job.worldSize,
                          "a missing rank outside the world size");
        for (const JobRankPart& part : rank.parts) {
            fuzz::require(part.inputIndex < job.inputs.size(), "a rank part of an unknown input");
            const JobInput& input = job.inputs[part.inputIndex];
            fuzz::require(part.partitionIndex < input.trace->partitions.size(),
                          "a rank part of an unknown partition");
            const Partition& partition = input.trace->partitions[part.partitionIndex];
            fuzz::require(partition.rank == rank.rank && partition.sessionIndex == input.sessionIndex,
                          "a rank part is another rank's or another session's");
        }
    }
    fuzz::require(job.firstTimestampNs <= job.lastTimestampNs, "the job ends before it starts");
}

void checkReportRanks(const QByteArray& report, const JobData& job)
{
    const simdjson::dom::element root = fuzz::parsedJson(
        std::string_view(report.constData(), size_t(report.size())), "the job's JSON report");
    simdjson::dom::array ranks;
    fuzz::require(!root["ranks"].get(ranks), "the job's JSON report has no ranks array");
    size_t i = 0;
    for (simdjson::dom::element rank : ranks) {
        int64_t number = 0;
        fuzz::require(!rank["rank"].get(number), "a report rank without an integer rank");
        fuzz::require(i < job.ranks.size() && number == job.ranks[i].rank,
                      "the report's ranks are not the job's");
        ++i;
    }
    fuzz::require(i == job.ranks.size(), "the report leaves out ranks of the job");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const JobOutcome loaded = loadJobBytes(cutIntoInputs(input));
    fuzz::require(!loaded.cancelled, "a job load without a cancel flag reports cancelled");
    fuzz::require((loaded.job == nullptr) != loaded.fatalError.isEmpty(),
                  "a job outcome is exactly one of a job or a fatal error");
    if (!loaded.job)
        return 0;
    const JobData& job = *loaded.job;
    checkJob(job);

    const DocumentAnalysis analysis = analyzeJobDocument(loaded.job, DocumentRequest{});
    if (!analysis.ok()) {
        fuzz::require(!analysis.error.isEmpty(), "a job analysis that failed without saying why");
        return 0;
    }
    fuzz::require(analysis.ranks.size() == job.ranks.size(), "not one rank analysis per rank");
    for (size_t i = 0; i < job.ranks.size(); ++i)
        fuzz::require(job.ranks[i].present || analysis.ranks[i] == nullptr, "a missing rank was analysed");

    const std::shared_ptr<const JobAnalysisResult> crossRank = analysis.jobAnalysis();
    fuzz::require(crossRank != nullptr, "a job without its cross-rank analyses");
    fuzz::require(crossRank->crossRank.has_value() == (crossRank->rankCount > 1),
                  "the cross-rank analysis is there exactly when there are several ranks");
    checkReportRanks(reportJson(analysis.reportContent(true)), job);
    return 0;
}
