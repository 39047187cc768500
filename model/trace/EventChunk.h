#pragma once
// Internal to the loader: what parsing a byte range (or a file) of any event form produces, an
// EventChunk with its own string pool and source table, so that several ranges can be parsed on
// different threads and merged in file order afterwards (EventChunk::append); where a record
// is (RecordLocation) and how the caller observes a range (RangeControl).

#include "model/store/EventStore.h"
#include "model/store/LoadProblem.h"

#include <QString>

#include <atomic>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gapscope::detail {

struct EventSourceHash
{
    size_t operator()(const EventSource& s) const noexcept;
};

// Rows of one byte range (or file) in file order.
struct EventChunk
{
    EventStore store;
    std::vector<PhaseBoundary> boundaries;                         // eventRow = row in store
    std::unordered_map<std::string, std::string> backendBySession; // first metadata.backend
    ProblemLog problems;
    qint64 recordsRead = 0;   // records seen, valid or not
    qint64 legacyRecords = 0; // loaded records without schema_version

    uint32_t addSource(const EventSource& source);
    // Appends other's rows after this chunk's rows (ids remapped). other is left empty; its
    // columns keep their capacity unless this chunk was empty and took them.
    void append(EventChunk&& other);
    // Removes everything; the columns keep their capacity (a chunk refilled window after window).
    void clear();

private:
    std::unordered_map<EventSource, uint32_t, EventSourceHash> m_sourceIndex;
    uint32_t m_lastSource = UINT32_MAX; // the source addSource gave last
};

struct RecordLocation
{
    qint64 line = 0;
    qint64 index = -1; // array index for JSON arrays
};

// How the caller observes a range: cancel is polled, progress gets the byte offset reached.
struct RangeControl
{
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(qint64 bytesDone)> progress;
    size_t progressStepBytes = size_t(1) << 20; // progress is called at least this often
    // JSON lines: try EventRecordParser::parseFlatLine before simdjson. Tests and the fuzz
    // target turn it off to compare the two readings.
    bool flatFastPath = true;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// What differs between two chunks (rows, strings by text, sources, origins, phase
// boundaries, backends, problems, counts), or empty when they hold the same. For the tests
// and the fuzz target that compare two ways of reading the same text.
QString chunkDifference(const EventChunk& a, const EventChunk& b);

} // namespace gapscope::detail
