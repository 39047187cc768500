#pragma once
// Internal to the loader: the stormlog CSV form, a header row and one event a record. CSV rows
// are rewritten as JSON objects and go through the same per-record parser as every JSON form,
// so a CSV and a JSON capture of one run load into identical columns.
//
// A file is read in windows and parsed on all cores by the windowed reader
// (model/read/WindowedReader.h). A quote opens a quoted cell only at the start of a cell, and a
// quoted cell may hold line breaks, so a line break is a record boundary only outside quotes:
// one cheap sequential pass per window (memchr from quote to quote) finds the quoted spans, the
// window is cut after its last record boundary, and its records are split at boundaries into
// ranges. The result (rows, strings, problems and their lines) is the same for any number of
// threads and any window size.

#include "model/read/WindowedReader.h"
#include "model/trace/JsonDocumentReader.h"
#include "model/trace/StormlogSchema.h"

#include <QString>

#include <optional>
#include <string_view>

namespace gapscope::detail {

// Whether the first line is a stormlog CSV header: a cell (unquoted, trimmed) names one of the
// marker columns (FieldSpec::marksCsvHeader: schema_version, timestamp_ns, event_type, timestamp,
// memory_allocated).
bool isCsvHeader(std::string_view firstLine);

// Whole CSV text (header row first). Returns false when cancelled. The one-thread form of
// what parseCsvFile does in windows and ranges.
bool parseCsv(std::string_view text, EventRecordParser& parser, EventChunk& chunk,
              const RangeControl& control);

// The columns of a CSV header row and how each one's cells are written as JSON.
struct CsvColumns
{
    using Kind = CellType;          // of the field the column names (StormlogSchema.h); Other for the rest
    std::vector<std::string> names; // trimmed
    std::vector<Kind> kinds;

    explicit CsvColumns(std::vector<std::string> headerNames = {});
    bool empty() const { return names.empty(); }
};

// The header row: the first non-blank record of data[begin, end), which must start at a
// record boundary and end at one (or at the end of the file). Returns the offset after the
// header record and sets *line to its next line, or returns nullopt when [begin, end) holds
// only blank records (then *line is the line at end).
std::optional<size_t> findCsvHeader(const char* data, size_t begin, size_t end, qint64* line,
                                    CsvColumns* columns);

// The records of data[begin, end) (begin at a record boundary; end at one or at the end of
// the file), firstLine being the line of begin, as rows of chunk; every bad record is an
// Error problem at the line where it starts. Progress gets byte offsets into data. Returns
// false when cancelled. *linesRead (when given) gets the lines read.
bool parseCsvRecords(const char* data, size_t begin, size_t end, qint64 firstLine, const CsvColumns& columns,
                     EventRecordParser& parser, EventChunk& chunk, const RangeControl& control,
                     qint64* linesRead = nullptr);

// form says how the file is read (window size, ranges, cancel, progress); the cutting at
// record boundaries and the parsing of CSV records are set here. When cancelled, chunk holds the
// rows of a contiguous prefix; the result's error is set when the file cannot be read. The input
// is a file or bytes (see readWindowed).
WindowedReadResult parseCsvFile(const WindowedInput& input, EventChunk& chunk, WindowedForm form);

} // namespace gapscope::detail
