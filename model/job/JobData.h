#pragma once
// A distributed training job: every rank of one torchrun run, from one multi-rank input or
// from several inputs (one per rank, or a folder of them). The job page, `gapscope analyze`
// and `export` on several paths, and the cross-rank analyses all read this one structure.
// Immutable once built; crosses threads as std::shared_ptr<const JobData>.

#include "model/store/LoadProblem.h"
#include "model/store/TraceData.h"

#include <QString>

#include <algorithm>

#include <cstdint>
#include <memory>
#include <vector>

namespace gapscope {

enum class JobMode
{
    Session, // one input whose selected session holds several ranks (what upstream analyze reads)
    Job,     // several inputs: all events of all inputs together
};

// One loaded input of the job: a trace file or a sink folder.
struct JobInput
{
    QString path;                           // as given or as found in a job folder
    std::shared_ptr<const TraceData> trace; // never null
    size_t sessionIndex = 0;                // the session of this input that belongs to the job
    // Partitions of that session the job does not read: their rank is read from another input
    // (a rank given twice is analysed once; buildJobData says which and why in the notes).
    std::vector<size_t> leftOutPartitions;
    bool reads(size_t partitionIndex) const
    {
        return std::find(leftOutPartitions.begin(), leftOutPartitions.end(), partitionIndex) ==
               leftOutPartitions.end();
    }
};

// Where a rank's events are: a partition (session, rank) of one input. A rank found in several
// inputs is read from one of them (JobRank::parts); the others are its leftOut parts, read by
// nothing (the job's problems name them all and say which was kept).
struct JobRankPart
{
    size_t inputIndex = 0;     // into JobData::inputs
    size_t partitionIndex = 0; // into inputs[inputIndex].trace->partitions
};

struct JobRank
{
    int64_t rank = 0;
    bool present = false;             // false: expected from world_size, but no input holds it
    std::vector<JobRankPart> parts;   // empty when missing, else the one part the job reads
    std::vector<JobRankPart> leftOut; // copies of the rank in other inputs, not read
    QString host;
    int64_t localRank = 0;
    size_t sampleCount = 0; // `sample` events of the part read
};

struct JobData
{
    JobMode mode = JobMode::Job;
    std::vector<JobInput> inputs; // in the order given (a folder's children sorted by name)
    std::vector<JobRank> ranks;   // ascending rank, missing ranks included
    QString jobId;                // most common job_id of the sample events (empty: none)
    int64_t worldSize = 0;        // as the cross-rank analysis determines it
    ProblemLog problems;          // job-level notes: same rank twice, world_size disagreement,
                                  // several job ids, ranks with fewer than two samples
    int64_t firstTimestampNs = 0; // over all present ranks
    int64_t lastTimestampNs = 0;

    const JobRank* findRank(int64_t rank) const
    {
        for (const JobRank& r : ranks)
            if (r.rank == rank)
                return &r;
        return nullptr;
    }
    // The partition shown for a present rank.
    const Partition& partitionOf(const JobRank& rank) const
    {
        const JobRankPart& part = rank.parts.front();
        return inputs[part.inputIndex].trace->partitions[part.partitionIndex];
    }
    const TraceData& traceOf(const JobRank& rank) const
    {
        return *inputs[rank.parts.front().inputIndex].trace;
    }
};

} // namespace gapscope
