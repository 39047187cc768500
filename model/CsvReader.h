#pragma once
// Internal to the loader: a stormlog CSV file read in windows and parsed on all cores.
//
// The file is read in windows and parsed on all cores as WindowedChunks.h describes. A quote
// opens a quoted cell only at the start of a cell, and a quoted cell may hold line breaks, so a
// line break is a record boundary only outside quotes: one cheap sequential pass per window
// (memchr from quote to quote) finds the quoted spans, the window is cut after its last record
// boundary, and its records are split at boundaries into ranges. The result (rows, strings,
// problems and their lines) is the same for any number of threads and any window size.

#include <QString>

#include <atomic>
#include <cstddef>
#include <functional>

namespace gapscope::detail {

struct EventChunk;

struct CsvFileControl
{
    const std::atomic<bool>* cancel = nullptr;
    // How many ranges (threads) for a window of this many bytes to parse.
    std::function<int(size_t bytes)> ranges;
    // Bytes parsed since the last call; called from several threads at once.
    std::function<void(qint64 bytes)> advance;
    // Bytes per thread read at a time; 0 = the default (32 MB). Tests set a few bytes to
    // cross many window boundaries.
    size_t windowBytesPerThread = 0;
};

// Returns false when cancelled (chunk then holds the rows of a contiguous prefix); *error is
// set when the file cannot be read.
bool parseCsvFile(const QString& path, EventChunk& chunk, const CsvFileControl& control, QString* error);

} // namespace gapscope::detail
