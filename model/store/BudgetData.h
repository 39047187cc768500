#pragma once
// One loaded memory-budget log (budget-snapshots.md): its ticks in columns, where they
// came from, and what could not be read.

#include "analysis/BudgetTicks.h"
#include "model/store/LoadProblem.h"

#include <QString>

#include <vector>

namespace gapscope {

// The three forms of section 2.
enum class BudgetLogForm
{
    Text,
    TracingJson,
    SnapshotJsonLines
};

inline const char* toString(BudgetLogForm form)
{
    switch (form) {
    case BudgetLogForm::Text:
        return "text";
    case BudgetLogForm::TracingJson:
        return "tracing-json";
    case BudgetLogForm::SnapshotJsonLines:
        return "snapshot-jsonl";
    }
    return "";
}

struct BudgetData
{
    QString path;
    BudgetLogForm form = BudgetLogForm::Text; // the form of the first line that was used
    BudgetTicks ticks;
    ProblemLog problems;
    qint64 linesRead = 0;    // every line, blank ones included
    qint64 linesUsed = 0;    // tick, per-cache, per-reporter and verdict-run-ended lines
    qint64 linesSkipped = 0; // other targets, other crates, garbage, other budget messages
    // The tick clock: median tick delta, and where ticks are missing from the log (a held
    // tick in an INFO capture is missing, not zero).
    int64_t tickPeriodNs = 0;
    std::vector<TickGap> gaps;
};

} // namespace gapscope
