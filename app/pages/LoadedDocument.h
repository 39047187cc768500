#pragma once
// What a load hands to a tab: one loaded document of one kind (a trace, a budget log, a
// distributed job; later a snapshot, a fleet). The tab gives it to the page that takes it
// (app/pages/PageRegistry) and tells its other pages (DocumentPage::openBeside).

#include <QString>

#include <memory>

namespace gapscope {

struct BudgetData;
struct JobData;
class ProblemLog;
struct TraceData;

struct LoadedDocument
{
    // exactly one is set
    std::shared_ptr<const TraceData> trace;
    std::shared_ptr<const BudgetData> budget;
    std::shared_ptr<const JobData> job;

    // What was read (a job: its first input; empty without a document).
    QString path() const;
    // The records or lines the loader rejected and the job's notes; nullptr without a document.
    const ProblemLog* problems() const;
};

// How a page analyses the document it opened: in the background (the window), or on the
// calling thread before it returns (screenshots, tests: the same page code, waited for).
enum class OpenMode
{
    Background,
    Now,
};

} // namespace gapscope
