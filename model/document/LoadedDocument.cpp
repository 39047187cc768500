#include "model/document/LoadedDocument.h"

#include "model/fleetdata/FleetData.h"
#include "model/job/JobData.h"
#include "model/snapshot/SnapshotData.h"
#include "model/store/BudgetData.h"
#include "model/store/TraceData.h"

namespace gapscope {

QString LoadedDocument::path() const
{
    if (trace)
        return trace->path;
    if (budget)
        return budget->path;
    if (job && !job->inputs.empty())
        return job->inputs.front().path;
    if (snapshot)
        return snapshot->path;
    if (fleet)
        return fleet->path;
    return {};
}

const ProblemLog* LoadedDocument::problems() const
{
    if (trace)
        return &trace->problems;
    if (budget)
        return &budget->problems;
    if (job)
        return &job->problems;
    if (snapshot)
        return &snapshot->problems;
    return fleet ? &fleet->problems : nullptr;
}

} // namespace gapscope
