#pragma once
// Internal to the budget-log reader: the lines of one range of a file, assembled on their own
// (BudgetAssembler.cpp), then appended in file order by BudgetLogAssembler.

#include "model/budget/BudgetLoader.h"
#include "model/store/LoadProblem.h"

#include <QString>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gapscope::detail {

// The lines of one range of the file, assembled on their own: ticks, names and tick
// indices local to the chunk. A per-cache or per-reporter line whose target has no tick
// line earlier in the chunk is kept pending: the merge gives it the last tick of its target
// in the chunks before, or reports it, at its place among the chunk's problems.
struct BudgetChunk
{
    struct Pending
    {
        qint64 line = 0;
        BudgetLogForm form = BudgetLogForm::Text;
        std::string target;
        bool isCache = true;
        ParsedBudgetCache cache;
        ParsedBudgetReporter reporter;
        size_t problemsBefore = 0; // of `problems`: where its error would go
        const std::string& name() const { return isCache ? cache.name : reporter.name; }
    };

    explicit BudgetChunk(QString path) : path(std::move(path)) {}

    void add(ParsedBudgetLine&& line, qint64 lineNumber);
    void addProblem(LoadProblem::Level level, qint64 lineNumber, QString reason)
    {
        if (problems.size() < ProblemLog::kMaxKept)
            problems.push_back(LoadProblem{level, path, lineNumber, -1, std::move(reason)});
        else
            ++(level == LoadProblem::Level::Error ? droppedErrors : droppedWarnings);
    }

    QString path;
    BudgetTicks ticks;
    std::vector<qint64> nameFirstLine{0}; // line where each local name was first used
    std::vector<LoadProblem> problems;    // the first ProblemLog::kMaxKept, in file order
    qint64 droppedErrors = 0;             // problems after those
    qint64 droppedWarnings = 0;
    std::vector<Pending> pending;
    std::unordered_map<std::string, uint32_t> lastTickOfTarget;
    qint64 linesRead = 0;
    qint64 linesUsed = 0;
    qint64 linesSkipped = 0;
    qint64 firstUsedLine = 0; // 0 = none
    BudgetLogForm firstUsedForm = BudgetLogForm::Text;
    std::optional<LoadProblem> cutLastLine; // the last line of the file, ignored
};

} // namespace gapscope::detail
