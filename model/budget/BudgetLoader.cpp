#include "model/budget/BudgetLoader.h"

#include "model/budget/BudgetChunk.h"
#include "model/budget/BudgetLineFields.h"
#include "model/read/WindowedReader.h"

#include <QFile>
#include <QFileInfo>

#include <cstring>

namespace gapscope {

using detail::budget::trim;

namespace {

QString tooLongReason(size_t bytes, size_t maxLineBytes)
{
    const QString limit = maxLineBytes % (size_t(1) << 20) == 0
                              ? QStringLiteral("%1 MB").arg(maxLineBytes >> 20)
                              : QStringLiteral("%1 bytes").arg(maxLineBytes);
    return QStringLiteral("line of %1 bytes is longer than the %2 a line may have").arg(bytes).arg(limit);
}

// One line of the file (without its '\n') into the chunk. lastWithoutNewline: the file ends
// inside this line, so a live writer may be mid-line; if it cannot be used it is a warning,
// as for JSON lines traces. tooLongBytes > 0: the line was longer than a line may be (its
// text is not given).
void handleBudgetLine(std::string_view line, qint64 lineNumber, bool lastWithoutNewline, size_t tooLongBytes,
                      size_t maxLineBytes, BudgetLineParser& parser, detail::BudgetChunk& chunk)
{
    if (tooLongBytes == 0 && line.size() > maxLineBytes)
        tooLongBytes = line.size();
    if (lineNumber == 1 && line.starts_with("\xEF\xBB\xBF"))
        line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    ParsedBudgetLine parsed;
    if (tooLongBytes > 0) {
        parsed.kind = BudgetLineKind::Malformed;
        parsed.reason = tooLongReason(tooLongBytes, maxLineBytes).toStdString();
    } else if (trim(line).empty()) {
        ++chunk.linesRead;
        return;
    } else {
        parsed = parser.parse(line);
    }
    if (lastWithoutNewline &&
        (parsed.kind == BudgetLineKind::Malformed || parsed.kind == BudgetLineKind::Skipped)) {
        ++chunk.linesRead; // read, neither used nor skipped: the warning tells
        chunk.cutLastLine = LoadProblem{
            LoadProblem::Level::Warning, chunk.path, lineNumber, -1,
            QStringLiteral("truncated last line ignored (no newline; a live writer may be mid-line)%1")
                .arg(parsed.reason.empty() ? QString()
                                           : QStringLiteral(": ") + QString::fromStdString(parsed.reason))};
        return;
    }
    // A text line cut inside a value still reads (rss_bytes=29 of rss_bytes=2917...) and
    // would show a number the program never had: ignore it, as a JSON lines trace does.
    // (A JSON object cannot be cut and still parse, so those forms keep their last line.)
    if (lastWithoutNewline && parsed.form == BudgetLogForm::Text) {
        ++chunk.linesRead; // read, neither used nor skipped: the warning tells
        chunk.cutLastLine =
            LoadProblem{LoadProblem::Level::Warning, chunk.path, lineNumber, -1,
                        QStringLiteral("truncated last line ignored (no newline; a live writer "
                                       "may have cut its last value)")};
        return;
    }
    chunk.add(std::move(parsed), lineNumber);
}

// The whole lines of one range into its chunk. False when cancelled.
bool parseBudgetRange(const WindowRange& range, size_t maxLineBytes, BudgetLineParser& parser,
                      detail::BudgetChunk& chunk)
{
    const char* data = range.data;
    size_t pos = range.begin;
    qint64 lineNumber = range.firstLine;
    while (pos < range.end) {
        if (!range.proceed(pos))
            return false;
        const void* found = std::memchr(data + pos, '\n', range.end - pos);
        const size_t lineEnd =
            found ? static_cast<size_t>(static_cast<const char*>(found) - data) : range.end;
        // Ranges hold whole lines: only the last line of the file may lack its '\n'.
        handleBudgetLine(std::string_view(data + pos, lineEnd - pos), lineNumber, !found && range.endsFile, 0,
                         maxLineBytes, parser, chunk);
        pos = found ? lineEnd + 1 : range.end;
        ++lineNumber;
    }
    return true;
}

} // namespace

namespace {

// A file or bytes (see readWindowed) read as a budget log.
BudgetLoadOutcome loadBudgetInput(const WindowedInput& input, const LoadControl& control,
                                  const BudgetLoadTuning& tuning)
{
    BudgetLoadOutcome outcome;
    const QString& path = input.name;
    // A line longer than maxLineBytes is not collected (a tick line is about 1 KB; a crashed
    // writer can leave hundreds of MB without a newline): it is counted and reported.
    const size_t maxLineBytes = std::max<size_t>(tuning.maxLineBytes, 1);
    BudgetLogAssembler assembler(path);
    std::optional<LoadProblem> cutLastLine;
    std::vector<std::unique_ptr<BudgetLineParser>> parsers;
    std::vector<detail::BudgetChunk> chunks;
    BudgetLineParser mainParser; // for lines too long for a window

    WindowedForm form;
    form.threads = control.threads;
    form.windowBytesPerThread = tuning.windowBytesPerThread;
    form.maxLineBytes = maxLineBytes;
    form.numberLinesFirst = true; // a line's number is part of what it parses into
    form.progress = control.progress;
    form.cancel = control.cancel;
    form.prepare = [&](size_t slotCount) {
        parsers.resize(slotCount); // made by the first range of their slot: bytes use one
        for (size_t i = 0; i < slotCount; ++i)
            chunks.emplace_back(path);
    };
    form.parse = [&](const WindowRange& range, qint64*) {
        std::unique_ptr<BudgetLineParser>& parser = parsers[range.slot];
        if (!parser)
            parser = std::make_unique<BudgetLineParser>();
        return parseBudgetRange(range, maxLineBytes, *parser, chunks[range.slot]);
    };
    const auto take = [&](detail::BudgetChunk& chunk) {
        if (chunk.cutLastLine)
            cutLastLine = std::move(chunk.cutLastLine);
        assembler.append(std::move(chunk));
    };
    form.merge = [&](const WindowMerge& merge) {
        if (merge.complete)
            take(chunks[merge.slot]);
        chunks[merge.slot] = detail::BudgetChunk(path);
    };
    form.longLine = [&](size_t, qint64 lineNumber, qint64 bytes, bool endsFile) {
        detail::BudgetChunk chunk(path);
        handleBudgetLine({}, lineNumber, endsFile, static_cast<size_t>(bytes), maxLineBytes, mainParser,
                         chunk);
        take(chunk);
    };
    const WindowedReadResult read = readWindowed(std::vector<WindowedInput>{input}, form);
    if (!read.error.isEmpty()) {
        outcome.fatalError = path + QStringLiteral(": ") + read.error;
        return outcome;
    }
    outcome.cancelled = read.cancelled;

    std::shared_ptr<BudgetData> data = assembler.finish();
    if (cutLastLine)
        data->problems.add(std::move(*cutLastLine));
    if (data->ticks.empty() && !outcome.cancelled) {
        QString detail = QStringLiteral("no memory-budget tick found (%1 lines read, %2 skipped, %3 errors)")
                             .arg(data->linesRead)
                             .arg(data->linesSkipped)
                             .arg(data->problems.errorCount());
        if (!data->problems.kept().empty())
            detail += QStringLiteral("; first problem: ") + data->problems.kept().front().toString();
        outcome.fatalError = path + QStringLiteral(": ") + detail;
        return outcome;
    }
    outcome.data = std::move(data);
    return outcome;
}

} // namespace

BudgetLoadOutcome loadBudgetLog(const QString& path, const LoadControl& control,
                                const BudgetLoadTuning& tuning)
{
    // Opening a FIFO, socket or device could block forever or never end: refuse it.
    if (const QFileInfo info(path); info.exists() && !info.isDir() && !info.isFile()) {
        BudgetLoadOutcome outcome;
        outcome.fatalError =
            path + QStringLiteral(": not a regular file (a FIFO, socket or device); refused");
        return outcome;
    }
    return loadBudgetInput(WindowedInput{path, std::nullopt}, control, tuning);
}

BudgetLoadOutcome loadBudgetBytes(std::string_view bytes, const QString& name, const LoadControl& control,
                                  const BudgetLoadTuning& tuning)
{
    return loadBudgetInput(WindowedInput{name, bytes}, control, tuning);
}

std::optional<BudgetLogForm> detectBudgetLogForm(std::string_view bytes)
{
    BudgetLineParser parser;
    size_t start = 0;
    constexpr int kMaxLines = 200;
    for (int lines = 0; lines < kMaxLines && start < bytes.size(); ++lines) {
        size_t end = bytes.find('\n', start);
        if (end == std::string_view::npos)
            end = bytes.size(); // possibly cut: a cut line simply fails to parse
        std::string_view line = bytes.substr(start, end - start);
        start = end + 1;
        if (line.starts_with("\xEF\xBB\xBF"))
            line.remove_prefix(3);
        if (trim(line).empty())
            continue;
        const ParsedBudgetLine parsed = parser.parse(line);
        if (parsed.kind != BudgetLineKind::Skipped && parsed.kind != BudgetLineKind::Malformed)
            return parsed.form;
    }
    return std::nullopt;
}

bool looksLikeBudgetLog(const QByteArray& head)
{
    return detectBudgetLogForm(std::string_view(head.constData(), static_cast<size_t>(head.size())))
        .has_value();
}

} // namespace gapscope
