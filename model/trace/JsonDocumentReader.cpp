#include "model/trace/JsonDocumentReader.h"

#include "model/read/JsonParserPool.h"
#include "model/read/JsonText.h"
#include "model/read/WindowedReader.h"
#include "model/text/Text.h"

#include <algorithm>
#include <cstring>

namespace gapscope::detail {

using simdjson::error_code;
namespace od = simdjson::ondemand;

namespace {

constexpr size_t kProgressStepBytes = 1 << 20; // report progress at least every ~1 MB
constexpr qint64 kCancelPollRecords = 64;      // ~20 us of parsing: Cancel answers at once

} // namespace

qint64 advanceLine(const char* data, size_t from, size_t to, qint64 lineAtFrom)
{
    return lineAtFrom + countNewlines(data + from, data + to);
}

QString tooLongRecordReason(qint64 bytes)
{
    return withNumbers("line of %1 bytes is longer than the %2 MB a record may have",
                       {bytes, qint64(kMaxRecordBytes >> 20)});
}

void reportLineProblem(EventChunk& chunk, const QString& file, qint64 line, qint64 bytes,
                       bool partialLastLine, const QString& reason)
{
    if (partialLastLine)
        chunk.problems.addWarning(
            file, line,
            withNumbers("truncated last line ignored (%1 bytes without a newline; a live "
                        "writer may be mid-line): ",
                        {bytes}) +
                reason);
    else
        chunk.problems.addError(file, line, reason);
}

bool parseJsonLinesRange(const char* data, size_t begin, size_t end, size_t capacity, qint64 firstLine,
                         bool endsFile, EventRecordParser& parser, EventChunk& chunk,
                         const RangeControl& control, qint64* linesRead)
{
    PooledJsonParser json;
    size_t pos = begin;
    qint64 line = firstLine;
    qint64 sinceCancelPoll = 0;
    size_t nextProgress = begin + control.progressStepBytes;
    while (pos < end) {
        const void* newline = std::memchr(data + pos, '\n', end - pos);
        const size_t lineEnd = newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) : end;
        const std::string_view text = trimmedJson(std::string_view(data + pos, lineEnd - pos));
        // Most lines are flat records, read without simdjson; the others (and any line the
        // fast path is unsure of) go through simdjson below. A record beyond the size limit is
        // refused below whatever its shape: the fast path would load it.
        if (!text.empty() && !(control.flatFastPath && text.size() <= kMaxRecordBytes &&
                               parser.parseFlatLine(text, RecordLocation{line, -1}, chunk))) {
            const size_t start = static_cast<size_t>(text.data() - data);
            const bool partialLastLine = !newline && endsFile;
            auto report = [&](const QString& reason) {
                reportLineProblem(chunk, parser.file(), line, qint64(text.size()), partialLastLine, reason);
            };
            od::document doc;
            od::object object;
            // A record beyond the limit is not parsed: the parser's index would need ~4 bytes
            // per input byte (a crashed writer can leave hundreds of MB without a newline).
            const bool tooLong = text.size() > kMaxRecordBytes;
            error_code error = tooLong ? simdjson::CAPACITY
                                       : json->iterate(data + start, text.size(), capacity - start).get(doc);
            if (!error)
                error = doc.get_object().get(object);
            if (error) {
                ++chunk.recordsRead;
                report(tooLong               ? tooLongRecordReason(qint64(text.size()))
                       : text.front() == '{' ? invalidJsonMessage(error)
                                             : QStringLiteral("line is not a JSON object"));
            } else {
                const auto outcome = parser.parse(object, RecordLocation{line, -1}, chunk);
                if (outcome == EventRecordParser::Outcome::SyntaxError) {
                    report(invalidJsonMessage(parser.syntaxError()));
                } else {
                    const char* after = nullptr;
                    if (doc.current_location().get(after) == simdjson::SUCCESS && after != nullptr)
                        chunk.problems.addWarning(parser.file(), line,
                                                  QStringLiteral("text after the JSON object ignored"));
                }
            }
        }
        pos = lineEnd + 1;
        ++line;
        if (++sinceCancelPoll >= kCancelPollRecords) {
            sinceCancelPoll = 0;
            if (control.cancelled())
                return false;
        }
        if (pos >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(std::min(pos, end)));
            nextProgress = pos + control.progressStepBytes;
        }
    }
    if (linesRead)
        *linesRead = line - firstLine;
    if (control.progress)
        control.progress(static_cast<qint64>(end));
    return !control.cancelled();
}

namespace {

// Skips the document's root value: *after is where the first token after it starts, or
// nullptr when the input ends with it. On success doc is rewound; false when the root value
// could not be skipped (it is broken, and doc is left unusable: iterate again).
bool skipRootValue(od::document& doc, const char** after)
{
    std::string_view root;
    *after = nullptr;
    if (doc.raw_json().get(root))
        return false;
    if (doc.current_location().get(*after) != simdjson::SUCCESS)
        *after = nullptr;
    doc.rewind();
    return true;
}

// How a walk over the elements of an event array ended; where, when it broke.
struct ArrayWalk
{
    enum class End
    {
        Finished,
        Cancelled,
        Broken // a syntax error: the rest of the array cannot be located
    };
    End end = End::Finished;
    // Broken: the element that could not be read (elementError set), or the record whose
    // object the record parser found broken (parser.syntaxError()).
    error_code elementError = simdjson::SUCCESS;
    qint64 line = 0;
    qint64 index = 0;
};

// The one walk over the elements of an event array (a whole document's or a slice's): an
// object goes to the record parser, any other element is an Error problem. Element lines count
// on from firstLine at data (the start of the text iterated), indexes from firstIndex; progress
// gets byte offsets into data at least every progressStep bytes.
ArrayWalk walkEventArray(od::array& array, const char* data, qint64 firstLine, qint64 firstIndex,
                         size_t progressStep, EventRecordParser& parser, EventChunk& chunk,
                         const RangeControl& control)
{
    ArrayWalk walk;
    size_t lineOffset = 0;
    qint64 line = firstLine;
    qint64 index = firstIndex;
    size_t nextProgress = progressStep;
    auto broken = [&](error_code elementError) {
        walk.end = ArrayWalk::End::Broken;
        walk.elementError = elementError;
        walk.line = line;
        walk.index = index;
        return walk;
    };
    for (auto elementResult : array) {
        od::value element;
        if (auto error = std::move(elementResult).get(element))
            return broken(error);
        const char* location = nullptr;
        if (element.current_location().get(location) == simdjson::SUCCESS && location >= data + lineOffset) {
            const auto offset = static_cast<size_t>(location - data);
            line = advanceLine(data, lineOffset, offset, line);
            lineOffset = offset;
        }
        od::object object;
        if (element.get_object().get(object)) {
            ++chunk.recordsRead;
            chunk.problems.addError(parser.file(), line, QStringLiteral("array element is not a JSON object"),
                                    index);
        } else if (parser.parse(object, RecordLocation{line, index}, chunk) ==
                   EventRecordParser::Outcome::SyntaxError) {
            return broken(simdjson::SUCCESS);
        }
        ++index;
        if (index % kCancelPollRecords == 0 && control.cancelled()) {
            walk.end = ArrayWalk::End::Cancelled;
            return walk;
        }
        if (lineOffset >= nextProgress && control.progress) {
            control.progress(static_cast<qint64>(lineOffset));
            nextProgress = lineOffset + progressStep;
        }
    }
    return walk;
}

// The elements of a whole document's event array. A syntax error is an Error at its line and
// the rest of the array is not loaded. False when cancelled.
bool parseEventArray(od::array& array, const simdjson::padded_string& buffer, EventRecordParser& parser,
                     EventChunk& chunk, const RangeControl& control)
{
    const ArrayWalk walk =
        walkEventArray(array, buffer.data(), 1, 0, kProgressStepBytes, parser, chunk, control);
    if (walk.end == ArrayWalk::End::Cancelled)
        return false;
    if (walk.end == ArrayWalk::End::Broken && walk.elementError != simdjson::SUCCESS)
        chunk.problems.addError(parser.file(), walk.line,
                                QStringLiteral("invalid JSON after array element %1: %2; the rest of the "
                                               "array is not loaded")
                                    .arg(walk.index - 1)
                                    .arg(simdjson::error_message(walk.elementError)));
    else if (walk.end == ArrayWalk::End::Broken)
        chunk.problems.addError(parser.file(), walk.line,
                                QStringLiteral("invalid JSON: %1; the rest of the array is not loaded")
                                    .arg(simdjson::error_message(parser.syntaxError())),
                                walk.index);
    return true;
}

} // namespace

bool parseJsonDocument(const simdjson::padded_string& buffer, EventRecordParser& parser, EventChunk& chunk,
                       const RangeControl& control)
{
    PooledJsonParser json;
    od::document doc;
    const size_t bom = std::string_view(buffer.data(), buffer.size()).starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const std::string_view text = trimmedJson(std::string_view(buffer.data() + bom, buffer.size() - bom));
    const qint64 firstLine =
        advanceLine(buffer.data(), 0, static_cast<size_t>(text.data() - buffer.data()), 1);
    auto broken = [&](error_code error) {
        chunk.problems.addError(parser.file(), firstLine, invalidJsonMessage(error));
        return true;
    };
    auto iterate = [&] {
        return json
            ->iterate(buffer.data() + bom, buffer.size() - bom,
                      buffer.size() + simdjson::SIMDJSON_PADDING - bom)
            .get(doc);
    };
    if (auto error = iterate())
        return broken(error);
    // A document ends where its root value ends. What follows (records written one after
    // another, an export appended twice) would otherwise be dropped without a word: it is an
    // Error at its line (added after the root's own problems, in line order), and the rest of
    // the file is not loaded.
    const char* rest = nullptr;
    if (!skipRootValue(doc, &rest)) {
        if (auto error = iterate()) // the root is broken: the parse below stops at the break
            return broken(error);
    }
    const size_t trailing = rest ? static_cast<size_t>(rest - buffer.data()) : 0;
    auto reportTrailing = [&] {
        if (trailing == 0)
            return;
        ++chunk.recordsRead; // the rest counts as one rejected record: loaded + rejected stays recordsRead
        const std::string_view upToRest = trimmedJson(std::string_view(buffer.data(), trailing));
        const auto rootEnd = static_cast<size_t>(upToRest.data() + upToRest.size() - buffer.data());
        chunk.problems.addError(
            parser.file(), advanceLine(buffer.data(), 0, trailing, 1),
            withNumbers("more JSON after the document's root value ended on line %1; the rest of the file "
                        "(%2 bytes) is not loaded (a document holds one value: write one array, or one "
                        "record per line)",
                        {advanceLine(buffer.data(), 0, rootEnd - 1, 1), qint64(buffer.size() - trailing)}));
    };
    bool keepGoing = true;
    if (!text.empty() && text.front() == '[') {
        od::array array;
        if (auto error = doc.get_array().get(array))
            return broken(error);
        keepGoing = parseEventArray(array, buffer, parser, chunk, control);
    } else {
        // An object: either {"events": [...]} or one event. Look at the keys first.
        od::object root;
        if (auto error = doc.get_object().get(root))
            return broken(error);
        bool wrapper = false;
        for (auto fieldResult : root) {
            std::string_view key;
            if (auto error = fieldResult.unescaped_key().get(key))
                return broken(error);
            if (key == "events")
                wrapper = true;
        }
        doc.rewind();
        if (auto error = doc.get_object().get(root))
            return broken(error);
        if (wrapper) {
            for (auto fieldResult : root) {
                od::field field;
                std::string_view key;
                if (auto error = std::move(fieldResult).get(field))
                    return broken(error);
                if (auto error = field.unescaped_key().get(key))
                    return broken(error);
                if (key != "events")
                    continue;
                od::array array;
                if (field.value().get_array().get(array)) {
                    chunk.problems.addError(parser.file(), firstLine,
                                            QStringLiteral("'events' is not an array"));
                    return true;
                }
                keepGoing = parseEventArray(array, buffer, parser, chunk, control);
                break;
            }
        } else if (parser.parse(root, RecordLocation{firstLine, -1}, chunk) ==
                   EventRecordParser::Outcome::SyntaxError) {
            chunk.problems.addError(parser.file(), firstLine, invalidJsonMessage(parser.syntaxError()));
        }
    }
    if (keepGoing)
        reportTrailing();
    if (keepGoing && control.progress)
        control.progress(static_cast<qint64>(buffer.size()));
    return keepGoing && !control.cancelled();
}

std::optional<size_t> countArraySlice(const simdjson::padded_string& slice)
{
    PooledJsonParser json;
    od::document doc;
    od::array array;
    size_t count = 0;
    // A slice that goes on after its array (a second array appended to the file) is not one
    // clean array: the whole-document parse reports what follows.
    const char* rest = nullptr;
    if (json->iterate(slice).get(doc) || !skipRootValue(doc, &rest) || rest || doc.get_array().get(array) ||
        array.count_elements().get(count))
        return std::nullopt;
    return count;
}

SliceOutcome parseArraySlice(const simdjson::padded_string& slice, qint64 firstLine, qint64 firstIndex,
                             EventRecordParser& parser, EventChunk& chunk, const RangeControl& control)
{
    PooledJsonParser json;
    od::document doc;
    od::array array;
    if (json->iterate(slice).get(doc) || doc.get_array().get(array))
        return SliceOutcome::Unusable;
    switch (walkEventArray(array, slice.data(), firstLine, firstIndex, control.progressStepBytes, parser,
                           chunk, control)
                .end) {
    case ArrayWalk::End::Cancelled:
        return SliceOutcome::Cancelled;
    case ArrayWalk::End::Broken:
        return SliceOutcome::Unusable;
    case ArrayWalk::End::Finished:
        break;
    }
    if (control.progress)
        control.progress(static_cast<qint64>(slice.size()));
    return control.cancelled() ? SliceOutcome::Cancelled : SliceOutcome::Parsed;
}

} // namespace gapscope::detail
