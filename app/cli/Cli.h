#pragma once
// Headless subcommands (`gapscope analyze ...`). They run under QCoreApplication, so they
// need no display.

#include <QStringList>

#include <cstdio>

namespace gapscope {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1; // e.g. an output file could not be written
inline constexpr int kExitUsage = 2;   // unusable input or arguments

bool isCliCommand(const QString& firstArgument);
// args without the program name, e.g. {"analyze", "trace.jsonl", "--format", "json"}
int runCli(const QStringList& args, FILE* out = stdout, FILE* err = stderr);
QString cliUsage();

} // namespace gapscope
