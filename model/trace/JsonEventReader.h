#pragma once
// Internal to the loader: the one per-record parser shared by every event form (JSON array,
// JSON lines, sink segments, and CSV, whose rows are rewritten as JSON objects), and the
// readers of JSON lines ranges and whole JSON documents.
//
// A byte range parses into an EventChunk with its own string pool and source table, so
// several ranges can be parsed on different threads and merged in file order afterwards
// (EventChunk::append).

#include "model/store/EventStore.h"
#include "model/store/LoadProblem.h"

#include <simdjson.h>

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gapscope::detail {

// The longest JSON lines record that is read; a longer one is refused as a problem.
inline constexpr size_t kMaxRecordBytes = size_t(16) << 20;

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

struct RecordFields;

// Parsing state of one thread. Not thread-safe; make one per thread.
class EventRecordParser
{
public:
    explicit EventRecordParser(QString file);
    ~EventRecordParser();
    EventRecordParser(const EventRecordParser&) = delete;
    EventRecordParser& operator=(const EventRecordParser&) = delete;

    enum class Outcome
    {
        Loaded,
        Rejected,
        SyntaxError
    };
    // THE per-record entry point: validates one event object (schema 2/3/4 or legacy) and
    // appends it to chunk, or adds an Error problem saying why not. SyntaxError means the
    // JSON text itself is broken (nothing was reported; syntaxError() says what), and the
    // caller decides whether it can resynchronise.
    Outcome parse(simdjson::ondemand::object object, const RecordLocation& where, EventChunk& chunk);
    // The fast path of JSON lines: `text` (one trimmed line) read without simdjson when it is a flat record:
    // keys the loader knows, no escapes, integers only, metadata one object of such scalars, no duplicate
    // keys. nullopt: not such a record, nothing was done, and parse() must read it. Otherwise the outcome is
    // exactly what parse() gives for the same text (tst_jsonfastpath and the fuzz target fuzz_jsonfastpath
    // compare the two).
    std::optional<Outcome> parseFlatLine(std::string_view text, const RecordLocation& where,
                                         EventChunk& chunk);
    simdjson::error_code syntaxError() const { return m_syntaxError; }
    const QString& file() const { return m_file; }

private:
    Outcome finish(RecordFields& record, const RecordLocation& where, EventChunk& chunk);
    void extractPhaseBoundary(std::string_view metadataJson, std::string_view sessionId, EventType type,
                              int64_t rank, int64_t timestampNs, uint32_t row, const RecordLocation& where,
                              EventChunk& chunk);

    QString m_file;
    std::string m_metadata;          // scratch: canonical metadata text of the current record
    std::vector<uint8_t> m_keyOrder; // field id seen at each key position of the last record
    std::unique_ptr<RecordFields> m_record;
    simdjson::error_code m_syntaxError = simdjson::SUCCESS;
    std::string m_phaseBuffer;
    // The metadata text parseFlatLine read last and what it gave: a writer repeats the same
    // metadata on most lines, which is then compared, not read again.
    struct FlatMetadata
    {
        std::string raw;
        std::string canonical;
        std::string backend;
        EventOrigin origin;
    };
    FlatMetadata m_lastMetadata;
};

// "invalid JSON: " and simdjson's message for error, one shared copy per error: a file of broken
// lines reports one per line, and a copy of a QString is a reference, not an allocation.
const QString& invalidJsonMessage(simdjson::error_code error);

// Writes value as compact canonical JSON (see PyLiteral.h) to out.
simdjson::error_code writeCanonicalJson(simdjson::ondemand::value value, std::string& out, int depth = 0);

// JSON lines in [begin, end) of data; the bytes up to data + capacity must be readable
// (simdjson padding). firstLine is the line number of begin. A UTF-8 byte order mark is one
// only at the start of a file, which the caller skips (the windowed reader does): here it is
// part of its line, wherever the range starts. When endsFile, a last line
// without a newline that does not parse is taken as a live writer's partial line: a
// Warning, not an Error. Returns false when cancelled. *linesRead (when given) gets the lines
// read, a last one without a newline included.
bool parseJsonLinesRange(const char* data, size_t begin, size_t end, size_t capacity, qint64 firstLine,
                         bool endsFile, EventRecordParser& parser, EventChunk& chunk,
                         const RangeControl& control, qint64* linesRead = nullptr);

// "line of N bytes is longer than the 16 MB a record may have".
QString tooLongRecordReason(qint64 bytes);
// A JSON lines record that was not loaded: an Error, or, for a last line without a newline (a
// live writer's partial line, `bytes` long), a Warning saying so.
void reportLineProblem(EventChunk& chunk, const QString& file, qint64 line, qint64 bytes,
                       bool partialLastLine, const QString& reason);

// A whole JSON document: an array of events, {"events": [...]} or a single event object.
// Returns false when cancelled. A broken document stops at the break (Error problem).
bool parseJsonDocument(const simdjson::padded_string& buffer, EventRecordParser& parser, EventChunk& chunk,
                       const RangeControl& control);

// One slice of a large top-level event array, copied into `slice` as an array text of its
// own ("[" + elements + "]"), parsed as parseJsonDocument parses the elements of the whole
// array: element lines count on from firstLine at the start of slice, indexes from
// firstIndex. Unusable means the slice is not a clean array of elements (a syntax error, or
// the slice was cut inside a value): nothing is decided and the caller falls back to
// parseJsonDocument over the whole file, which reports the break as it always did.
enum class SliceOutcome
{
    Parsed,
    Cancelled,
    Unusable
};
// Elements in the slice (nullopt: Unusable).
std::optional<size_t> countArraySlice(const simdjson::padded_string& slice);
SliceOutcome parseArraySlice(const simdjson::padded_string& slice, qint64 firstLine, qint64 firstIndex,
                             EventRecordParser& parser, EventChunk& chunk, const RangeControl& control);

// What differs between two chunks (rows, strings by text, sources, origins, phase
// boundaries, backends, problems, counts), or empty when they hold the same. For the tests
// and the fuzz target that compare two ways of reading the same text.
QString chunkDifference(const EventChunk& a, const EventChunk& b);

// Line number (1-based) of byte offset `to`, counting on from (`from`, `lineAtFrom`).
qint64 advanceLine(const char* data, size_t from, size_t to, qint64 lineAtFrom);

} // namespace gapscope::detail
