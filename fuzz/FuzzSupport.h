#pragma once
// Shared by the libFuzzer targets: the loaders take paths, so each input is written to an
// anonymous in-memory file (memfd) and opened through /proc/self/fd/N, which exercises the
// exact code a user's file goes through (detection, reading, parsing, finishing) without
// touching the disk. The invariant checks abort, so libFuzzer reports a violated one like a
// crash, with the input that caused it.

#include "model/budget/BudgetLoader.h"
#include "model/trace/TraceLoader.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gapscope::fuzz {

// One memfd per process, rewritten for each input.
class MemoryFile
{
public:
    explicit MemoryFile(const char* name);
    ~MemoryFile();
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    // Replaces the content; returns the path the loaders open.
    const QString& write(const uint8_t* data, size_t size);

private:
    int m_fd = -1;
    QString m_path;
};

// A scratch directory (under $TMPDIR) that lives as long as the fuzzer process.
class ScratchDirectory
{
public:
    ScratchDirectory();
    ~ScratchDirectory();
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;

    const QString& path() const { return m_path; }
    // Writes (or, with size npos, removes) path()/name.
    void put(const char* name, std::string_view content);

private:
    QString m_path;
};

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
