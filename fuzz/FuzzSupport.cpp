#include "fuzz/FuzzSupport.h"

#include "model/read/JsonText.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace gapscope::fuzz {

void require(bool condition, const char* what)
{
    if (condition)
        return;
    std::fprintf(stderr, "gapscope fuzz invariant violated: %s\n", what);
    std::abort();
}

simdjson::dom::element parsedJson(std::string_view json, const char* what)
{
    static simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (const auto error = parser.parse(json.data(), json.size()).get(root)) {
        std::fprintf(stderr, "gapscope fuzz invariant violated: %s does not parse: %s\n", what,
                     simdjson::error_message(error));
        std::abort();
    }
    return root;
}

void checkTraceOutcome(const LoadOutcome& outcome)
{
    require(!outcome.cancelled, "a load without a cancel flag reports cancelled");
    require((outcome.data == nullptr) != outcome.fatalError.isEmpty(),
            "an outcome is exactly one of data or a fatal error");
    if (!outcome.data)
        return;
    const TraceData& data = *outcome.data;
    const EventStore& store = data.store;
    const size_t rows = store.size();
    require(rows > 0, "data without rows should have been a fatal error");
    for (size_t size :
         {store.allocated.size(), store.reserved.size(), store.active.size(), store.inactive.size(),
          store.change.size(), store.used.size(), store.free.size(), store.total.size(), store.type.size(),
          store.typeName.size(), store.source.size(), store.context.size(), store.metadata.size()})
        require(size == rows, "ragged columns");
    require(static_cast<qint64>(rows) <= data.recordsRead, "more rows loaded than records read");
    for (size_t row = 0; row < rows; ++row) {
        require(store.source[row] < store.sources.size(), "source id out of range");
        require(store.typeName[row] < store.strings.size() && store.context[row] < store.strings.size() &&
                    store.metadata[row] < store.strings.size(),
                "string id out of range");
    }
    uint32_t next = 0;
    qint64 counted = 0;
    for (const Partition& partition : data.partitions) {
        require(partition.begin == next && partition.end > partition.begin,
                "partitions do not tile the rows");
        require(partition.sessionIndex < data.sessions.size(), "partition of an unknown session");
        for (uint32_t row = partition.begin + 1; row < partition.end; ++row)
            require(store.timestampNs[row - 1] <= store.timestampNs[row], "partition not sorted by time");
        next = partition.end;
    }
    require(next == rows, "partitions do not cover every row");
    for (const SessionInfo& session : data.sessions)
        counted += session.eventCount;
    require(counted == static_cast<qint64>(rows), "sessions do not count every row");
    for (const LoadProblem& problem : data.problems.kept())
        require(problem.line >= 0 && !problem.reason.isEmpty(),
                "problem without a reason or with a bad line");
    require(data.problems.kept().size() ==
                std::min<size_t>(ProblemLog::kMaxKept, static_cast<size_t>(data.problems.errorCount() +
                                                                           data.problems.warningCount())),
            "problem counts disagree with the kept problems");
}

void checkDocumentConsumed(std::string_view input, const LoadOutcome& outcome)
{
    if (!outcome.data)
        return;
    std::string_view text = input;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    size_t first = 0;
    while (first < text.size() && isJsonSpace(text[first]))
        ++first;
    if (first == text.size())
        return;
    const std::optional<TraceForm> form = detectTraceBytesForm(input);
    const bool document = form == TraceForm::JsonArray || (form == TraceForm::Legacy && text[first] == '[');
    if (!document)
        return;
    const size_t end = endOfJsonValue(text, first);
    bool consumed = end != std::string_view::npos;
    for (size_t i = consumed ? end : text.size(); i < text.size() && consumed; ++i)
        consumed = isJsonSpace(text[i]);
    require(consumed || outcome.data->problems.errorCount() > 0,
            "a document was not read to the input's end and no Error problem says so");
}

void checkBudgetOutcome(const BudgetLoadOutcome& outcome, std::string_view input)
{
    require(!outcome.cancelled, "a load without a cancel flag reports cancelled");
    require((outcome.data == nullptr) != outcome.fatalError.isEmpty(),
            "an outcome is exactly one of data or a fatal error");
    if (!outcome.data)
        return;
    const BudgetData& data = *outcome.data;
    // Count the lines and the blank ones the way the loader splits them.
    qint64 lines = 0, blank = 0;
    size_t start = 0;
    while (start < input.size()) {
        size_t end = input.find('\n', start);
        if (end == std::string_view::npos)
            end = input.size();
        std::string_view line = input.substr(start, end - start);
        if (lines == 0 && line.starts_with("\xEF\xBB\xBF"))
            line.remove_prefix(3);
        bool empty = true;
        for (char c : line)
            empty = empty && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v');
        ++lines;
        blank += empty ? 1 : 0;
        start = end + 1;
    }
    require(data.linesRead == lines, "linesRead is not the number of lines");
    // Rejected lines are errors with their line; a cut last line that is not used is a
    // warning of its own.
    qint64 rejected = 0;
    for (const LoadProblem& problem : data.problems.kept())
        rejected += (problem.level == LoadProblem::Level::Error && problem.line > 0) ||
                            problem.reason.startsWith(QStringLiteral("truncated last line ignored"))
                        ? 1
                        : 0;
    const qint64 accounted = data.linesUsed + data.linesSkipped + rejected + blank;
    const auto kept = static_cast<qint64>(data.problems.kept().size());
    if (kept < static_cast<qint64>(ProblemLog::kMaxKept)) {
        require(accounted == lines, "a line is neither used, skipped, rejected nor blank");
    } else {
        // Past the kept problems each line rejected unlisted has at least one problem counted.
        const qint64 unlisted = data.problems.errorCount() + data.problems.warningCount() - kept;
        require(accounted <= lines && lines <= accounted + unlisted,
                "the lines do not add up, with problems past those kept");
    }
    const BudgetTicks& ticks = data.ticks;
    require(!ticks.empty(), "budget data without ticks should have been a fatal error");
    for (const auto& cache : ticks.caches)
        require(cache.tick < ticks.size() && cache.name < ticks.names.size(), "cache row out of range");
    for (const auto& reporter : ticks.reporters)
        require(reporter.tick < ticks.size() && reporter.name < ticks.names.size(),
                "reporter row out of range");
    for (size_t i = 1; i < ticks.size(); ++i)
        require(ticks.timestampNs[i - 1] <= ticks.timestampNs[i], "ticks not sorted by time");
}

std::vector<JobBytes> jobInputs(std::string_view input, bool halve)
{
    constexpr std::string_view kSeparator = "\n--input--\n";
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t cut = input.find(kSeparator); cut != std::string_view::npos && parts.size() < 3;
         cut = input.find(kSeparator, start)) {
        parts.push_back(input.substr(start, cut - start));
        start = cut + kSeparator.size();
    }
    parts.push_back(input.substr(start));
    if (parts.size() == 1 && halve) {
        size_t middle = input.rfind('\n', input.size() / 2);
        middle = middle == std::string_view::npos ? input.size() / 2 : middle + 1;
        parts = {input.substr(0, middle), input.substr(middle)};
    }
    std::vector<JobBytes> inputs;
    inputs.reserve(parts.size());
    for (size_t i = 0; i < parts.size(); ++i)
        inputs.push_back(JobBytes{QStringLiteral("rank%1.jsonl").arg(i), parts[i]});
    return inputs;
}

} // namespace gapscope::fuzz
