#pragma once
// Internal to the loader: a stormlog CSV file read in windows and parsed on all cores.
//
// The file is read in windows and parsed on all cores as WindowedChunks.h describes. A quote
// opens a quoted cell only at the start of a cell, and a quoted cell may hold line breaks, so a
// line break is a record boundary only outside quotes: one cheap sequential pass per window
// (memchr from quote to quote) finds the quoted spans, the window is cut after its last record
// boundary, and its records are split at boundaries into ranges. The result (rows, strings,
// problems and their lines) is the same for any number of threads and any window size.

#include "model/read/WindowedChunks.h"

#include <QString>

namespace gapscope::detail {

struct EventChunk;

// form says how the file is read (window size, ranges, cancel, progress); the cutting at
// record boundaries and the parsing of CSV records are set here. Returns false when cancelled
// (chunk then holds the rows of a contiguous prefix); *error is set when the file cannot be read.
bool parseCsvFile(const QString& path, EventChunk& chunk, WindowedForm form, QString* error);

} // namespace gapscope::detail
