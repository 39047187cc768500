#include "model/read/ParallelLines.h"

#include <QFile>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace gapscope {

qint64 countNewlines(const char* begin, const char* end)
{
    // memchr jumps between newlines; std::count would compare every byte
    qint64 count = 0;
    while (begin < end) {
        const void* found = std::memchr(begin, '\n', static_cast<size_t>(end - begin));
        if (!found)
            break;
        ++count;
        begin = static_cast<const char*>(found) + 1;
    }
    return count;
}

namespace {

// Workers report every kWorkerStepBytes; the user hears of it every kReportStepBytes.
constexpr size_t kWorkerStepBytes = 64 * 1024;
constexpr qint64 kReportStepBytes = qint64(1) << 20;
// A window is read in pieces of at most this, with a look at the cancel flag in between.
constexpr qint64 kReadPieceBytes = qint64(4) << 20;

// Byte progress of several workers as one increasing sequence of reports.
class SharedProgress
{
public:
    SharedProgress(const std::function<void(qint64, qint64)>& report, qint64 total)
        : m_report(report), m_total(total)
    {
    }
    void advance(qint64 delta)
    {
        if (!m_report || delta <= 0)
            return;
        const std::lock_guard lock(m_mutex);
        m_done += delta;
        if (m_done >= m_next) {
            m_report(std::min(m_done, m_total), m_total);
            m_next = (m_done / kReportStepBytes + 1) * kReportStepBytes;
        }
    }
    void finish()
    {
        if (m_report)
            m_report(m_total, m_total);
    }

private:
    const std::function<void(qint64, qint64)>& m_report;
    const qint64 m_total;
    std::mutex m_mutex;
    qint64 m_done = 0;
    qint64 m_next = kReportStepBytes;
};

// Runs a job for indices 0 .. n-1 at once: index 0 on the calling thread, the others on
// threads started once and kept for all the windows of a file.
class Workers
{
public:
    explicit Workers(size_t count)
    {
        for (size_t i = 1; i < count; ++i)
            m_threads.emplace_back([this, i] { loop(i); });
    }
    ~Workers()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (std::thread& thread : m_threads)
            thread.join();
    }
    Workers(const Workers&) = delete;
    Workers& operator=(const Workers&) = delete;

    void run(const std::function<void(size_t)>& job)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_job = &job;
            m_pending = m_threads.size();
            ++m_generation;
        }
        m_wake.notify_all();
        job(0);
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_job = nullptr;
    }

private:
    void loop(size_t index)
    {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void(size_t)>* job = nullptr;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
                if (m_stop)
                    return;
                seen = m_generation;
                job = m_job;
            }
            (*job)(index);
            {
                const std::lock_guard lock(m_mutex);
                --m_pending;
            }
            m_done.notify_one();
        }
    }

    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(size_t)>* m_job = nullptr;
    size_t m_pending = 0;
    uint64_t m_generation = 0;
    bool m_stop = false;
};

// One job at a time on a thread of its own, kept for the whole file.
class Background
{
public:
    Background() : m_thread([this] { loop(); }) {}
    ~Background()
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    void post(std::function<void()> job)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_job = std::move(job);
            m_busy = true;
        }
        m_wake.notify_one();
    }
    void wait()
    {
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return !m_busy; });
    }

private:
    void loop()
    {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return m_stop || m_job; });
                if (m_stop)
                    return;
                job = std::move(m_job);
                m_job = nullptr;
            }
            job();
            {
                const std::lock_guard lock(m_mutex);
                m_busy = false;
            }
            m_done.notify_one();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::function<void()> m_job;
    bool m_busy = false;
    bool m_stop = false;
    std::thread m_thread; // last: started once the members above exist
};

} // namespace

bool LineRange::proceed(size_t position) const
{
    return m_proceed ? m_proceed(position) : true;
}

size_t parallelLinesRanges(qint64 bytes, const ParallelLinesOptions& options)
{
    if (options.threads > 0)
        return static_cast<size_t>(options.threads);
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t perThread = std::max<size_t>(options.minBytesPerThread, 1);
    return std::clamp<size_t>(static_cast<size_t>(std::max<qint64>(bytes, 0)) / perThread, 1, cores);
}

class ParallelLinesReader
{
public:
    ParallelLinesReader(const ParallelLinesOptions& options, const ParallelLinesCallbacks& callbacks)
        : m_options(options), m_callbacks(callbacks)
    {
    }

    ParallelLinesResult run(const QString& path);

private:
    struct Fill
    {
        qint64 got = 0;
        bool atEnd = false; // the file ends within what was read
        bool cancelled = false;
        QString error;
    };

    bool cancelled() const { return m_options.cancel && m_options.cancel->load(std::memory_order_relaxed); }
    // Reads up to `wanted` bytes (fewer only at the end of the file).
    Fill fill(QFile& file, char* to, qint64 wanted) const;
    // Parses the whole lines data[0, size) (the last one without '\n' only when endsFile) on
    // the ranges' threads and merges them. False when cancelled.
    bool parseWindow(const char* data, size_t size, size_t capacity, bool endsFile);
    // The window holds `carried` bytes of a line longer than maxLineBytes: skips to its end.
    // False when the file could not be read (m_result.error) or the load was cancelled.
    bool skipLongLine(QFile& file, char* buffer, size_t window, size_t& carried, bool& atEnd);

    const ParallelLinesOptions& m_options;
    const ParallelLinesCallbacks& m_callbacks;
    std::unique_ptr<SharedProgress> m_progress;
    std::unique_ptr<Workers> m_workers;
    ParallelLinesResult m_result;
    size_t m_ranges = 1;
    qint64 m_line = 1; // number of the next line
};

bool ParallelLinesReader::parseWindow(const char* data, size_t size, size_t capacity, bool endsFile)
{
    // Range i is [bounds[i], bounds[i + 1]); every boundary but the last follows a '\n'.
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < m_ranges; ++i) {
        size_t at = std::max(bounds.back(), size * i / m_ranges);
        const void* newline = at < size ? std::memchr(data + at, '\n', size - at) : nullptr;
        at = newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) + 1 : size;
        bounds.push_back(at);
    }
    bounds.push_back(size);

    std::vector<qint64> firstLine(m_ranges + 1, 0);
    m_workers->run(
        [&](size_t i) { firstLine[i + 1] = countNewlines(data + bounds[i], data + bounds[i + 1]); });
    firstLine[0] = m_line;
    for (size_t i = 1; i < firstLine.size(); ++i)
        firstLine[i] += firstLine[i - 1];
    m_line = firstLine.back();
    if (endsFile && size > 0 && data[size - 1] != '\n')
        ++m_line; // the last line, without a newline
    m_result.lines = m_line - 1;

    std::vector<char> completed(m_ranges, 0);
    m_workers->run([&](size_t i) {
        size_t reported = bounds[i];
        LineRange range;
        range.data = data;
        range.begin = bounds[i];
        range.end = bounds[i + 1];
        range.capacity = capacity;
        range.firstLineNumber = firstLine[i];
        range.endsFile = endsFile && bounds[i + 1] == size;
        range.slot = i;
        range.m_proceed = [&](size_t position) {
            if (position >= reported + kWorkerStepBytes) {
                m_progress->advance(static_cast<qint64>(position - reported));
                reported = position;
            }
            return !cancelled();
        };
        completed[i] = m_callbacks.parse(range) ? 1 : 0;
        if (completed[i])
            m_progress->advance(static_cast<qint64>(bounds[i + 1] - reported));
    });
    for (size_t i = 0; i < m_ranges; ++i) {
        if (!completed[i])
            return false; // later ranges would leave a hole in the file order
        if (m_callbacks.merge)
            m_callbacks.merge(i);
    }
    return !cancelled();
}

bool ParallelLinesReader::skipLongLine(QFile& file, char* buffer, size_t window, size_t& carried, bool& atEnd)
{
    qint64 bytes = static_cast<qint64>(carried);
    m_progress->advance(static_cast<qint64>(carried));
    carried = 0;
    for (;;) {
        if (cancelled()) {
            m_result.cancelled = true;
            return false;
        }
        const qint64 got = file.read(buffer, static_cast<qint64>(window));
        if (got < 0) {
            m_result.error = file.errorString();
            return false;
        }
        if (got == 0) {
            atEnd = true;
            if (m_callbacks.longLine)
                m_callbacks.longLine(m_line, bytes, true);
            m_result.lines = m_line++;
            return true;
        }
        const void* found = std::memchr(buffer, '\n', static_cast<size_t>(got));
        if (!found) {
            bytes += got;
            m_progress->advance(got);
            continue;
        }
        const auto length = static_cast<size_t>(static_cast<const char*>(found) - buffer);
        bytes += static_cast<qint64>(length);
        if (m_callbacks.longLine)
            m_callbacks.longLine(m_line, bytes, false);
        m_result.lines = m_line++;
        m_progress->advance(static_cast<qint64>(length + 1));
        carried = static_cast<size_t>(got) - length - 1;
        std::memmove(buffer, buffer + length + 1, carried);
        return true;
    }
}

ParallelLinesReader::Fill ParallelLinesReader::fill(QFile& file, char* to, qint64 wanted) const
{
    // In pieces, so that a cancel is seen while a big window fills from a slow disk.
    Fill result;
    while (result.got < wanted) {
        if (cancelled()) {
            result.cancelled = true;
            return result;
        }
        const qint64 piece = file.read(to + result.got, std::min(wanted - result.got, kReadPieceBytes));
        if (piece < 0) {
            result.error = file.errorString();
            return result;
        }
        if (piece == 0)
            break;
        result.got += piece;
    }
    result.atEnd = result.got < wanted || file.atEnd();
    return result;
}

ParallelLinesResult ParallelLinesReader::run(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_result.error = file.errorString();
        return m_result;
    }
    m_result.fileSize = std::max<qint64>(file.size(), 0);
    m_progress = std::make_unique<SharedProgress>(m_options.progress, m_result.fileSize);
    m_ranges = std::max<size_t>(parallelLinesRanges(m_result.fileSize, m_options), 1);
    if (m_callbacks.prepare)
        m_callbacks.prepare(m_ranges);
    m_workers = std::make_unique<Workers>(m_ranges);
    Background reader; // reads the next window while the current one is parsed

    const size_t maxLine = m_options.maxLineBytes;
    const size_t padding = m_options.padding;
    size_t window = std::max<size_t>(std::min(static_cast<size_t>(m_result.fileSize) + 1,
                                              std::max<size_t>(m_options.windowBytesPerThread, 1) * m_ranges),
                                     1);
    std::unique_ptr<char[]> buffer(new char[window + padding]);
    std::unique_ptr<char[]> spare; // the next window, window + padding bytes when set
    size_t spareWindow = 0;
    size_t carried = 0; // bytes of a partial line at the start of buffer
    std::optional<Fill> prefetched;
    for (;;) {
        if (cancelled()) {
            m_result.cancelled = true;
            return m_result;
        }
        Fill got;
        if (prefetched) {
            got = *prefetched;
            prefetched.reset();
        } else {
            if (carried == window) { // one line fills the window
                if (maxLine > 0 && carried > maxLine) {
                    bool atEnd = false;
                    if (!skipLongLine(file, buffer.get(), window, carried, atEnd))
                        return m_result;
                    if (atEnd)
                        break;
                    continue;
                }
                size_t larger = window * 2;
                if (maxLine > 0)
                    larger = std::min(larger, maxLine + 1); // > window, as window <= maxLine here
                std::unique_ptr<char[]> grown(new char[larger + padding]);
                std::memcpy(grown.get(), buffer.get(), carried);
                buffer = std::move(grown);
                window = larger;
            }
            got = fill(file, buffer.get() + carried, static_cast<qint64>(window - carried));
        }
        if (got.cancelled) {
            m_result.cancelled = true;
            return m_result;
        }
        if (!got.error.isEmpty()) {
            m_result.error = got.error;
            return m_result;
        }
        const size_t filled = carried + static_cast<size_t>(got.got);
        size_t parseEnd = filled;
        if (!got.atEnd) {
            const void* last = filled > 0 ? memrchr(buffer.get(), '\n', filled) : nullptr;
            if (!last) {
                carried = filled; // no complete line yet
                continue;
            }
            parseEnd = static_cast<size_t>(static_cast<const char*>(last) - buffer.get()) + 1;
        }
        std::memset(buffer.get() + filled, 0, window + padding - filled);
        // The partial last line starts the next window, which is read meanwhile.
        const size_t nextCarried = filled - parseEnd;
        Fill next;
        const bool readAhead = !got.atEnd;
        if (readAhead) {
            if (!spare || spareWindow != window) {
                spare.reset(new char[window + padding]);
                spareWindow = window;
            }
            std::memcpy(spare.get(), buffer.get() + parseEnd, nextCarried);
            reader.post([&, nextCarried] {
                next = fill(file, spare.get() + nextCarried, static_cast<qint64>(window - nextCarried));
            });
        }
        const bool parsed = parseEnd == 0 || parseWindow(buffer.get(), parseEnd, window + padding, got.atEnd);
        if (readAhead)
            reader.wait();
        if (!parsed) {
            m_result.cancelled = true;
            return m_result;
        }
        if (got.atEnd)
            break;
        std::swap(buffer, spare);
        carried = nextCarried;
        prefetched = next;
    }
    m_progress->finish();
    return m_result;
}

ParallelLinesResult readLinesParallel(const QString& path, const ParallelLinesOptions& options,
                                      const ParallelLinesCallbacks& callbacks)
{
    return ParallelLinesReader(options, callbacks).run(path);
}

} // namespace gapscope
