#pragma once
// Puts the loaded inputs of a distributed training job (JobData.h) together: its ranks, job id,
// world size and the notes on them. A problem with one input (it fails to load, it holds a rank
// another input holds too) becomes a note naming the file(s) in JobData::problems; the rest of
// the job still loads. Finding a job's inputs among paths and loading them is
// model/document/JobOpen's (loadJob): what an input is, is decided there.

#include "model/job/JobData.h"
#include "model/trace/TraceLoader.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace gapscope {

struct JobInputs
{
    QStringList paths; // files and sink folders, in the order given (a folder's children by name)
    // Session: one path given alone that is a file or a sink (its selected session holds the
    // ranks); Job: several paths or a job folder.
    JobMode mode = JobMode::Job;
    ProblemLog problems; // what was left out and why (each names the file)
};

struct JobOutcome
{
    std::shared_ptr<const JobData> job; // null when no input could be loaded, or cancelled
    QString fatalError;                 // why job is null: one "path: reason" a line
    bool cancelled = false;
};

// The job of inputs loaded (outcomes[i] is the load of found.paths[i]): an input that failed
// or holds no events is a note, the rest go to buildJobData; null with every reason when none
// loaded ("no input given" when there was none). loadJob (model/document/JobOpen) and
// loadJobBytes share it, so bytes give the job a file would.
JobOutcome assembleJob(JobInputs found, const std::vector<LoadOutcome>& outcomes);

// One input of a job held in memory: name is what the job and its notes call it.
struct JobBytes
{
    QString name;
    std::string_view bytes;
};

// loadJob for inputs already in memory (a test, a fuzz input): each goes through
// loadTraceBytes (the parsing code of a file, in the calling thread), then the inputs are put
// together as loadJob puts files together (one input alone is a JobMode::Session job, as one
// file given alone is).
JobOutcome loadJobBytes(const std::vector<JobBytes>& inputs);

// The job of one loaded trace's session (JobMode::Session): every rank of that session.
std::shared_ptr<const JobData> jobFromTraceSession(std::shared_ptr<const TraceData> trace,
                                                   size_t sessionIndex);

// A job of inputs already loaded (each with the session that belongs to the job): its ranks
// (missing ones from the world size included), job id, world size, time range, and the notes
// on them added to `problems` (the notes of discovery and loading so far).
std::shared_ptr<const JobData> buildJobData(JobMode mode, std::vector<JobInput> inputs, ProblemLog problems);

// Runs work(i) for every i in [0, count), in that order of starting, on a private thread pool
// of up to the ideal thread count (the calling thread alone when that is one): the inputs of a
// load, the ranks of an analysis. Returns when every call has returned.
void forEachInParallel(size_t count, const std::function<void(size_t)>& work);

} // namespace gapscope
