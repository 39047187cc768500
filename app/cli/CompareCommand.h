#pragma once
// `gapscope compare A B`: the findings and per-phase peak gaps of two traces (or of two
// sessions/ranks of one trace) side by side, as JSON or Markdown (model/TraceComparison.h).

#include <QStringList>

#include <cstdio>

namespace gapscope {

// args: {"compare", A, B, options...}. Exit codes as Cli.h.
int runCompareCommand(const QStringList& args, FILE* out, FILE* err);

} // namespace gapscope
