#pragma once
// Opens a distributed training job: finds its per-rank inputs among the paths given (files,
// sink folders, job folders of them), each one recognised by model/document/Recognition (a
// memory-budget log or a form gapscope does not read is left out with a note), loads them in
// parallel through loadDocument (the loader of a single trace, the reopen cache included) and
// puts their ranks together (model/job/JobLoader assembleJob).

#include "model/job/JobLoader.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace gapscope {

struct DocumentOutcome; // model/document/Document.h, which includes this header
class TraceCache;

// A folder that is not a sink (no manifest.json) but holds per-rank inputs: sink folders one
// or two levels down (rank0/, rank0/telemetry_sink/) or trace files directly in it.
bool isJobFolder(const QString& path);

// The inputs a folder that is not a sink holds, as discoverJobInputs finds them: sink folders
// one or two levels down and trace files directly in it (sorted by name, digits as numbers).
// Files that are not traces are noted in `problems` when given.
QStringList jobFolderInputs(const QString& folder, ProblemLog* problems = nullptr);

// The inputs of a job. A path that does not exist stays an input: loading it says why it
// cannot be read.
JobInputs discoverJobInputs(const QStringList& paths);

// Discovers and loads a job. Inputs are loaded at once on up to the ideal thread count (one
// big input alone gets the loader's own parallel windows). Progress reports the bytes read
// of all inputs together, increasing, ending at their total; cancel stops every input.
// With a cache, each input is read from its valid entry instead (loadDocument); loaded, when
// given, receives every input's load (in discoverJobInputs' order), for keepInCache to write
// the large ones after the job has been delivered, as a single trace's is.
JobOutcome loadJob(const QStringList& paths, const LoadControl& control = {},
                   const TraceCache* cache = nullptr, std::vector<DocumentOutcome>* loaded = nullptr);

} // namespace gapscope
