// libFuzzer target: the job loader, several inputs at once (gapscope analyze A B C, the job
// page). The input is cut into 2-4 traces (fuzz::jobInputs: at "\n--input--\n", or without one at
// the line break nearest its middle), each a per-rank trace held in memory. They go through
// loadJobBytes: loadTraceBytes each, then the job building loadJob does (ranks, job id, world
// size, notes). Whatever the content:
// - the job is either built or refused with a reason; every input loaded is a valid trace;
// - the job's ranks are unique and ascending, a present rank's parts point at partitions of its
//   rank in the session the job reads, a missing one has none and lies within the world size.
// A job's analyses and report are fuzz_job_report's: run here as well, they made an execution
// 2.5 times as long (docs/robustness.md).
#include "fuzz/FuzzSupport.h"

#include "model/job/JobLoader.h"

namespace {

using namespace gapscope;

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const JobOutcome loaded = loadJobBytes(fuzz::jobInputs(input, true));
    fuzz::require(!loaded.cancelled, "a job load without a cancel flag reports cancelled");
    fuzz::require((loaded.job == nullptr) != loaded.fatalError.isEmpty(),
                  "a job outcome is exactly one of a job or a fatal error");
    if (loaded.job)
        checkJob(*loaded.job);
    return 0;
}
