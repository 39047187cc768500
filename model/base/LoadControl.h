#pragma once
// How a caller steers a load: progress, cancel, threads, window size. Shared vocabulary of
// every loader (traces, budget logs, jobs, the reopen cache), so it lives below all of them.

#include <QtGlobal>

#include <atomic>
#include <cstddef>
#include <functional>

namespace gapscope {

struct LoadControl
{
    // called with (bytes read so far, total bytes); may be called from a worker thread
    std::function<void(qint64, qint64)> progress;
    // polled often; when set the loader stops and returns what it has, with cancelled = true
    const std::atomic<bool>* cancel = nullptr;
    // Threads for the forms that split at record boundaries (JSON lines, sink segments, CSV):
    // 0 = one per core for inputs large enough to be worth it; n > 0 = exactly n ranges
    // (results are identical for every n).
    int threads = 0;
    // Bytes per thread that JSON lines and CSV files are read in at a time; 0 = what the input
    // size and the threads call for (windowBytesPerThreadFor: 1 to 4 MB).
    // Tests set a few bytes to cross many window boundaries.
    size_t windowBytesPerThread = 0;
};

} // namespace gapscope
