#pragma once
// Reads the three forms of memory-budget logs (budget-snapshots.md section 2): tracing text,
// tracing JSON, snapshot JSON lines. Lines are parsed one at a time and independently
// (BudgetLineParser), in ranges of the file on several threads with one parser per thread,
// then put together in file order (BudgetLogAssembler).
//
// Files: BudgetLineFields (what the forms share: a line's fields and their meaning),
// BudgetTextLine (the text form), BudgetLineParser (the JSON forms and the per-line dispatch),
// BudgetAssembler (lines in file order, the tick clock), BudgetLoader (files and bytes read in
// windows; looksLikeBudgetLog), model/base/Rfc3339 (timestamps).

#include "model/base/LoadControl.h"
#include "model/base/Rfc3339.h" // parseRfc3339Ns: the timestamps of every form
#include "model/store/BudgetData.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gapscope {

struct BudgetLoadOutcome
{
    std::shared_ptr<const BudgetData> data; // null when the input is unusable
    QString fatalError;                     // why data is null ("path: reason")
    bool cancelled = false;
};

// Tuning of loadBudgetLog; tests use small windows to force many windows and ranges.
struct BudgetLoadTuning
{
    size_t windowBytesPerThread = 0; // file bytes read per window and thread; 0 = windowBytesPerThreadFor
    size_t maxLineBytes = size_t(16) << 20; // a longer line is reported, not parsed
};

// The lines are parsed on control.threads threads (0 = one per core for a large file) in
// windows of the file; the result is the same for every thread count.
BudgetLoadOutcome loadBudgetLog(const QString& path, const LoadControl& control = {},
                                const BudgetLoadTuning& tuning = {});

// loadBudgetLog for bytes already in memory (a test, a fuzz input): the same parsing code as a
// file of that content, in the calling thread, as one window; name is what the log and its
// problems call the input.
BudgetLoadOutcome loadBudgetBytes(std::string_view bytes, const QString& name,
                                  const LoadControl& control = {}, const BudgetLoadTuning& tuning = {});

// Content detection on the first bytes of a file (model/document/Recognition reads them): the
// form of the first of its first 200 non-blank lines that is a memory-budget tick, per-cache,
// per-reporter or verdict-run-ended line of any form; nullopt when none is.
std::optional<BudgetLogForm> detectBudgetLogForm(std::string_view head);
// detectBudgetLogForm(head).has_value() (the fuzz targets' entry).
bool looksLikeBudgetLog(const QByteArray& head);

enum class BudgetLineKind
{
    Skipped,   // not a budget snapshot line (other target, other crate, garbage, other message)
    Malformed, // looked like a budget line but could not be read (see reason)
    Tick,
    Cache,
    Reporter,
    RunEnded,
};

struct ParsedBudgetCache
{
    std::string name;
    int64_t currentBytes = 0;
    int64_t previousMaxBytes = 0;
    int64_t newMaxBytes = 0;
    int64_t deltaBytes = 0;
    std::optional<double> hitRate;
};

struct ParsedBudgetReporter
{
    std::string name;
    int64_t currentBytes = 0;
};

// Everything one line says, without reference to other lines.
struct ParsedBudgetLine
{
    BudgetLineKind kind = BudgetLineKind::Skipped;
    BudgetLogForm form = BudgetLogForm::Text;
    std::string reason; // Malformed: why
    std::string target; // tracing target (empty for snapshot lines)
    BudgetLogLevel level = BudgetLogLevel::Unknown;
    int64_t timestampNs = 0;
    // Tick
    int64_t targetBytes = 0;
    int64_t effectiveTargetBytes = 0;
    int64_t rssBytes = 0;
    int64_t rssSysinfoBytes = 0;
    int64_t leaseBytesActive = 0;
    int64_t jeAllocatedBytes = 0;
    int64_t jeActiveBytes = 0;
    int64_t jeMetadataBytes = 0;
    int64_t jeResidentBytes = 0;
    int64_t jeMappedBytes = 0;
    int64_t jeRetainedBytes = 0;
    std::string verdict;
    std::string verdictDetail; // "key=value key=value"
    int64_t verdictStreak = 0;
    std::optional<std::string> previousVerdictLabel;
    int64_t previousVerdictStreak = 0;
    // Tick of a snapshot line: all of them; Cache / Reporter line: exactly one
    std::vector<ParsedBudgetCache> caches;
    std::vector<ParsedBudgetReporter> reporters;
    // RunEnded
    std::string previousVerdict;
    std::string newVerdict;
};

// Parses single lines of any form (detected per line). Not thread-safe: one per thread.
class BudgetLineParser
{
public:
    BudgetLineParser();
    ~BudgetLineParser();
    BudgetLineParser(const BudgetLineParser&) = delete;
    BudgetLineParser& operator=(const BudgetLineParser&) = delete;

    // `line` without its line terminator.
    ParsedBudgetLine parse(std::string_view line);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

namespace detail {
struct BudgetChunk;
}

// Puts parsed lines together in file order: per-cache and per-reporter lines belong to the
// last tick line of the same target; problems are recorded with file and line number.
// Lines come one by one (add) or as chunks of consecutive lines assembled on their own,
// possibly on other threads (append); either way the result is that of one pass.
class BudgetLogAssembler
{
public:
    explicit BudgetLogAssembler(QString path);
    ~BudgetLogAssembler();
    BudgetLogAssembler(const BudgetLogAssembler&) = delete;
    BudgetLogAssembler& operator=(const BudgetLogAssembler&) = delete;

    void add(ParsedBudgetLine&& line, qint64 lineNumber);
    void countBlankLine();
    // The lines of a chunk, which follow every line added or appended so far.
    void append(detail::BudgetChunk&& chunk);
    // Sorts, links verdict-run-ended lines with the ticks they changed, finds the tick
    // period and the gaps. The assembler is spent afterwards.
    std::shared_ptr<BudgetData> finish();

private:
    void flushStaged();

    std::shared_ptr<BudgetData> m_data;
    std::unique_ptr<detail::BudgetChunk> m_staged; // lines added one by one, not yet appended
    bool m_formKnown = false;
    std::unordered_map<std::string, uint32_t> m_lastTickOfTarget;
};

} // namespace gapscope
