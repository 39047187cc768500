#include "model/trace/WindowedRecords.h"

#include "model/trace/JsonDocumentReader.h"
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
    // A line longer than a record may be is counted and reported as the reader passes it, not
    // held: a crashed writer's preallocated or sparse tail can be gigabytes without a newline.
    // Called between merges, in file order.
    form.maxLineBytes = kMaxRecordBytes;
    form.longLine = [&inputs, &chunk](size_t file, qint64 line, qint64 bytes, bool endsFile) {
        ++chunk.recordsRead;
        reportLineProblem(chunk, inputs[file].name, line, bytes, endsFile, tooLongRecordReason(bytes));
    };
    return readRecordWindows(inputs, chunk, std::move(form),
                             [](const WindowRange& range, EventRecordParser& parser, EventChunk& into,
                                const RangeControl& control, qint64* lines) {
                                 return parseJsonLinesRange(range.data, range.begin, range.end,
                                                            range.capacity, 1, range.endsFile, parser, into,
                                                            control, lines);
                             });
}

} // namespace gapscope::detail
