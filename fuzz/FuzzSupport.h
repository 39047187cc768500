#pragma once
// Shared by the libFuzzer targets, which feed their inputs to the loaders' byte entry points
// (loadTraceBytes, loadSinkBytes, loadBudgetBytes): the code a user's file goes through
// (detection, cutting, parsing, finishing) in the calling thread, without files, threads or
// large buffers. The invariant checks abort, so libFuzzer reports a violated one like a
// crash, with the input that caused it.

#include "model/budget/BudgetLoader.h"
#include "model/trace/TraceLoader.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gapscope::fuzz {

// Aborts with the message when the condition does not hold.
void require(bool condition, const char* what);

// What every trace load must satisfy whatever the input: an outcome is either data or a
// fatal error, all columns have one value per row, partitions tile the rows, sessions count
// every row, and no record is counted as loaded without having been read.
void checkTraceOutcome(const LoadOutcome& outcome);

// What every budget load must satisfy: every line is accounted for exactly once (used,
// skipped, rejected with an error, or blank), and ticks, caches and reporters line up.
void checkBudgetOutcome(const BudgetLoadOutcome& outcome, std::string_view input);

} // namespace gapscope::fuzz
