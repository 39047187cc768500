#pragma once
// Internal to the loader: the one per-record parser shared by every event form (JSON array,
// JSON lines, sink segments, and CSV, whose rows are rewritten as JSON objects). Two readings
// of a record must agree: parse() over simdjson's value, and parseFlatLine(), the fast path of
// flat JSON lines (FlatRecordParser.cpp); both fill one RecordFields (RecordFields.h) that
// finish() judges and writes into the chunk's columns (RecordColumns.cpp). The fields are
// those of StormlogSchema.h.

#include "model/trace/EventChunk.h"

#include <simdjson.h>

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope::detail {

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

} // namespace gapscope::detail
