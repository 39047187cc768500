#include "model/read/WindowedReader.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <numeric>
#include <string.h> // memrchr

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

size_t rangesFor(size_t bytes, int threads)
{
    if (threads > 0)
        return static_cast<size_t>(threads);
    // Read once: glibc reads /sys/devices/system/cpu/online at every call.
    static const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<size_t>(bytes / kMinBytesPerThread, 1, cores);
}

size_t windowBytesPerThreadFor(size_t bytes, size_t threads)
{
    constexpr size_t kWindowsPerInput = 32;
    return std::clamp<size_t>(bytes / (std::max<size_t>(threads, 1) * kWindowsPerInput), size_t(1) << 20,
                              size_t(4) << 20);
}

ByteProgress::ByteProgress(std::function<void(qint64, qint64)> report, qint64 total)
    : m_report(std::move(report)), m_total(total)
{
}

void ByteProgress::advance(qint64 delta)
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

void ByteProgress::finish()
{
    if (m_report)
        m_report(m_total, m_total);
}

bool WindowRange::proceed(size_t position) const
{
    return m_proceed ? m_proceed(position) : true;
}

namespace {

// The ranges a window is cut into per thread (taken in turn by the threads that are free), and
// the least bytes a range of them has.
constexpr size_t kRangesPerThread = 4;
constexpr size_t kMinBytesPerRange = 128 * 1024;

// A window is read in pieces of at most this, with a look at the cancel flag in between: a
// window of 64 MB from a slow disk takes long.
constexpr qint64 kReadPieceBytes = qint64(4) << 20;

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

// One job at a time on a thread of its own, kept for the whole read and started by the first
// job: a read of one window never needs it.
class Background
{
public:
    Background() = default;
    ~Background()
    {
        if (!m_thread.joinable())
            return;
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
        if (!m_thread.joinable())
            m_thread = std::thread([this] { loop(); });
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
    std::thread m_thread; // last: started (by post) once the members above exist
};

// The input being read: a file, or bytes read as that file would be (directly, not through a
// QBuffer, a QObject with a buffer of its own made for every input).
class InputStream
{
public:
    bool open(const WindowedInput& input)
    {
        m_file.reset();
        m_bytes = input.bytes.value_or(std::string_view());
        m_offset = 0;
        if (input.bytes)
            return true;
        m_file = std::make_unique<QFile>(input.name);
        return m_file->open(QIODevice::ReadOnly);
    }
    // As QIODevice::read: bytes read, 0 at the end, -1 on an error.
    qint64 read(char* to, qint64 most)
    {
        if (m_file)
            return m_file->read(to, most);
        const size_t count =
            std::min(static_cast<size_t>(std::max<qint64>(most, 0)), m_bytes.size() - m_offset);
        std::memcpy(to, m_bytes.data() + m_offset, count);
        m_offset += count;
        return static_cast<qint64>(count);
    }
    bool atEnd() const { return m_file ? m_file->atEnd() : m_offset == m_bytes.size(); }
    QString errorString() const { return m_file ? m_file->errorString() : QString(); }

private:
    std::unique_ptr<QFile> m_file;
    std::string_view m_bytes;
    size_t m_offset = 0;
};

// A filled window: buffer[0, filled) holds the bytes carried from the last window, then what was read.
struct Window
{
    std::unique_ptr<char[]> buffer; // capacity + padding bytes
    size_t capacity = 0;
    size_t filled = 0;
    bool atEnd = false;       // of its file
    bool lineTooLong = false; // buffer is full of one line longer than maxLineBytes
    bool cancelled = false;
    QString readError;
    size_t file = 0; // index of its file
};

// The ranges of one window between their parse and their merge.
struct ParsedWindow
{
    size_t ranges = 0;
    size_t firstSlot = 0;
    size_t file = 0;
    double done = 0;
    std::vector<char> completed;
    std::vector<qint64> firstLine; // of each range in its file
};

} // namespace

class WindowedReader
{
public:
    WindowedReader(const std::vector<WindowedInput>& inputs, const WindowedForm& form)
        : m_inputs(inputs), m_form(form)
    {
    }
    WindowedReadResult run();

private:
    bool cancelled() const { return m_form.cancel && m_form.cancel->load(std::memory_order_relaxed); }
    // Fills w after the `carried` bytes already at its start, growing it when they fill it (a
    // record longer than a window) up to maxLineBytes, until a line break was read or the file
    // ends. Stops early, with w.cancelled set, when the read is cancelled.
    void fill(Window& w, size_t carried);
    // Opens file `index` and fills w from its start.
    void startFile(Window& w, size_t index);
    // w is full of one line too long to hold: reads on to its end, reports it and fills w with
    // what follows.
    void skipLongLine(Window& w);
    // Parses the records data[begin, end) of a window on the workers into parsed.
    void parseWindow(const char* data, size_t begin, size_t end, size_t capacity, bool endsFile, size_t file,
                     ParsedWindow& parsed);
    // Hands the ranges of a window to the merge, up to the first incomplete one.
    void mergeWindow(const ParsedWindow& parsed) const;
    // The ranges a window of `bytes` is cut into: one on one thread; else a few per thread,
    // none much smaller than kMinBytesPerRange.
    size_t rangesOfWindow(size_t bytes) const;
    // Runs work(i) for every range i < ranges on the workers, each taking the next range not
    // taken yet: a thread that the machine gives less time to parses fewer ranges, instead of
    // making the others wait for its share at the end of every window.
    template <typename Work> void runRanges(size_t ranges, Work&& work);

    const std::vector<WindowedInput>& m_inputs;
    const WindowedForm& m_form;
    // Read by the read-ahead thread or the calling thread, never both at once.
    InputStream m_input;
    std::unique_ptr<ByteProgress> m_progress;
    std::unique_ptr<Workers> m_workers;
    size_t m_threads = 1;
    size_t m_rangesPerWindow = 1; // at most
    qint64 m_line = 1;            // of the start of the current window in its file
    WindowedReadResult m_result;
};

size_t WindowedReader::rangesOfWindow(size_t bytes) const
{
    if (m_rangesPerWindow == 1)
        return 1;
    const size_t threads = std::clamp<size_t>(rangesFor(bytes, m_form.threads), 1, m_threads);
    if (threads == 1)
        return 1;
    return std::clamp<size_t>(bytes / kMinBytesPerRange, threads, m_rangesPerWindow);
}

template <typename Work> void WindowedReader::runRanges(size_t ranges, Work&& work)
{
    std::atomic<size_t> next{0};
    m_workers->run([&](size_t) {
        for (size_t i = next++; i < ranges; i = next++)
            work(i);
    });
}

void WindowedReader::fill(Window& w, size_t carried)
{
    const size_t maxLine = m_form.maxLineBytes;
    for (;;) {
        if (carried == w.capacity) {
            // With a line limit records are lines and the carried bytes a partial one (what
            // follows the last line break), so a full buffer is one line.
            if (maxLine > 0 && carried > maxLine) {
                w.lineTooLong = true;
                w.filled = carried;
                return;
            }
            size_t larger = w.capacity * 2;
            if (maxLine > 0)
                larger = std::min(larger, maxLine + 1); // > capacity, as capacity <= maxLine here
            std::unique_ptr<char[]> grown(new char[larger + m_form.padding]);
            std::memcpy(grown.get(), w.buffer.get(), carried);
            w.buffer = std::move(grown);
            w.capacity = larger;
        }
        qint64 got = 0;
        const auto wanted = static_cast<qint64>(w.capacity - carried);
        while (got < wanted) {
            if (cancelled()) {
                w.cancelled = true;
                w.filled = carried + static_cast<size_t>(got);
                return;
            }
            const qint64 piece =
                m_input.read(w.buffer.get() + carried + got, std::min(wanted - got, kReadPieceBytes));
            if (piece < 0) {
                w.readError = m_input.errorString();
                return;
            }
            if (piece == 0)
                break;
            got += piece;
        }
        w.filled = carried + static_cast<size_t>(got);
        w.atEnd = got < wanted || m_input.atEnd();
        if (w.atEnd || std::memchr(w.buffer.get() + carried, '\n', static_cast<size_t>(got)))
            break;
        carried = w.filled; // no complete line yet
    }
    std::memset(w.buffer.get() + w.filled, 0, m_form.padding);
}

void WindowedReader::startFile(Window& w, size_t index)
{
    w.file = index;
    w.filled = 0;
    w.atEnd = true;
    w.lineTooLong = false;
    w.cancelled = false;
    w.readError.clear();
    if (!m_input.open(m_inputs[index])) {
        w.readError = m_input.errorString();
        return;
    }
    fill(w, 0);
    if (m_form.skipByteOrderMark && w.filled >= 3 && std::memcmp(w.buffer.get(), "\xEF\xBB\xBF", 3) == 0) {
        std::memmove(w.buffer.get(), w.buffer.get() + 3, w.filled - 3);
        w.filled -= 3;
        std::memset(w.buffer.get() + w.filled, 0, m_form.padding);
        m_progress->advance(3);
    }
}

void WindowedReader::skipLongLine(Window& w)
{
    auto bytes = static_cast<qint64>(w.filled);
    m_progress->advance(bytes);
    w.lineTooLong = false;
    for (;;) {
        if (cancelled()) {
            w.cancelled = true;
            return;
        }
        const qint64 got = m_input.read(w.buffer.get(), static_cast<qint64>(w.capacity));
        if (got < 0) {
            w.readError = m_input.errorString();
            return;
        }
        if (got == 0) { // the file ends inside the line
            if (m_form.longLine)
                m_form.longLine(w.file, m_line, bytes, true);
            ++m_line;
            ++m_result.lines;
            w.filled = 0;
            w.atEnd = true;
            std::memset(w.buffer.get(), 0, m_form.padding);
            return;
        }
        const void* found = std::memchr(w.buffer.get(), '\n', static_cast<size_t>(got));
        if (!found) {
            bytes += got;
            m_progress->advance(got);
            continue;
        }
        const auto length = static_cast<size_t>(static_cast<const char*>(found) - w.buffer.get());
        bytes += static_cast<qint64>(length);
        if (m_form.longLine)
            m_form.longLine(w.file, m_line, bytes, false);
        ++m_line;
        ++m_result.lines;
        m_progress->advance(static_cast<qint64>(length + 1));
        const size_t carried = static_cast<size_t>(got) - length - 1;
        std::memmove(w.buffer.get(), w.buffer.get() + length + 1, carried);
        // What follows the line is the next window: complete lines as they are (fill reads on
        // only after a partial one).
        if (m_input.atEnd() || std::memchr(w.buffer.get(), '\n', carried)) {
            w.filled = carried;
            w.atEnd = m_input.atEnd();
            std::memset(w.buffer.get() + w.filled, 0, m_form.padding);
            return;
        }
        fill(w, carried);
        return;
    }
}

void WindowedReader::parseWindow(const char* data, size_t begin, size_t end, size_t capacity, bool endsFile,
                                 size_t file, ParsedWindow& parsed)
{
    const size_t bytes = end - begin;
    const size_t ranges = rangesOfWindow(bytes);
    std::vector<size_t> bounds{begin}; // range i is [bounds[i], bounds[i + 1])
    for (size_t i = 1; i < ranges; ++i) {
        const size_t from = std::max(begin + bytes * i / ranges, bounds.back());
        if (m_form.nextBoundary) {
            bounds.push_back(m_form.nextBoundary(data, from, end));
        } else {
            const void* newline = from < end ? std::memchr(data + from, '\n', end - from) : nullptr;
            bounds.push_back(newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) + 1
                                     : end);
        }
    }
    bounds.push_back(end);

    parsed.ranges = ranges;
    parsed.file = file;
    parsed.completed.assign(ranges, 0);
    std::vector<qint64> lines(ranges, 0);
    const bool endsWithoutNewline = endsFile && end > begin && data[end - 1] != '\n';
    if (m_form.numberLinesFirst) {
        runRanges(ranges,
                  [&](size_t i) { lines[i] = countNewlines(data + bounds[i], data + bounds[i + 1]); });
        if (endsWithoutNewline)
            ++lines.back();
    }
    parsed.firstLine.assign(ranges, m_line);
    for (size_t i = 1; i < ranges; ++i)
        parsed.firstLine[i] = parsed.firstLine[i - 1] + lines[i - 1];

    runRanges(ranges, [&](size_t i) {
        size_t reported = bounds[i];
        WindowRange range;
        range.data = data;
        range.begin = bounds[i];
        range.end = bounds[i + 1];
        range.capacity = capacity;
        range.firstLine = m_form.numberLinesFirst ? parsed.firstLine[i] : 1;
        range.endsFile = endsFile && bounds[i + 1] == end;
        range.slot = parsed.firstSlot + i;
        range.file = file;
        range.m_proceed = [&](size_t position) {
            if (position >= reported + kWorkerStepBytes) {
                m_progress->advance(static_cast<qint64>(position - reported));
                reported = position;
            }
            return !cancelled();
        };
        qint64 read = 0;
        parsed.completed[i] = m_form.parse(range, &read) ? 1 : 0;
        if (!m_form.numberLinesFirst)
            lines[i] = read;
        if (parsed.completed[i] && bounds[i + 1] > reported)
            m_progress->advance(static_cast<qint64>(bounds[i + 1] - reported));
    });
    if (!m_form.numberLinesFirst) {
        for (size_t i = 1; i < ranges; ++i)
            parsed.firstLine[i] = parsed.firstLine[i - 1] + lines[i - 1];
    }
    const qint64 total = std::accumulate(lines.begin(), lines.end(), qint64{0});
    m_line += total;
    m_result.lines += total;
}

void WindowedReader::mergeWindow(const ParsedWindow& parsed) const
{
    if (!m_form.merge)
        return;
    for (size_t i = 0; i < parsed.ranges; ++i) {
        m_form.merge(WindowMerge{parsed.firstSlot + i, parsed.file, parsed.firstLine[i], i, parsed.ranges,
                                 parsed.completed[i] != 0, parsed.done});
        if (!parsed.completed[i])
            return; // later ranges would leave a hole in the file order
    }
}

WindowedReadResult WindowedReader::run()
{
    std::vector<size_t> sizes;
    bool allBytes = true;
    for (const WindowedInput& input : m_inputs) {
        allBytes = allBytes && input.bytes.has_value();
        sizes.push_back(input.bytes ? input.bytes->size()
                                    : static_cast<size_t>(std::max<qint64>(QFileInfo(input.name).size(), 0)));
    }
    const size_t totalBytes = std::accumulate(sizes.begin(), sizes.end(), size_t{0});
    m_result.bytes = static_cast<qint64>(totalBytes);
    m_progress = std::make_unique<ByteProgress>(m_form.progress, m_result.bytes);
    if (m_inputs.empty()) {
        m_progress->finish();
        return m_result;
    }
    // Bytes are one range in the calling thread (Workers(1) starts none).
    m_threads = allBytes ? 1 : std::max<size_t>(rangesFor(totalBytes, m_form.threads), 1);
    m_rangesPerWindow = m_threads == 1 ? 1 : m_threads * kRangesPerThread;
    if (m_form.prepare)
        m_form.prepare(2 * m_rangesPerWindow); // the windows parsed and merged at once take turns
    m_workers = std::make_unique<Workers>(m_threads);
    // Bytes are one window each: the largest input and the end of it.
    const size_t largest = *std::max_element(sizes.begin(), sizes.end()) + 1;
    const size_t perThread = m_form.windowBytesPerThread > 0 ? m_form.windowBytesPerThread
                                                             : windowBytesPerThreadFor(totalBytes, m_threads);
    const size_t window = std::max<size_t>(
        allBytes ? largest : std::min(largest, std::max<size_t>(perThread, 1) * m_threads), 4);
    const size_t padding = m_form.padding;
    const size_t maxLine = m_form.maxLineBytes;

    // The second buffer is made when a second window is needed: a file that fits one window
    // (or one record longer than a window) never holds two.
    Window current, next;
    current.capacity = window;
    current.buffer.reset(new char[window + padding]);
    startFile(current, 0);
    Background reader; // reads the next window while the current one is parsed
    Background merger; // merges the last window while the current one is parsed
    // The ranges of window k are parsed into parsed[k % 2] while parsed[(k - 1) % 2] merges.
    std::array<ParsedWindow, 2> parsed;
    parsed[1].firstSlot = m_rangesPerWindow;
    size_t lineFile = 0;  // the file m_line counts in
    size_t bytesDone = 0; // of all files, up to the end of the current window
    for (size_t k = 0;; ++k) {
        if (current.cancelled || cancelled()) {
            merger.wait();
            m_result.cancelled = true;
            return m_result;
        }
        if (current.file != lineFile) {
            lineFile = current.file;
            m_line = 1;
        }
        if (!current.readError.isEmpty()) {
            merger.wait();
            if (!m_form.readError || !m_form.readError(current.file, current.readError)) {
                m_result.error = current.readError;
                return m_result;
            }
            if (current.file + 1 == m_inputs.size())
                break;
            bytesDone = std::accumulate(sizes.begin(), sizes.begin() + static_cast<long>(current.file) + 1,
                                        size_t{0});
            startFile(current, current.file + 1);
            continue;
        }
        if (current.lineTooLong) {
            merger.wait(); // the long line follows every line merged so far
            skipLongLine(current);
            continue;
        }
        const char* data = current.buffer.get();
        const bool lastWindow = current.atEnd && current.file + 1 == m_inputs.size();
        size_t parseEnd = current.filled;
        if (m_form.recordsEnd) {
            parseEnd = m_form.recordsEnd(data, current.filled, current.atEnd);
        } else if (!current.atEnd) {
            const void* last = current.filled > 0 ? memrchr(data, '\n', current.filled) : nullptr;
            parseEnd = last ? static_cast<size_t>(static_cast<const char*>(last) - data) + 1 : 0;
        }
        if (parseEnd == 0 &&
            !current.atEnd) { // no complete record yet (a CSV quoted cell holds every line break)
            fill(current, current.filled);
            continue;
        }
        size_t start = 0;
        if (m_form.recordsStart) {
            const qint64 lineBefore = m_line;
            const std::optional<size_t> found = m_form.recordsStart(data, parseEnd, current.atEnd, &m_line);
            m_result.lines += m_line - lineBefore;
            if (!found) {
                merger.wait();
                break;
            }
            start = *found;
            m_progress->advance(static_cast<qint64>(start));
        }
        // The next window starts with the partial last record of this one, or the next file.
        const bool readAhead = !lastWindow;
        if (readAhead) {
            const size_t carried = current.atEnd ? 0 : current.filled - parseEnd;
            // A partial record of more than half a window is likely a long one: room for twice
            // it at once saves growing (copying) the buffer while it is filled.
            size_t wanted = carried * 2 > window ? std::max(window, carried) * 2 : window;
            if (maxLine > 0)
                wanted = std::max(carried + 1, std::min(wanted, std::max(window, maxLine + 1)));
            if (!next.buffer || wanted > next.capacity) {
                next.capacity = wanted;
                next.buffer.reset(new char[next.capacity + padding]);
            }
            if (current.atEnd) {
                reader.post([this, &next, file = current.file + 1] { startFile(next, file); });
            } else {
                std::memcpy(next.buffer.get(), data + parseEnd, carried);
                next.file = current.file;
                next.lineTooLong = false;
                reader.post([this, &next, carried] { fill(next, carried); });
            }
        }
        bytesDone += parseEnd;
        ParsedWindow& parsing = parsed[k % 2];
        parsing.done = lastWindow ? 1.0
                                  : static_cast<double>(bytesDone) /
                                        static_cast<double>(std::max(totalBytes, bytesDone));
        if (start < parseEnd) {
            parseWindow(data, start, parseEnd, current.capacity + padding, current.atEnd, current.file,
                        parsing);
        } else {
            parsing.ranges = 0; // nothing to parse, nothing to merge
        }
        if (readAhead)
            reader.wait();
        merger.wait();
        const bool complete = std::all_of(parsing.completed.begin(),
                                          parsing.completed.begin() + static_cast<long>(parsing.ranges),
                                          [](char c) { return c != 0; });
        if (lastWindow || !complete) {
            mergeWindow(parsing);
            if (!complete) {
                m_result.cancelled = true;
                return m_result;
            }
            break;
        }
        merger.post([this, &parsing] { mergeWindow(parsing); });
        std::swap(current, next);
    }
    merger.wait();
    m_progress->finish();
    return m_result;
}

WindowedReadResult readWindowed(const std::vector<WindowedInput>& inputs, const WindowedForm& form)
{
    return WindowedReader(inputs, form).run();
}

WindowedReadResult readWindowed(const std::vector<QString>& paths, const WindowedForm& form)
{
    std::vector<WindowedInput> inputs;
    inputs.reserve(paths.size());
    for (const QString& path : paths)
        inputs.push_back(WindowedInput{path, std::nullopt});
    return readWindowed(inputs, form);
}

WindowedReadResult readWindowed(const QString& path, const WindowedForm& form)
{
    return readWindowed(std::vector<QString>{path}, form);
}

} // namespace gapscope
