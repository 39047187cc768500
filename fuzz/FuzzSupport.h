#pragma once
// Shared by the libFuzzer targets, which feed their inputs to the loaders' byte entry points
// (loadTraceBytes, loadSinkBytes, loadBudgetBytes): the code a user's file goes through
// (detection, cutting, parsing, finishing) in the calling thread, without files, threads or
// large buffers. The invariant checks abort, so libFuzzer reports a violated one like a
// crash, with the input that caused it.

#include "model/budget/BudgetLoader.h"
#include "model/job/JobLoader.h"
#include "model/trace/TraceLoader.h"

#include <QString>

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace gapscope::fuzz {

// Aborts with the message when the condition does not hold.
void require(bool condition, const char* what);

// The root of json parsed as strict JSON, or an abort saying that `what` does not parse and
// why. One simdjson parser serves the whole run (a parser made per execution allocates its
// buffers every time, and a QJsonDocument a tree of them); the element is valid until the
// next call.
simdjson::dom::element parsedJson(std::string_view json, const char* what);

// What every trace load must satisfy whatever the input: an outcome is either data or a
// fatal error, all columns have one value per row, partitions tile the rows, sessions count
// every row, and no record is counted as loaded without having been read.
void checkTraceOutcome(const LoadOutcome& outcome);

// For an input read as one JSON document (an array, {"events": [...]}, one object): the
// document was read to the input's end, or an Error problem says where it stopped. The end of
// the root value is found by a bracket and string scan of its own, not by the parser's.
// (Issue 32: records written one after another, or an array appended twice, lost all but the
// first value with no problem at all.)
void checkDocumentConsumed(std::string_view input, const LoadOutcome& outcome);

// What every budget load must satisfy: every line is accounted for exactly once (used,
// skipped, rejected with an error, or blank), and ticks, caches and reporters line up.
void checkBudgetOutcome(const BudgetLoadOutcome& outcome, std::string_view input);

// The inputs of a job (gapscope analyze A B C) in one fuzz input: up to four traces cut at
// "\n--input--\n" (at most three cuts, the rest is the last input), each named rankN.jsonl. With
// no separator the input is one trace, or with halve two: cut after the line break nearest its
// middle (a JSON lines trace of two ranks becomes one input per half).
std::vector<JobBytes> jobInputs(std::string_view input, bool halve);

} // namespace gapscope::fuzz
