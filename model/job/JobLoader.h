#pragma once
// Opens a distributed training job (JobData.h): finds its per-rank inputs among the paths
// given (files, sink folders, job folders of them), loads them in parallel with the trace
// loader and puts their ranks together. A problem with one input (it fails to load, it is a
// memory-budget log, it holds a rank another input holds too) becomes a note naming the
// file(s) in JobData::problems; the rest of the job still loads.

#include "model/job/JobData.h"
#include "model/trace/TraceLoader.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace gapscope {

// A folder that is not a sink (no manifest.json) but holds per-rank inputs: sink folders one
// or two levels down (rank0/, rank0/telemetry_sink/) or trace files directly in it.
bool isJobFolder(const QString& path);

// The inputs a folder that is not a sink holds, as discoverJobInputs finds them: sink folders
// one or two levels down and trace files directly in it (sorted by name, digits as numbers).
// Files that are not traces are noted in `problems` when given.
QStringList jobFolderInputs(const QString& folder, ProblemLog* problems = nullptr);

struct JobInputs
{
    QStringList paths; // files and sink folders, in the order given (a folder's children by name)
    // Session: one path given alone that is a file or a sink (its selected session holds the
    // ranks); Job: several paths or a job folder.
    JobMode mode = JobMode::Job;
    ProblemLog problems; // what was left out and why (each names the file)
};

// The inputs of a job. A path that does not exist stays an input: loading it says why it
// cannot be read.
JobInputs discoverJobInputs(const QStringList& paths);

struct JobOutcome
{
    std::shared_ptr<const JobData> job; // null when no input could be loaded, or cancelled
    QString fatalError;                 // why job is null: one "path: reason" a line
    bool cancelled = false;
};

// Discovers and loads a job. Inputs are loaded at once on up to the ideal thread count (one
// big input alone gets the loader's own parallel windows). Progress reports the bytes read
// of all inputs together, increasing, ending at their total; cancel stops every input.
JobOutcome loadJob(const QStringList& paths, const LoadControl& control = {});

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
