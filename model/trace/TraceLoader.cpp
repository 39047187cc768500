#include "model/trace/TraceLoader.h"
#include "model/text/CharClass.h"
#include "model/text/Text.h"
#include "model/trace/OomBundle.h"

#include "model/read/WindowedReader.h"
#include "model/trace/Csv.h"
#include "model/trace/DiagnoseTimeline.h"
#include "model/trace/JsonDocumentReader.h"
#include "model/trace/Sink.h"
#include "model/trace/SinkManifest.h"
#include "model/trace/WindowedRecords.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstring>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <map>
#include <memory>
#include <numeric>

namespace gapscope {

using detail::EventChunk;
using detail::EventRecordParser;
using detail::RangeControl;
using detail::SliceOutcome;

namespace {

constexpr qint64 kDetectionPrefixBytes = kInputHeadBytes;

constexpr bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// How the bytes are laid out, beside the user-facing TraceForm.
enum class Container
{
    Document,
    Lines,
    Csv,
    Timeline,
    Sink
};

struct Detection
{
    TraceForm form = TraceForm::JsonLines;
    Container container = Container::Document;
    // A top-level array whose '[' is the first byte that is not blank (no byte order mark before
    // it), not a wrapper object: what the windowed array reader can stream.
    bool bareArray = false;
};

// What objectKeys stops at: a string, or a bracket that changes the depth.
constexpr CharClass kKeyScanStop =
    charClass([](char c) { return c == '"' || c == '{' || c == '[' || c == '}' || c == ']'; });
constexpr CharClass kStringStop = charClass([](char c) { return c == '"' || c == '\\'; });
constexpr CharClass kBlank = charClass(isBlank);

// Keys of the object starting at text[start] == '{' (depth-1 keys only, raw spelling), as
// far as text reaches, as views into text. *end is one past the closing brace, or npos when it
// is not in text. Detection runs on every input, so its scan steps over pointers and tables
// (model/text/CharClass.h says why).
std::vector<std::string_view> objectKeys(std::string_view text, size_t start, size_t* end)
{
    std::vector<std::string_view> keys;
    keys.reserve(32); // a stormlog record has about 25 keys
    int depth = 0;
    *end = std::string_view::npos;
    const char* const first = text.data();
    const char* const last = first + text.size();
    const char* p = first + start;
    for (;;) {
        while (p < last && !kKeyScanStop(*p))
            ++p;
        if (p == last)
            return keys;
        if (*p == '"') {
            const char* const open = p++;
            for (;;) { // to the closing quote; a backslash escapes the character after it
                while (p < last && !kStringStop(*p))
                    ++p;
                if (p == last)
                    return keys;
                if (*p == '"')
                    break;
                if (++p == last)
                    return keys;
                ++p;
            }
            if (depth == 1) {
                const char* after = p + 1;
                while (after < last && kBlank(*after))
                    ++after;
                if (after < last && *after == ':')
                    keys.emplace_back(open + 1, static_cast<size_t>(p - open - 1));
            }
        } else if (*p == '{' || *p == '[') {
            ++depth;
        } else if (--depth == 0) {
            *end = static_cast<size_t>(p + 1 - first);
            return keys;
        }
        ++p;
    }
}

bool hasKey(const std::vector<std::string_view>& keys, std::string_view key)
{
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Event records without schema_version but with the legacy fields.
bool looksLegacy(const std::vector<std::string_view>& keys)
{
    return !hasKey(keys, "schema_version") && (hasKey(keys, "timestamp") || hasKey(keys, "memory_allocated"));
}

bool looksLikeEvent(const std::vector<std::string_view>& keys)
{
    return hasKey(keys, "schema_version") || hasKey(keys, "timestamp_ns") || hasKey(keys, "event_type") ||
           looksLegacy(keys);
}

QString keyList(const std::vector<std::string_view>& keys)
{
    QStringList names;
    for (size_t i = 0; i < keys.size() && i < 8; ++i)
        names << qs(keys[i]);
    return names.join(QStringLiteral(", "));
}

// How much of a file's start detection reads: kDetectionPrefixBytes, or, when no line ends
// within them, as far as a JSON lines record may go, so that a first record longer than the
// prefix is still seen to end where its line does (and the file is JSON lines, not one
// document whose other lines would be lost).
size_t detectionLimit(std::string_view start)
{
    const std::string_view prefix = start.substr(0, kDetectionPrefixBytes);
    if (prefix.size() < size_t(kDetectionPrefixBytes) || prefix.find('\n') != std::string_view::npos)
        return kDetectionPrefixBytes;
    return kDetectionPrefixBytes + detail::kMaxRecordBytes;
}

// The form of a file from its first bytes (at most detectionLimit of them).
std::optional<Detection> detectBytes(std::string_view prefix, QString* whyNot)
{
    auto fail = [whyNot](const QString& why) -> std::optional<Detection> {
        if (whyNot)
            *whyNot = why;
        return std::nullopt;
    };
    prefix = prefix.substr(0, detectionLimit(prefix));
    const bool byteOrderMark = prefix.substr(0, 3) == "\xEF\xBB\xBF";
    if (byteOrderMark)
        prefix.remove_prefix(3);
    size_t first = 0;
    while (first < prefix.size() && isBlank(prefix[first]))
        ++first;
    if (first == prefix.size())
        return fail(prefix.empty() ? QStringLiteral("empty file")
                                   : QStringLiteral("file holds only whitespace"));
    if (prefix.find('\0') != std::string_view::npos)
        return fail(QStringLiteral("binary file, not JSON or CSV"));

    const char opening = prefix[first];
    if (opening == '[') {
        size_t next = first + 1;
        while (next < prefix.size() && isBlank(prefix[next]))
            ++next;
        if (next < prefix.size() && prefix[next] != '{' && prefix[next] != ']')
            return fail(QStringLiteral("JSON array whose first element is not an object"));
        size_t end = 0;
        const auto keys = next < prefix.size() && prefix[next] == '{' ? objectKeys(prefix, next, &end)
                                                                      : std::vector<std::string_view>{};
        return Detection{looksLegacy(keys) ? TraceForm::Legacy : TraceForm::JsonArray, Container::Document,
                         !byteOrderMark};
    }
    if (opening == '{') {
        size_t end = 0;
        const auto keys = objectKeys(prefix, first, &end);
        // JSON lines: line 1 is a complete object and more content follows it.
        if (end != std::string_view::npos &&
            prefix.substr(first, end - first).find('\n') == std::string_view::npos) {
            size_t after = end;
            while (after < prefix.size() && isBlank(prefix[after]))
                ++after;
            if (after < prefix.size() && prefix.substr(end, after - end).find('\n') != std::string_view::npos)
                return Detection{looksLegacy(keys) ? TraceForm::Legacy : TraceForm::JsonLines,
                                 Container::Lines};
        }
        // A first line that does not end within the detection limit is longer than a record
        // may be. Unless its keys show a one-line document (a wrapper or a timeline, whose
        // other keys may come later), it is the over-long first record of JSON lines: read as
        // lines, it is counted and reported and the lines after it load; read as a document,
        // they would be lost.
        if (end == std::string_view::npos &&
            prefix.size() >= kDetectionPrefixBytes + detail::kMaxRecordBytes &&
            prefix.find('\n', first) == std::string_view::npos && !hasKey(keys, "events") &&
            !hasKey(keys, "timestamps") && !hasKey(keys, "allocated"))
            return Detection{looksLegacy(keys) ? TraceForm::Legacy : TraceForm::JsonLines, Container::Lines};
        if (hasKey(keys, "timestamps") && hasKey(keys, "allocated"))
            return Detection{TraceForm::DiagnoseTimeline, Container::Timeline};
        if (hasKey(keys, "events"))
            return Detection{TraceForm::JsonArray, Container::Document};
        if (looksLikeEvent(keys))
            return Detection{looksLegacy(keys) ? TraceForm::Legacy : TraceForm::JsonArray,
                             Container::Document};
        return fail(QStringLiteral("JSON object without event fields (keys: %1)").arg(keyList(keys)));
    }
    const size_t lineEnd = prefix.find('\n', first);
    if (detail::isCsvHeader(prefix.substr(first, lineEnd == std::string_view::npos ? prefix.size() - first
                                                                                   : lineEnd - first)))
        return Detection{TraceForm::Csv, Container::Csv};
    std::string start(prefix.substr(first, std::min<size_t>(24, prefix.size() - first)));
    std::replace_if(
        start.begin(), start.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
    return fail(QStringLiteral("neither a stormlog trace nor a memory-budget log: not JSON, not a CSV with "
                               "event columns, no budget tick line (starts with \"%1\")")
                    .arg(qs(start)));
}

std::optional<Detection> detectFile(const QString& path, QString* whyNot)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (whyNot)
            *whyNot = QStringLiteral("cannot open for reading: %1").arg(file.errorString());
        return std::nullopt;
    }
    const QByteArray prefix = readInputHead(file);
    return detectBytes(std::string_view(prefix.constData(), static_cast<size_t>(prefix.size())), whyNot);
}

std::optional<Detection> detect(const QString& path, QString* whyNot)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        if (whyNot)
            *whyNot = info.isSymLink() ? QStringLiteral("dangling symbolic link or symbolic link loop")
                                       : QStringLiteral("no such file or directory");
        return std::nullopt;
    }
    // Opening a FIFO, socket or device could block forever or never end: refuse it.
    if (!info.isDir() && !info.isFile()) {
        if (whyNot)
            *whyNot = QStringLiteral("not a regular file (a FIFO, socket or device); refused");
        return std::nullopt;
    }
    if (info.isDir() && (!info.isReadable() || !info.isExecutable())) {
        if (whyNot)
            *whyNot = QStringLiteral("directory cannot be read (permission denied)");
        return std::nullopt;
    }
    if (info.isDir()) {
        if (!QFileInfo(QDir(path).filePath(QStringLiteral("manifest.json"))).isFile()) {
            if (whyNot)
                *whyNot = QStringLiteral("directory without manifest.json (not a stormlog sink)");
            return std::nullopt;
        }
        return Detection{TraceForm::SinkDirectory, Container::Sink};
    }
    return detectFile(path, whyNot);
}

// Position of a ',' between two top-level array elements ("}" blanks "," blanks "{") in
// data[from, to), searching forward (or backward), or npos. A comma found this way inside a
// nested array or a string is harmless: the slices cut there do not parse, and the load
// falls back to the whole-document parse.
size_t elementSeparator(const char* data, size_t from, size_t to, bool backward)
{
    while (from < to) {
        const void* found =
            backward ? memrchr(data + from, ',', to - from) : std::memchr(data + from, ',', to - from);
        if (!found)
            return std::string_view::npos;
        const auto comma = static_cast<size_t>(static_cast<const char*>(found) - data);
        size_t before = comma;
        while (before > from && isBlank(data[before - 1]))
            --before;
        size_t after = comma + 1;
        while (after < to && isBlank(data[after]))
            ++after;
        if (before > from && data[before - 1] == '}' && after < to && data[after] == '{')
            return comma;
        if (backward)
            to = comma;
        else
            from = comma + 1;
    }
    return std::string_view::npos;
}

enum class ArrayStream
{
    Parsed,
    Cancelled,
    Unusable // not a plain top-level array of objects: parse the whole document instead
};

// A top-level JSON array of events read in windows and parsed in slices on all cores, with
// the result of parseJsonDocument (same rows, problems, lines and indexes) and without the
// whole file in memory (simdjson cannot take a document over 4 GB at all).
ArrayStream parseJsonArrayFile(const QString& path, EventChunk& chunk, const LoadControl& control,
                               ByteProgress& progress)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return ArrayStream::Unusable;
    const auto fileSize = static_cast<size_t>(std::max<qint64>(file.size(), 0));
    const size_t threads = rangesFor(fileSize, control.threads);
    const size_t perThread = control.windowBytesPerThread > 0 ? control.windowBytesPerThread
                                                              : windowBytesPerThreadFor(fileSize, threads);
    std::string buffer; // the window: carried bytes, then what was read
    size_t window = std::min(fileSize + 1, perThread * threads);
    qint64 line = 1;     // line of buffer[0]
    qint64 index = 0;    // array index of the next element
    bool opened = false; // the '[' was seen
    for (;;) {
        const size_t carried = buffer.size();
        buffer.resize(std::max(window, carried + (1 << 20)));
        const qint64 got = file.read(buffer.data() + carried, static_cast<qint64>(buffer.size() - carried));
        if (got < 0)
            return ArrayStream::Unusable;
        buffer.resize(carried + static_cast<size_t>(got));
        const bool atEnd = got == 0 || file.atEnd();
        const char* data = buffer.data();
        size_t begin = 0;
        if (!opened) {
            while (begin < buffer.size() && isBlank(data[begin]))
                ++begin;
            if (begin >= buffer.size() || data[begin] != '[')
                return ArrayStream::Unusable;
            line += countNewlines(data, data + begin);
            buffer.erase(0, begin + 1); // the window starts with the first element
            data = buffer.data();
            begin = 0;
            opened = true;
        }
        size_t end = 0; // slices cover [begin, end); the rest is carried
        if (atEnd) {
            end = buffer.size();
            while (end > begin && isBlank(data[end - 1]))
                --end;
            if (end == begin || data[end - 1] != ']')
                return ArrayStream::Unusable;
            --end;
        } else {
            end = elementSeparator(data, begin, buffer.size(), true);
            if (end == std::string_view::npos) {
                window *= 2; // one element longer than the window
                continue;
            }
        }
        // Slices of about equal size, cut at element separators.
        std::vector<size_t> cuts{begin};
        for (size_t i = 1; i < threads; ++i) {
            const size_t target = std::max(cuts.back(), begin + (end - begin) * i / threads);
            const size_t comma = elementSeparator(data, target, end, false);
            if (comma == std::string_view::npos)
                break;
            cuts.push_back(comma + 1);
        }
        cuts.push_back(end + 1); // past the separator (or the closing bracket)
        const size_t slices = cuts.size() - 1;
        std::vector<simdjson::padded_string> texts(slices);
        std::vector<qint64> firstLine(slices + 1, 0);
        std::vector<std::optional<size_t>> counts(slices);
        std::vector<EventChunk> chunks(slices);
        std::vector<SliceOutcome> outcomes(slices, SliceOutcome::Unusable);
        // Copy every slice as "[" elements "]", count its lines and elements.
        forEachRange(slices, [&](size_t i) {
            const size_t from = cuts[i];
            const size_t length = cuts[i + 1] - 1 - from; // without the separator
            texts[i] = simdjson::padded_string(length + 2);
            char* text = texts[i].data();
            text[0] = '[';
            std::memcpy(text + 1, data + from, length);
            text[length + 1] = ']';
            firstLine[i + 1] = countNewlines(data + from, data + cuts[i + 1]);
            counts[i] = detail::countArraySlice(texts[i]);
        });
        std::vector<qint64> firstIndex(slices, index);
        for (size_t i = 0; i < slices; ++i) {
            if (!counts[i] || *counts[i] == 0)
                return ArrayStream::Unusable;
            if (i + 1 < slices)
                firstIndex[i + 1] = firstIndex[i] + static_cast<qint64>(*counts[i]);
        }
        // Line of the byte before each slice's "[": the slice starts where the cut was.
        firstLine[0] = line + countNewlines(data, data + cuts[0]);
        for (size_t i = 1; i <= slices; ++i)
            firstLine[i] += firstLine[i - 1];
        forEachRange(slices, [&](size_t i) {
            EventRecordParser parser(path);
            qint64 reported = 0;
            RangeControl range{control.cancel, [&](qint64 done) {
                                   progress.advance(done - reported);
                                   reported = done;
                               }};
            range.progressStepBytes = kWorkerStepBytes;
            outcomes[i] =
                detail::parseArraySlice(texts[i], firstLine[i], firstIndex[i], parser, chunks[i], range);
        });
        for (size_t i = 0; i < slices; ++i) {
            if (outcomes[i] == SliceOutcome::Unusable)
                return ArrayStream::Unusable;
        }
        for (size_t i = 0; i < slices; ++i) {
            chunk.append(std::move(chunks[i]));
            if (outcomes[i] == SliceOutcome::Cancelled)
                return ArrayStream::Cancelled;
        }
        index = firstIndex.back() + static_cast<qint64>(*counts.back());
        if (atEnd)
            return ArrayStream::Parsed;
        line = firstLine.back();
        buffer.erase(0, end + 1);
    }
}

// Reads a whole file into simdjson's padded buffer (read-only open).
bool readFile(const QString& path, simdjson::padded_string& out, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return false;
    }
    const qint64 size = file.size();
    out = simdjson::padded_string(static_cast<size_t>(size));
    qint64 done = 0;
    while (done < size) {
        const qint64 got = file.read(out.data() + done, size - done);
        if (got <= 0) {
            *error = got < 0 ? file.errorString() : QStringLiteral("file shrank while reading");
            return false;
        }
        done += got;
    }
    return true;
}

// Status of a session without a manifest entry: completed when it has a `stop` event;
// interrupted when its last significant event (anything but routine telemetry: samples,
// allocations, peaks, phase boundaries, collectives) is an `error` or `critical` (an OOM);
// incomplete otherwise (the writer stopped without a stop event).
SessionStatus inferStatus(const EventStore& store, const Partition& range, bool hasStop)
{
    if (hasStop)
        return SessionStatus::Completed;
    for (uint32_t row = range.end; row-- > range.begin;) {
        switch (store.type[row]) {
        case EventType::Sample:
        case EventType::Allocation:
        case EventType::Deallocation:
        case EventType::Peak:
        case EventType::PhaseEnter:
        case EventType::PhaseExit:
        case EventType::Collective:
            continue;
        case EventType::Error:
        case EventType::Critical:
            return SessionStatus::Interrupted;
        default:
            return SessionStatus::Incomplete;
        }
    }
    return SessionStatus::Incomplete;
}

// Rows [begin, end) of one source.
struct SourceRun
{
    uint32_t source = 0;
    uint32_t begin = 0, end = 0;
};

std::vector<SourceRun> sourceRuns(const EventStore& store)
{
    std::vector<SourceRun> runs;
    store.source.forEachRun([&runs](uint32_t source, size_t begin, size_t end) {
        runs.push_back({source, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
    });
    return runs;
}

// Sorts the rows into (session, rank) partitions by timestamp and derives sessions and phases.
// shrinkColumns gives back the columns' spare capacity: not worth a copy for a cancelled load,
// whose columns were grown for the whole file and which is returned as fast as it can be.
void finalize(EventChunk&& chunk, const SinkManifest& manifest, TraceData& data, bool shrinkColumns)
{
    EventStore& in = chunk.store;
    const size_t rows = in.size();

    // Sessions ordered by first timestamp (then id) so indexes are stable for a given trace.
    struct SessionSpan
    {
        uint32_t poolId = 0;
        int64_t first = 0, last = 0;
    };
    // Rows come in long runs of one source: every per-row pass below works on runs, looking
    // the source up once a run.
    std::vector<SourceRun> runs = sourceRuns(in);
    std::unordered_map<uint32_t, size_t> spanOfPoolId;
    std::vector<SessionSpan> spans;
    bool timesInOrder = true; // within each run
    for (const SourceRun& run : runs) {
        const uint32_t id = in.sources[run.source].sessionId;
        const int64_t start = in.timestampNs[run.begin];
        auto [it, inserted] = spanOfPoolId.try_emplace(id, spans.size());
        if (inserted)
            spans.push_back({id, start, start});
        SessionSpan& span = spans[it->second];
        int64_t first = start, last = start, previous = start;
        bool ordered = true;
        in.timestampNs.forEachBlock(run.begin, run.end, [&](size_t, std::span<const int64_t> times) {
            for (const int64_t ts : times) {
                first = std::min(first, ts);
                last = std::max(last, ts);
                ordered &= ts >= previous;
                previous = ts;
            }
        });
        span.first = std::min(span.first, first);
        span.last = std::max(span.last, last);
        timesInOrder = timesInOrder && ordered;
    }
    std::vector<size_t> order(spans.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (spans[a].first != spans[b].first)
            return spans[a].first < spans[b].first;
        return in.str(spans[a].poolId) < in.str(spans[b].poolId);
    });
    std::vector<uint32_t> sessionOfSpan(spans.size());
    for (size_t i = 0; i < order.size(); ++i)
        sessionOfSpan[order[i]] = static_cast<uint32_t>(i);
    std::vector<uint32_t> sessionOfSource(in.sources.size());
    for (size_t s = 0; s < in.sources.size(); ++s) {
        auto it = spanOfPoolId.find(in.sources[s].sessionId);
        sessionOfSource[s] = it == spanOfPoolId.end() ? 0 : sessionOfSpan[it->second];
    }

    auto rowBefore = [&](uint32_t a, uint32_t b) {
        const uint32_t sa = sessionOfSource[in.source[a]], sb = sessionOfSource[in.source[b]];
        if (sa != sb)
            return sa < sb;
        const int64_t ra = in.sources[in.source[a]].rank, rb = in.sources[in.source[b]].rank;
        if (ra != rb)
            return ra < rb;
        return in.timestampNs[a] < in.timestampNs[b];
    };
    // A trace written in order (the usual case) keeps its rows: the columns move instead of
    // being copied through a permutation, which would double the peak memory of a large load.
    // Within a run the session and rank are one, so the order is the timestamps' (checked
    // above); between runs it is checked in full.
    bool inOrder = timesInOrder;
    for (size_t r = 1; r < runs.size() && inOrder; ++r)
        inOrder = !rowBefore(runs[r].begin, runs[r].begin - 1);
    std::vector<uint32_t> newRowOf;
    EventStore& out = data.store;
    // The spare room of a store of less than a block of rows is a few KB: not worth a copy of
    // each column (a small input's whole load made as many allocations again).
    shrinkColumns = shrinkColumns && rows >= kColumnBlockRows;
    if (inOrder) {
        out = std::move(in);
        if (shrinkColumns)
            out.shrinkToFit();
    } else {
        std::vector<uint32_t> permutation(rows);
        std::iota(permutation.begin(), permutation.end(), 0u);
        std::stable_sort(permutation.begin(), permutation.end(), rowBefore);
        newRowOf.resize(rows);
        for (uint32_t i = 0; i < rows; ++i)
            newRowOf[permutation[i]] = i;
        auto permute = [&](auto& dst, const auto& src) {
            dst.clear();
            for (size_t i = 0; i < rows; ++i)
                dst.push_back(src[permutation[i]]);
        };
        EventStore::forEachColumnOf(permute, out, in);
        for (auto& [row, origin] : in.origins)
            out.origins.emplace(newRowOf[row], std::move(origin));
        out.sources = std::move(in.sources);
        out.strings = std::move(in.strings);
        if (shrinkColumns)
            out.shrinkToFit();
        runs = sourceRuns(out);
    }

    // Partitions and sessions.
    data.sessions.assign(spans.size(), SessionInfo{});
    std::vector<std::map<uint32_t, qint64>> collectorCounts(spans.size());
    std::vector<bool> hasStop(spans.size(), false);
    for (const SourceRun& run : runs) {
        const uint32_t session = sessionOfSource[run.source];
        const int64_t rank = out.sources[run.source].rank;
        if (!data.partitions.empty() && data.partitions.back().sessionIndex == session &&
            data.partitions.back().rank == rank)
            data.partitions.back().end = run.end;
        else
            data.partitions.push_back(Partition{session, rank, run.begin, run.end});
    }
    for (size_t s = 0; s < spans.size(); ++s) {
        SessionInfo& info = data.sessions[sessionOfSpan[s]];
        info.id = qs(out.str(spans[s].poolId));
        info.startedNs = spans[s].first;
        info.endedNs = spans[s].last;
    }
    for (const Partition& partition : data.partitions) {
        SessionInfo& info = data.sessions[partition.sessionIndex];
        if (info.eventCount == 0) {
            const EventSource& first = out.sources[out.source[partition.begin]];
            info.host = qs(out.str(first.host));
            info.pid = first.pid;
            info.jobId = qs(out.str(first.jobId));
        }
        info.eventCount += static_cast<qint64>(partition.size());
        info.ranks.push_back(partition.rank);
        out.type.forEachBlock(partition.begin, partition.end, [&](size_t, std::span<const EventType> types) {
            if (std::find(types.begin(), types.end(), EventType::Stop) != types.end())
                hasStop[partition.sessionIndex] = true;
        });
    }
    // Events per collector of each session: rows per source first, then per (session, collector).
    std::vector<qint64> rowsOfSource(out.sources.size(), 0);
    for (const SourceRun& run : runs)
        rowsOfSource[run.source] += run.end - run.begin;
    for (size_t source = 0; source < rowsOfSource.size(); ++source) {
        if (rowsOfSource[source] > 0)
            collectorCounts[sessionOfSource[source]][out.sources[source].collector] += rowsOfSource[source];
    }
    for (size_t i = 0; i < data.sessions.size(); ++i) {
        SessionInfo& info = data.sessions[i];
        qint64 best = -1;
        for (const auto& [collector, count] : collectorCounts[i]) {
            if (count > best) {
                best = count;
                info.collector = qs(out.str(collector));
            }
        }
        if (auto it = chunk.backendBySession.find(info.id.toStdString()); it != chunk.backendBySession.end())
            info.backend = qs(it->second);
        // Interrupted/incomplete is judged on the session's rank with the latest event.
        const Partition* latest = nullptr;
        for (const Partition& partition : data.partitions) {
            if (partition.sessionIndex == i &&
                (!latest || out.timestampNs[partition.end - 1] > out.timestampNs[latest->end - 1]))
                latest = &partition;
        }
        info.status = latest ? inferStatus(out, *latest, hasStop[i]) : SessionStatus::Unknown;
    }
    // The sink manifest knows better than inference.
    applySinkManifest(manifest, data, true);

    // Phases: replay the boundaries of sessions that have a string session_id.
    std::vector<PhaseBoundary> boundaries = std::move(chunk.boundaries);
    if (!inOrder) {
        for (PhaseBoundary& boundary : boundaries)
            boundary.eventRow = newRowOf[boundary.eventRow];
    }
    std::vector<SessionRankEnd> ends;
    for (const Partition& partition : data.partitions) {
        const std::string& id = out.str(spans[order[partition.sessionIndex]].poolId);
        if (!id.empty())
            ends.push_back({id, partition.rank, out.timestampNs[partition.end - 1]});
    }
    if (!boundaries.empty())
        data.phases = replayPhases(std::move(boundaries), ends);
}

// The parse threads allocated their chunks in malloc arenas of their own; after the merge
// those pages are free but glibc keeps them. Giving them back brings a load's resident size
// closer to what its store holds (1 M samples on two threads: 77 B/sample before, 71 after;
// one thread: 58). Not under AddressSanitizer: its allocator replaces glibc's, whose arenas are
// then set up by the first malloc_trim itself, and two loads finishing at once (the inputs of a
// job) raced in that set-up and crashed.
void releaseFreedMemory()
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    malloc_trim(0);
#endif
}

} // namespace

QByteArray readInputHead(QIODevice& input)
{
    QByteArray head = input.read(kInputHeadBytes);
    const auto limit = qint64(detectionLimit(std::string_view(head.constData(), size_t(head.size()))));
    if (limit > head.size())
        head += input.read(limit - head.size());
    return head;
}

std::optional<TraceForm> detectTraceForm(const QString& path, QString* whyNot)
{
    const auto detection = detect(path, whyNot);
    if (!detection)
        return std::nullopt;
    return detection->form;
}

std::optional<TraceForm> detectTraceBytesForm(std::string_view bytes, QString* whyNot)
{
    const auto detection = detectBytes(bytes, whyNot);
    if (!detection)
        return std::nullopt;
    return detection->form;
}

namespace {

// The rows parsed from any input made into the outcome: a fatal error when there is none,
// else the trace (form refined, partitions, sessions, phases).
// releaseMemory: parse threads ran (see releaseFreedMemory).
// amend (when set) completes the trace before it is shared.
void finishLoad(LoadOutcome& outcome, std::shared_ptr<TraceData> data, EventChunk&& chunk,
                const SinkManifest& manifest, Container container, bool completed, bool releaseMemory,
                const std::function<void(TraceData&)>& amend = {})
{
    outcome.cancelled = !completed;

    if (chunk.store.size() == 0) {
        if (outcome.cancelled)
            return;
        // "<path>: no valid event record (<n> rejected; first: <problem>)", in one string
        const QString first =
            chunk.problems.kept().empty() ? QString() : chunk.problems.kept().front().toString();
        QString& fatal = outcome.fatalError;
        fatal.reserve(data->path.size() + first.size() + 64);
        fatal += data->path;
        fatal += QLatin1StringView(": no valid event record");
        if (!first.isEmpty()) {
            fatal += QLatin1StringView(" (");
            appendDecimal(fatal, chunk.problems.errorCount());
            fatal += QLatin1StringView(" rejected; first: ");
            fatal += first;
            fatal += u')';
        }
        return;
    }
    if (container == Container::Document || container == Container::Lines) {
        const bool allLegacy = chunk.legacyRecords == static_cast<qint64>(chunk.store.size());
        data->form = allLegacy
                         ? TraceForm::Legacy
                         : (container == Container::Lines ? TraceForm::JsonLines : TraceForm::JsonArray);
    }
    data->recordsRead = chunk.recordsRead;
    data->problems = std::move(chunk.problems);
    finalize(std::move(chunk), manifest, *data, !outcome.cancelled);
    if (releaseMemory)
        releaseFreedMemory();
    if (amend)
        amend(*data);
    outcome.data = std::move(data);
}

// What the loader makes of a form given by the caller: the container it is read as.
Container containerOf(TraceForm form, const std::optional<Detection>& detected)
{
    switch (form) {
    case TraceForm::JsonLines:
        return Container::Lines;
    case TraceForm::Csv:
        return Container::Csv;
    case TraceForm::DiagnoseTimeline:
        return Container::Timeline;
    case TraceForm::SinkDirectory:
        return Container::Sink;
    case TraceForm::Legacy:
        return detected && detected->container == Container::Lines ? Container::Lines : Container::Document;
    case TraceForm::JsonArray:
        break;
    }
    return Container::Document;
}

} // namespace

LoadOutcome loadTrace(const QString& path, const LoadControl& control)
{
    return loadTrace(path, control, attachOomBundlesBeside);
}

LoadOutcome loadTrace(const QString& path, const LoadControl& control,
                      const std::function<void(TraceData&)>& amend)
{
    LoadOutcome outcome;
    QString why;
    const auto detection = detect(path, &why);
    if (!detection) {
        outcome.fatalError = QStringLiteral("%1: %2").arg(path, why);
        return outcome;
    }
    if (control.cancel && control.cancel->load())
        return LoadOutcome{nullptr, QString(), true};
    auto data = std::make_shared<TraceData>();
    data->path = path;
    data->form = detection->form;
    EventChunk chunk;
    SinkManifest manifest;
    bool completed = true;

    if (detection->container == Container::Sink) {
        QString fatal;
        completed = detail::loadSink(path, chunk, manifest, data->bytesRead, control, &fatal);
        if (!fatal.isEmpty()) {
            outcome.fatalError = fatal;
            return outcome;
        }
    } else if (detection->container == Container::Lines || detection->container == Container::Csv) {
        const qint64 total = QFileInfo(path).size();
        const WindowedReadResult read = detection->container == Container::Csv
                                            ? detail::parseCsvFile(WindowedInput{path, std::nullopt}, chunk,
                                                                   detail::windowedForm(control))
                                            : detail::readJsonLines({WindowedInput{path, std::nullopt}},
                                                                    chunk, detail::windowedForm(control));
        if (!read.error.isEmpty()) {
            outcome.fatalError = QStringLiteral("%1: cannot read: %2").arg(path, read.error);
            return outcome;
        }
        completed = !read.cancelled;
        data->bytesRead = total;
    } else if (detection->container == Container::Document && detection->bareArray &&
               (QFileInfo(path).size() >= static_cast<qint64>(kMinBytesPerThread) || control.threads > 1)) {
        const qint64 total = QFileInfo(path).size();
        ByteProgress progress(control.progress, total);
        const ArrayStream streamed = parseJsonArrayFile(path, chunk, control, progress);
        if (streamed == ArrayStream::Unusable) {
            chunk = EventChunk{};
            EventRecordParser parser(path);
            simdjson::padded_string text;
            QString error;
            if (!readFile(path, text, &error)) {
                outcome.fatalError = QStringLiteral("%1: cannot read: %2").arg(path, error);
                return outcome;
            }
            RangeControl range{control.cancel, nullptr};
            if (control.progress)
                range.progress = [&](qint64 done) { control.progress(done, total); };
            completed = detail::parseJsonDocument(text, parser, chunk, range);
        } else {
            completed = streamed == ArrayStream::Parsed;
            if (control.progress && completed)
                control.progress(total, total);
        }
        data->bytesRead = total;
    } else {
        simdjson::padded_string text;
        QString error;
        if (!readFile(path, text, &error)) {
            outcome.fatalError = QStringLiteral("%1: cannot read: %2").arg(path, error);
            return outcome;
        }
        const auto total = static_cast<qint64>(text.size());
        RangeControl range{control.cancel, nullptr};
        if (control.progress)
            range.progress = [&](qint64 done) { control.progress(done, total); };
        EventRecordParser parser(path);
        switch (detection->container) {
        case Container::Timeline:
            detail::parseDiagnoseTimeline(text, path, chunk);
            break;
        case Container::Document:
        case Container::Sink:
        case Container::Csv:
        case Container::Lines: // read in windows above
            completed = detail::parseJsonDocument(text, parser, chunk, range);
            break;
        }
        data->bytesRead = total;
    }
    finishLoad(outcome, std::move(data), std::move(chunk), manifest, detection->container, completed, true,
               amend);
    return outcome;
}

LoadOutcome loadTraceBytes(std::string_view bytes, std::optional<TraceForm> form, const QString& name,
                           const LoadControl& control)
{
    LoadOutcome outcome;
    QString why;
    std::optional<Detection> detection = detectBytes(bytes, &why);
    if (form) {
        if (*form == TraceForm::SinkDirectory) {
            outcome.fatalError = QStringLiteral("%1: a sink is loaded with loadSinkBytes").arg(name);
            return outcome;
        }
        detection = Detection{*form, containerOf(*form, detection)};
    }
    if (!detection) {
        outcome.fatalError = QStringLiteral("%1: %2").arg(name, why);
        return outcome;
    }
    if (control.cancel && control.cancel->load())
        return LoadOutcome{nullptr, QString(), true};
    auto data = std::make_shared<TraceData>();
    data->path = name;
    data->form = detection->form;
    data->bytesRead = static_cast<qint64>(bytes.size());
    EventChunk chunk;
    bool completed = true;
    const WindowedInput input{name, bytes};
    switch (detection->container) {
    case Container::Lines:
    case Container::Csv: {
        const WindowedReadResult read =
            detection->container == Container::Csv
                ? detail::parseCsvFile(input, chunk, detail::windowedForm(control))
                : detail::readJsonLines({input}, chunk, detail::windowedForm(control));
        completed = !read.cancelled;
        break;
    }
    case Container::Document:
    case Container::Timeline: {
        const simdjson::padded_string text(bytes.data(), bytes.size());
        if (detection->container == Container::Timeline) {
            detail::parseDiagnoseTimeline(text, name, chunk);
            break;
        }
        RangeControl range{control.cancel, nullptr};
        if (control.progress)
            range.progress = [&](qint64 done) { control.progress(done, data->bytesRead); };
        EventRecordParser parser(name);
        completed = detail::parseJsonDocument(text, parser, chunk, range);
        break;
    }
    case Container::Sink:
        break; // refused above
    }
    finishLoad(outcome, std::move(data), std::move(chunk), SinkManifest{}, detection->container, completed,
               false);
    return outcome;
}

LoadOutcome loadSinkBytes(const QString& path, std::string_view manifest,
                          const std::vector<SinkSegmentBytes>& segments, const LoadControl& control)
{
    LoadOutcome outcome;
    auto data = std::make_shared<TraceData>();
    data->path = path;
    data->form = TraceForm::SinkDirectory;
    EventChunk chunk;
    SinkManifest parsed;
    QString fatal;
    const bool completed =
        detail::loadSinkBytes(path, manifest, segments, chunk, parsed, data->bytesRead, control, &fatal);
    if (!fatal.isEmpty()) {
        outcome.fatalError = fatal;
        return outcome;
    }
    finishLoad(outcome, std::move(data), std::move(chunk), parsed, Container::Sink, completed, false);
    return outcome;
}

std::shared_ptr<TraceData> buildTraceData(const QString& path, TraceForm form, EventChunk&& chunk,
                                          qint64 bytesRead)
{
    auto data = std::make_shared<TraceData>();
    data->path = path;
    data->form = form;
    data->bytesRead = bytesRead;
    data->recordsRead = chunk.recordsRead;
    data->problems = std::move(chunk.problems);
    finalize(std::move(chunk), SinkManifest{}, *data, true);
    return data;
}

} // namespace gapscope
