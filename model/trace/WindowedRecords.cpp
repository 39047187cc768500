#include "model/trace/WindowedRecords.h"

#include "model/trace/JsonEventReader.h"
#include "model/trace/TraceLoader.h"

#include <algorithm>

namespace gapscope::detail {

void growToExpectedRows(EventStore& store, size_t appendedRows, double done)
{
    const size_t rows = store.size();
    if (done <= 0 || done >= 1 || rows + appendedRows <= store.timestampNs.capacity())
        return;
    const auto expected = static_cast<size_t>(static_cast<double>(rows) / done * 1.02);
    store.reserveRows(std::max({expected, rows + 2 * appendedRows, store.timestampNs.capacity() * 5 / 4}));
}

WindowedReadResult readRecordWindows(const std::vector<WindowedInput>& inputs, EventChunk& chunk,
                                     WindowedForm form, const RecordRangeParse& parse)
{
    std::vector<EventChunk> chunks; // one per slot, problems numbered from line 1 of their range
    size_t rowsBefore = 0;          // of chunk, before the window being merged
    const std::atomic<bool>* cancel = form.cancel;
    form.skipByteOrderMark = true;
    form.prepare = [&chunks](size_t slotCount) { chunks.resize(slotCount); };
    form.parse = [&](const WindowRange& range, qint64* lines) {
        EventRecordParser parser(inputs[range.file].name);
        RangeControl control{cancel, [&range](qint64 done) { range.proceed(static_cast<size_t>(done)); }};
        control.progressStepBytes = kWorkerStepBytes;
        EventChunk& into = chunks[range.slot];
        into.store.keepRowsUnpacked(); // packed once, by the merge
        return parse(range, parser, into, control, lines);
    };
    form.merge = [&](const WindowMerge& merge) {
        if (merge.index == 0)
            rowsBefore = chunk.store.size();
        EventChunk& range = chunks[merge.slot];
        range.problems.shiftLines(merge.firstLine - 1);
        range.problems.shiftIndexes(chunk.recordsRead); // array elements are numbered from 0 in a range
        chunk.append(std::move(range));
        if (merge.complete && merge.index + 1 == merge.ranges)
            growToExpectedRows(chunk.store, chunk.store.size() - rowsBefore, merge.done);
    };
    return readWindowed(inputs, form);
}

WindowedForm windowedForm(const LoadControl& control)
{
    WindowedForm form;
    if (control.windowBytesPerThread > 0)
        form.windowBytesPerThread = control.windowBytesPerThread;
    form.threads = control.threads;
    form.cancel = control.cancel;
    form.progress = control.progress;
    return form;
}

WindowedReadResult readJsonLines(const std::vector<WindowedInput>& inputs, EventChunk& chunk,
                                 WindowedForm form)
{
    form.padding = simdjson::SIMDJSON_PADDING;
    return readRecordWindows(inputs, chunk, std::move(form),
                             [](const WindowRange& range, EventRecordParser& parser, EventChunk& into,
                                const RangeControl& control, qint64* lines) {
                                 return parseJsonLinesRange(range.data, range.begin, range.end,
                                                            range.capacity, 1, range.endsFile, parser, into,
                                                            control, lines);
                             });
}

WindowedReadResult readJsonArray(const WindowedInput& input, EventChunk& chunk, WindowedForm form,
                                 bool* unusable, bool flatFastPath)
{
    std::atomic<bool> broken{false}; // set from the parse threads
    bool opened = false;             // the '[' was found
    form.padding = simdjson::SIMDJSON_PADDING;
    form.recordsEnd = [](const char* data, size_t filled, bool atEnd) -> size_t {
        if (atEnd)
            return filled;
        const size_t comma = arrayElementSeparator(data, 0, filled, true);
        return comma == std::string_view::npos ? 0 : comma + 1; // 0: one element longer than the window
    };
    form.nextBoundary = [](const char* data, size_t from, size_t limit) {
        const size_t comma = arrayElementSeparator(data, from, limit, false);
        return comma == std::string_view::npos ? limit : comma + 1;
    };
    form.recordsStart = [&](const char* data, size_t end, bool atEnd, qint64* line) -> std::optional<size_t> {
        if (opened)
            return 0;
        size_t at = 0;
        while (at < end && (data[at] == ' ' || data[at] == '\t' || data[at] == '\n' || data[at] == '\r'))
            ++at;
        *line += countNewlines(data, data + at);
        if (at == end && !atEnd)
            return end;
        if (at == end || data[at] != '[') {
            broken = true;
            return std::nullopt;
        }
        opened = true;
        return at + 1;
    };
    const WindowedReadResult read = readRecordWindows(
        {input}, chunk, std::move(form),
        [&broken, flatFastPath](const WindowRange& range, EventRecordParser& parser, EventChunk& into,
                                const RangeControl& control, qint64* lines) {
            RangeControl elements = control;
            elements.flatFastPath = flatFastPath;
            const ArrayOutcome outcome =
                parseArrayElements(range.data, range.begin, range.end, range.capacity, range.endsFile, parser,
                                   into, elements, lines);
            if (outcome == ArrayOutcome::Unusable)
                broken = true;
            return outcome == ArrayOutcome::Parsed;
        });
    *unusable = broken || (!opened && !read.cancelled && read.error.isEmpty());
    return read;
}

} // namespace gapscope::detail
