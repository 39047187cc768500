#pragma once
// What a load hands on: one loaded document of one kind (a trace, a budget log, a distributed
// job, a PyTorch memory snapshot; later a fleet). LoadJob delivers it (LoadJob::documentLoaded),
// the window gives it to a tab, and the tab to the page that takes it (app/pages/PageRegistry): a
// new kind of document is one more member here, set by its loader, and no change in the window.

#include <QString>

#include <memory>

namespace gapscope {

struct BudgetData;
struct JobData;
class ProblemLog;
struct SnapshotData;
struct TraceData;

struct LoadedDocument
{
    // exactly one is set
    std::shared_ptr<const TraceData> trace;
    std::shared_ptr<const BudgetData> budget;
    std::shared_ptr<const JobData> job;
    // a default, so that LoadedDocument{trace, budget, job} names every member it needs
    std::shared_ptr<const SnapshotData> snapshot = nullptr;
    // With a trace: a PyTorch memory snapshot file recorded beside it (OpenPlan::snapshot), which
    // the trace page attaches and reads itself (File > Attach Snapshot...).
    QString snapshotBeside = {};

    // What was read (a job: its first input; empty without a document).
    QString path() const;
    // The records or lines the loader rejected and the job's notes; nullptr without a document.
    const ProblemLog* problems() const;
};

} // namespace gapscope
