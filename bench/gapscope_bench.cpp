// Measures loading, memory, analysis and drawing on large inputs (see bench/run.sh).
//
//   gapscope_bench load  FORM PATH [THREADS]   parse a trace: MB/s, samples/s, resident bytes/sample
//   gapscope_bench load-figures PATH THREADS   the same, one line of numbers for bench/run.sh's
//                                              medians: seconds MB/s peak-B/event resident-B/event
//                                              peak-MB events cpu-seconds
//   gapscope_bench budget FORM PATH [THREADS]  parse a memory-budget log: MB/s, ticks/s
//   gapscope_bench threads RUNS PATH...        1 thread against 2 on each input (a trace or a
//                                              budget log), alternating, RUNS of each: medians of
//                                              wall and CPU seconds and the ratio 2 / 1
//   gapscope_bench chart PATH                  open to a drawn chart, analysis, window
//                                              re-analysis, chart redraw (offscreen grab())
//   gapscope_bench reopen PATH [RUNS]          the reopen cache: the first open (load, then the
//                                              entry written), then RUNS (default 5) second opens
//                                              from the entry to a drawn chart; medians, CPU time
//   gapscope_bench cancel PATH                 how soon a load returns after Cancel
//   gapscope_bench snapshot PATH               load a PyTorch memory snapshot (scripts/gen-snapshot.py
//                                              writes a big one): one line, seconds cpu entries
//                                              peak-MB resident-B/entry held-B/entry
//   gapscope_bench snapshot-phases PATH        the same, the pickle read and the build timed apart
//   gapscope_bench snapshot-sites PATH         the allocation sites of a loaded snapshot, by stack
//                                              and by function: medians of 5, seconds, sites
//   gapscope_bench job RUNS PATH...            open a distributed job (a job folder or per-rank
//                                              inputs; scripts/gen-job.py writes a big one): load
//                                              and every rank's analysis, medians of RUNS
//   gapscope_bench job-open PATH...            open a distributed job to a drawn heatmap, as the app
//                                              does (parallel load, the rank series, the heatmap's
//                                              first draw at 1600x800), then the cross-rank
//                                              analyses drawn over it; one run per process
//   gapscope_bench crossrank [RANKS] [SAMPLES] the two cross-rank analyses on a synthetic job held
//                                              in memory (default 64 ranks x 100 000 samples)
//   gapscope_bench crossrank-trace PATH        the events of a loaded trace's default session
//                                              built and both analyses run (what analyze adds)
//   gapscope_bench heatmap [RANKS] [SAMPLES]   the job heatmap (64 x 100 000 by default): build of
//                                              the rank series, repaint, redraw of every cell, pan
//
// One measurement per process, so resident memory starts from the same baseline each time.
// Memory: VmRSS/VmHWM of /proc/self/status; the peak is reset (clear_refs 5) before loading.

#include "model/budget/BudgetAnalysisRunner.h"
#include "model/budget/BudgetLoader.h"
#include "model/cache/TraceCache.h"
#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobFindings.h"
#include "model/job/JobRanks.h"
#include "model/job/JobViewData.h"
#include "model/snapshot/PickleReader.h"
#include "model/snapshot/SnapshotBuilder.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/snapshot/SnapshotSites.h"
#include "model/store/Decimation.h"
#include "model/trace/AnalysisRunner.h"
#include "model/trace/TraceLoader.h"
#include "model/work/LoadJob.h"
#include "tests/SyntheticJob.h"
#include "widgets/job/JobHeatmapView.h"
#include "widgets/trace/GapChartView.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPixmap>
#include <QTemporaryDir>
#include <QThread>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace gapscope;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// kB value of a /proc/self/status line ("VmRSS:", "VmHWM:").
long long statusKb(const char* key)
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind(key, 0) == 0)
            return std::stoll(line.substr(std::string(key).size()));
    }
    return -1;
}

void resetPeak()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

qint64 inputBytes(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return info.size();
    qint64 bytes = 0;
    for (const QFileInfo& entry : QDir(path).entryInfoList(QDir::Files))
        bytes += entry.size();
    return bytes;
}

// CPU seconds of the process so far (all threads, user + system): on a machine shared with
// other work the wall time says little, the CPU time says what the work cost.
double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

// One trace load with its wall and CPU time and its memory over the baseline before it.
struct MeasuredLoad
{
    LoadOutcome outcome;
    double seconds = 0;
    double cpu = 0;
    long long residentKb = 0; // VmRSS after the load (the trace still held)
    long long peakKb = 0;     // VmHWM during it
};

MeasuredLoad measureLoad(const QString& path, int threads)
{
    const long long baselineKb = statusKb("VmRSS:");
    resetPeak();
    LoadControl control;
    control.threads = threads;
    MeasuredLoad load;
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    load.outcome = loadTrace(path, control);
    load.seconds = secondsSince(start);
    load.cpu = cpuSeconds() - cpuStart;
    load.residentKb = statusKb("VmRSS:") - baselineKb;
    load.peakKb = statusKb("VmHWM:") - baselineKb;
    if (!load.outcome.data)
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(load.outcome.fatalError));
    return load;
}

// Where the store's bytes go, per sample: each column, the strings, the origins, the sources.
void printStoreBreakdown(const EventStore& store)
{
    const double samples = double(std::max<size_t>(store.size(), 1));
    std::string line = "  store B/sample:";
    size_t index = 0;
    EventStore::forEachColumnOf(
        [&](const auto& column) {
            line += ' ' + std::string(EventStore::kColumnNames[index++]) + ' ' +
                    QString::number(double(column.memoryBytes()) / samples, 'f', 2).toStdString();
        },
        store);
    const EventStore::MemoryUse use = store.memoryUse();
    for (const auto& [name, bytes] : {std::pair<const char*, size_t>{"| columns", use.columns},
                                      {"strings", use.strings},
                                      {"origins", use.origins},
                                      {"sources", use.sources}})
        line +=
            std::string(" ") + name + ' ' + QString::number(double(bytes) / samples, 'f', 2).toStdString();
    std::printf("%s\n", line.c_str());
}

int benchLoad(const QString& form, const QString& path, int threads)
{
    const MeasuredLoad load = measureLoad(path, threads);
    if (!load.outcome.data)
        return 1;
    const double seconds = load.seconds;
    const double cpu = load.cpu;
    const double samples = double(load.outcome.data->store.size());
    const double megabytes = double(inputBytes(path)) / 1e6;
    std::printf(
        "%-12s %8.0f MB %10.0f samples %7.2f s %8.1f MB/s %12.0f samples/s (cpu %6.2f s, %6.1f MB per "
        "cpu-s)  resident %6.1f B/sample (peak %6.1f, store columns %6.1f)\n",
        qPrintable(form), megabytes, samples, seconds, megabytes / seconds, samples / seconds, cpu,
        megabytes / cpu, double(load.residentKb) * 1024 / samples, double(load.peakKb) * 1024 / samples,
        double(load.outcome.data->store.memoryBytes()) / samples);
    printStoreBreakdown(load.outcome.data->store);
    return 0;
}

int benchLoadFigures(const QString& path, int threads)
{
    const MeasuredLoad load = measureLoad(path, threads);
    if (!load.outcome.data)
        return 1;
    const double events = double(load.outcome.data->store.size());
    const double peakBytes = double(load.peakKb) * 1024;
    std::printf("%.4f %.1f %.1f %.1f %.1f %.0f %.4f\n", load.seconds,
                double(inputBytes(path)) / 1e6 / load.seconds, peakBytes / events,
                double(load.residentKb) * 1024 / events, peakBytes / 1e6, events, load.cpu);
    return 0;
}

// Whether the file at path is a memory-budget log rather than a trace (as the app tells them).
bool isBudgetLog(const QString& path)
{
    return recognizeInput(path).kind == InputKind::BudgetLog;
}

// Wall and CPU seconds of one load of path (trace or budget log) on `threads`.
std::pair<double, double> timeLoad(const QString& path, bool budget, int threads)
{
    LoadControl control;
    control.threads = threads;
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    const bool loaded =
        budget ? loadBudgetLog(path, control).data != nullptr : loadTrace(path, control).data != nullptr;
    if (!loaded)
        std::fprintf(stderr, "%s: not loaded\n", qPrintable(path));
    return {secondsSince(start), cpuSeconds() - cpuStart};
}

// Two threads against one, the loads alternating (1, 2, 1, 2, ...) so that the machine's other
// work touches both alike; one line per input with the medians. All in this process: the
// memory figures of load/load-figures are not measured here.
int benchThreads(int runs, const QStringList& paths)
{
    std::printf("%-40s %8s %8s %8s %8s %8s %7s %7s\n", "input", "MB", "1 thr s", "2 thr s", "1 cpu-s",
                "2 cpu-s", "wall 2/1", "MB/s 2");
    for (const QString& path : paths) {
        const bool budget = isBudgetLog(path);
        const double megabytes = double(inputBytes(path)) / 1e6;
        std::vector<double> wall[2], cpu[2];
        timeLoad(path, budget, 2); // the page cache and the allocator warmed alike for both
        for (int run = 0; run < runs; ++run) {
            for (int threads = 1; threads <= 2; ++threads) {
                const auto [seconds, cpuUsed] = timeLoad(path, budget, threads);
                wall[threads - 1].push_back(seconds);
                cpu[threads - 1].push_back(cpuUsed);
            }
        }
        const double one = median(wall[0]), two = median(wall[1]);
        std::printf("%-40s %8.0f %8.3f %8.3f %8.3f %8.3f %7.2f%s %7.0f\n",
                    qPrintable(QFileInfo(path).fileName()), megabytes, one, two, median(cpu[0]),
                    median(cpu[1]), two / one, two > one ? "!" : " ", megabytes / two);
        std::fflush(stdout);
    }
    return 0;
}

int benchBudget(const QString& form, const QString& path, int threads)
{
    LoadControl control;
    control.threads = threads;
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    const BudgetLoadOutcome outcome = loadBudgetLog(path, control);
    const double seconds = secondsSince(start);
    const double cpu = cpuSeconds() - cpuStart;
    if (!outcome.data) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(outcome.fatalError));
        return 1;
    }
    const double megabytes = double(QFileInfo(path).size()) / 1e6;
    const double lines = double(outcome.data->linesRead);
    std::printf("%-12s %8.0f MB %10.0f lines   %7.2f s %8.1f MB/s %12.0f lines/s (cpu %6.2f s)\n",
                qPrintable(form), megabytes, lines, seconds, megabytes / seconds, lines / seconds, cpu);
    std::vector<double> analysisTimes;
    for (int i = 0; i < 3; ++i) {
        const auto analysisStart = Clock::now();
        runBudgetAnalysis(outcome.data, BudgetThresholds{});
        analysisTimes.push_back(secondsSince(analysisStart));
    }
    std::printf("%-12s budget analysis of %zu ticks: %.3f s (median of 3)\n", qPrintable(form),
                outcome.data->ticks.size(), median(analysisTimes));
    return 0;
}

int benchChart(const QString& path)
{
    // Open: load, analyse, first drawn chart.
    const auto openStart = Clock::now();
    const LoadOutcome outcome = loadTrace(path);
    if (!outcome.data) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(outcome.fatalError));
        return 1;
    }
    const double loadSeconds = secondsSince(openStart);
    const auto analysisStart = Clock::now();
    QString error;
    const auto result = runAnalysis(outcome.data, AnalysisRequest{}, &error);
    if (!result) {
        std::fprintf(stderr, "analysis: %s\n", qPrintable(error));
        return 1;
    }
    const double analysisSeconds = secondsSince(analysisStart);
    GapChartView view;
    view.resize(1600, 800);
    const auto drawStart = Clock::now();
    view.setAnalysis(result);
    const QPixmap first = view.grab();
    const double firstDrawSeconds = secondsSince(drawStart);
    const double openSeconds = secondsSince(openStart);
    const size_t samples = result->usableRows.size();
    std::printf("open %s (%zu samples): %.2f s to a drawn chart (load %.2f s, analysis %.3f s, first draw "
                "%.3f s)\n",
                qPrintable(QFileInfo(path).fileName()), samples, openSeconds, loadSeconds, analysisSeconds,
                firstDrawSeconds);

    // Level-of-detail pyramid of one series (the chart builds five, the scrubber one).
    {
        const EventStore& store = outcome.data->store;
        std::vector<double> lodTimes;
        size_t lodBytes = 0;
        for (int i = 0; i < 3; ++i) {
            const auto start = Clock::now();
            const MinMaxPyramid pyramid(std::span<const uint32_t>(result->usableRows),
                                        GapValue(store.used, store.reserved)); // as the chart builds it
            lodTimes.push_back(secondsSince(start));
            lodBytes = pyramid.memoryBytes();
        }
        std::printf("LOD pyramid build: %.3f s per series (median of 3), %.1f MB\n", median(lodTimes),
                    double(lodBytes) / 1e6);
    }

    // Window re-analysis: the middle half of the session.
    const int64_t begin = outcome.data->store.timestampNs[result->partition.begin];
    const int64_t end = outcome.data->store.timestampNs[result->partition.end - 1];
    AnalysisRequest windowRequest;
    windowRequest.window = TimeWindow{begin + (end - begin) / 4, end - (end - begin) / 4};
    std::vector<double> windowTimes, fullTimes;
    for (int i = 0; i < 5; ++i) {
        auto start = Clock::now();
        runAnalysis(outcome.data, windowRequest);
        windowTimes.push_back(secondsSince(start));
        start = Clock::now();
        runAnalysis(outcome.data, AnalysisRequest{});
        fullTimes.push_back(secondsSince(start));
    }
    std::printf("analysis: full %.3f s, window (half) re-analysis %.3f s (medians of 5)\n", median(fullTimes),
                median(windowTimes));

    // Redraw: repaint of an unchanged view, and redraw after a pan (new visible range).
    std::vector<double> repaint, pan, panRange;
    for (int i = 0; i < 15; ++i) {
        auto start = Clock::now();
        view.grab();
        repaint.push_back(secondsSince(start) * 1e3);
        const int64_t width = (end - begin) / 3;
        const int64_t from = begin + (end - begin - width) * (i % 5) / 4;
        start = Clock::now();
        view.setVisibleRange(from, from + width);
        panRange.push_back(secondsSince(start) * 1e3);
        view.grab();
        pan.push_back(secondsSince(start) * 1e3);
    }
    std::printf("chart redraw at %zu samples (1600x800 offscreen grab, median of 15): repaint %.1f ms, pan "
                "%.1f ms\n",
                samples, median(repaint), median(pan));
    std::printf("  of the pan: new visible range (decimation, axes, layout) %.1f ms, the rest is the grab\n",
                median(panRange));
    return first.isNull() ? 1 : 0;
}

// The reopen cache on PATH: the first open reads the input and writes the entry (in a folder
// of its own, removed at the end, or in $GAPSCOPE_BENCH_CACHE_DIR, kept: a second run there
// finds the entry and measures the second opens only); each second open reads the entry,
// analyses and draws the chart at 1600x800, as the app does.
int benchReopen(const QString& path, int runs)
{
    QTemporaryDir folder;
    TraceCacheSettings settings;
    settings.folder = qEnvironmentVariableIsEmpty("GAPSCOPE_BENCH_CACHE_DIR")
                          ? folder.path()
                          : qEnvironmentVariable("GAPSCOPE_BENCH_CACHE_DIR");
    settings.minInputBytes = 0;
    const TraceCache cache(settings);
    auto start = Clock::now();
    double cpuStart = cpuSeconds();
    DocumentOutcome first = loadDocument(path, {}, &cache);
    if (!first.trace) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(first.failure()));
        return 1;
    }
    const double loadSeconds = secondsSince(start);
    start = Clock::now();
    cpuStart = cpuSeconds();
    QString error;
    if (!first.fromCache && !keepInCache(first, cache, nullptr, &error)) {
        std::fprintf(stderr, "the entry was not written: %s\n", qPrintable(error));
        return 1;
    }
    const double writeSeconds = secondsSince(start);
    const double writeCpu = cpuSeconds() - cpuStart;
    const size_t samples = first.trace->store.size();
    const qint64 entryBytes = cache.totalBytes();
    first = {};
    std::printf("first open of %s (%zu samples): load %.2f s; entry written in %.2f s (cpu %.2f s), %.1f MB "
                "(%.1f B/sample)\n",
                qPrintable(QFileInfo(path).fileName()), samples, loadSeconds, writeSeconds, writeCpu,
                double(entryBytes) / 1e6, double(entryBytes) / double(samples));

    std::vector<double> total, cpu, read, readCpu, analysis, analysisCpu, draw;
    for (int run = 0; run < runs; ++run) {
        const auto openStart = Clock::now();
        const double openCpu = cpuSeconds();
        const DocumentOutcome second = loadDocument(path, {}, &cache);
        if (!second.fromCache) {
            std::fprintf(stderr, "the second open did not read the entry\n");
            return 1;
        }
        read.push_back(secondsSince(openStart));
        readCpu.push_back(cpuSeconds() - openCpu);
        const auto analysisStart = Clock::now();
        const double analysisCpuStart = cpuSeconds();
        const auto result = runAnalysis(second.trace, AnalysisRequest{});
        if (!result)
            return 1;
        analysis.push_back(secondsSince(analysisStart));
        analysisCpu.push_back(cpuSeconds() - analysisCpuStart);
        const auto drawStart = Clock::now();
        GapChartView view;
        view.resize(1600, 800);
        view.setAnalysis(result);
        const QPixmap picture = view.grab();
        draw.push_back(secondsSince(drawStart));
        total.push_back(secondsSince(openStart));
        cpu.push_back(cpuSeconds() - openCpu);
        if (picture.isNull())
            return 1;
    }
    std::printf(
        "second open to a drawn chart (median of %d): %.3f s, cpu %.3f s (entry read %.3f s, cpu %.3f s; "
        "analysis %.3f s, cpu %.3f s; first draw %.3f s); fastest %.3f s\n",
        runs, median(total), median(cpu), median(read), median(readCpu), median(analysis),
        median(analysisCpu), median(draw), *std::min_element(total.begin(), total.end()));
    return 0;
}

// Cancel latency: loads PATH (a trace or a budget log, as the app does) on a thread of its own, sets the
// cancel flag after a few delays into the load and measures how long loadTrace takes to return after it.
// A PyTorch memory snapshot (model/snapshot): one load per process, as the other loads. One line
// of numbers for bench/run.sh's medians: seconds, cpu-seconds, entries, peak-MB (VmHWM over the
// baseline: the mapped file, the arena and the columns at once), resident-B/entry (VmRSS over the
// baseline with the snapshot held, the arena freed), held-B/entry (what SnapshotData holds),
// and, with phases, the seconds of the pickle's reading and of the build from the arena.
int benchSnapshot(const QString& path, bool phases)
{
    const long long baselineKb = statusKb("VmRSS:");
    resetPeak();
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    double readSeconds = 0, buildSeconds = 0;
    std::shared_ptr<const SnapshotData> data;
    if (phases) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return 1;
        const uchar* mapped = file.map(0, file.size());
        const std::string_view bytes(reinterpret_cast<const char*>(mapped), size_t(file.size()));
        PickleReadOutcome read = readPickle(bytes);
        readSeconds = secondsSince(start);
        if (read.arena)
            std::fprintf(stderr, "arena: %zu values, %zu child ids, %.1f MB held\n", read.arena->valueCount(),
                         read.arena->childCount(), double(read.arena->heldBytes()) / 1e6);
        if (!read.arena) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(path), read.error.reason.c_str());
            return 1;
        }
        const auto buildStart = Clock::now();
        SnapshotBuildOutcome built = buildSnapshot(*read.arena, path);
        buildSeconds = secondsSince(buildStart);
        read.arena.reset();
        data = std::move(built.data);
    } else {
        const SnapshotLoadOutcome outcome = loadSnapshotFile(path);
        if (!outcome.data) {
            std::fprintf(stderr, "%s\n", qPrintable(outcome.fatalError));
            return 1;
        }
        data = outcome.data;
    }
    const double seconds = secondsSince(start);
    const double cpu = cpuSeconds() - cpuStart;
    const double entries = double(std::max<size_t>(data->traceEntryCount(), 1));
    const long long residentKb = statusKb("VmRSS:") - baselineKb;
    std::printf("%.3f %.3f %zu %.1f %.1f %.1f", seconds, cpu, data->traceEntryCount(),
                double(statusKb("VmHWM:") - baselineKb) / 1024, double(residentKb) * 1024 / entries,
                double(data->heldBytes()) / entries);
    if (phases)
        std::printf(" %.3f %.3f", readSeconds, buildSeconds);
    std::printf("\n");
    return 0;
}

// The allocation sites (model/snapshot/SnapshotSites) of a loaded snapshot, on its timelines as
// the page builds them: what the page pays on the GUI thread when it opens or regroups.
int benchSnapshotSites(const QString& path)
{
    const SnapshotLoadOutcome outcome = loadSnapshotFile(path);
    if (!outcome.data) {
        std::fprintf(stderr, "%s\n", qPrintable(outcome.fatalError));
        return 1;
    }
    for (const SiteGrouping grouping : {SiteGrouping::Stack, SiteGrouping::Function}) {
        std::vector<double> seconds;
        size_t sites = 0;
        for (int run = 0; run < 5; ++run) {
            const auto start = Clock::now();
            sites = buildSnapshotSites(*outcome.data, grouping).sites.size();
            seconds.push_back(secondsSince(start));
        }
        std::sort(seconds.begin(), seconds.end());
        std::printf("%s: %.4f s, %zu sites, %zu entries\n",
                    grouping == SiteGrouping::Stack ? "by stack" : "by function", seconds[2], sites,
                    outcome.data->traceEntryCount());
    }
    return 0;
}

int benchCancel(const QString& path)
{
    std::vector<double> latencies;
    for (int delayMs : {300, 900, 1700, 2600}) {
        std::atomic<bool> cancel{false};
        LoadControl control;
        control.cancel = &cancel;
        Clock::time_point returned;
        bool cancelled = false;
        std::thread loader([&] {
            cancelled = loadDocument(path, control).cancelled;
            returned = Clock::now();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        const auto requested = Clock::now();
        cancel = true;
        loader.join();
        if (!cancelled) {
            std::printf("cancel after %d ms: the load had already finished\n", delayMs);
            continue;
        }
        latencies.push_back(std::chrono::duration<double>(returned - requested).count() * 1e3);
        std::printf("cancel after %d ms: the load returned %.1f ms after the request\n", delayMs,
                    latencies.back());
    }
    if (latencies.empty())
        return 1;
    std::printf("cancel latency: max %.1f ms over %zu loads\n",
                *std::max_element(latencies.begin(), latencies.end()), latencies.size());
    return 0;
}

// Opens a job RUNS times: discovery and the parallel load of every input, then every rank's gap
// analysis; medians of wall and CPU time, and the job's size.
int benchJob(int runs, const QStringList& paths)
{
    std::vector<double> loadTimes, loadCpu, analysisTimes, crossRankTimes;
    std::shared_ptr<const JobData> job;
    qint64 bytes = 0;
    for (int i = 0; i < std::max(runs, 1); ++i) {
        job.reset(); // the previous job's memory is given back before the next load
        const long long baselineKb = statusKb("VmRSS:");
        resetPeak();
        qint64 total = 0;
        LoadControl control;
        control.progress = [&total](qint64, qint64 all) { total = all; };
        const auto start = Clock::now();
        const double cpuStart = cpuSeconds();
        JobOutcome outcome = loadJob(paths, control);
        loadTimes.push_back(secondsSince(start));
        loadCpu.push_back(cpuSeconds() - cpuStart);
        if (!outcome.job) {
            std::fprintf(stderr, "%s\n", qPrintable(outcome.fatalError));
            return 1;
        }
        job = std::move(outcome.job);
        bytes = total;
        const auto analysisStart = Clock::now();
        const auto results = analyzeJobRanks(*job);
        analysisTimes.push_back(secondsSince(analysisStart));
        const auto crossRankStart = Clock::now();
        const auto crossRank = analyzeJob(*job);
        crossRankTimes.push_back(secondsSince(crossRankStart));
        std::printf(
            "run %d: load %.3f s (cpu %.3f s), analysis of every rank %.3f s, cross-rank analyses %.3f s, "
            "resident %.0f MB (peak %.0f MB)\n",
            i + 1, loadTimes.back(), loadCpu.back(), analysisTimes.back(), crossRankTimes.back(),
            double(statusKb("VmRSS:") - baselineKb) / 1024, double(statusKb("VmHWM:") - baselineKb) / 1024);
    }
    size_t samples = 0;
    size_t present = 0;
    for (const JobRank& rank : job->ranks) {
        samples += rank.sampleCount;
        present += rank.present ? 1 : 0;
    }
    const double megabytes = double(bytes) / 1e6;
    const double load = median(loadTimes);
    std::printf(
        "job of %zu inputs, %zu ranks, %zu samples, %.0f MB: load %.3f s (%.1f MB/s, %.0f samples/s; cpu "
        "%.3f s), analysis of every rank %.3f s, cross-rank analyses %.3f s (medians of %zu runs, %d "
        "threads)\n",
        job->inputs.size(), present, samples, megabytes, load, megabytes / load, double(samples) / load,
        median(loadCpu), median(analysisTimes), median(crossRankTimes), loadTimes.size(),
        QThread::idealThreadCount());
    return 0;
}

// Opens a job to a drawn heatmap once, the steps the app takes (LoadJob: loadJob on a worker;
// JobPage::setJob: the rank series on the GUI thread; the heatmap's first paint), then the
// cross-rank analyses the app runs in the background afterwards, drawn over the heatmap.
int benchJobOpen(const QStringList& paths)
{
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    JobOutcome outcome = loadJob(paths);
    const double load = secondsSince(start);
    if (!outcome.job) {
        std::fprintf(stderr, "%s\n", qPrintable(outcome.fatalError));
        return 1;
    }
    auto step = Clock::now();
    const std::shared_ptr<const JobViewData> series = buildJobViewData(outcome.job);
    const double build = secondsSince(step);
    step = Clock::now();
    JobHeatmapView view;
    view.resize(1600, 800);
    view.setJob(series);
    const QPixmap drawn = view.grab();
    const double firstDraw = secondsSince(step);
    const double open = secondsSince(start);
    const double openCpu = cpuSeconds() - cpuStart;
    step = Clock::now();
    const std::shared_ptr<const JobFindings> findings =
        buildJobFindings(analyzeJob(*outcome.job), outcome.job.get());
    const double analyses = secondsSince(step);
    step = Clock::now();
    view.setCollectiveIntervals(findings->intervals);
    view.setCrossRankSummary(findings->summary);
    const QPixmap withAnalyses = view.grab();
    const double redraw = secondsSince(step);
    size_t samples = 0;
    for (const JobRank& rank : outcome.job->ranks)
        samples += rank.sampleCount;
    std::printf(
        "job-open of %zu inputs, %zu ranks, %zu samples: drawn heatmap after %.3f s (cpu %.3f s; load "
        "%.3f s, rank series %.3f s, first draw %.3f s); with the cross-rank analyses after %.3f s "
        "(analyses and findings %.3f s, %zu intervals, redraw %.3f s); resident %.0f MB, peak %.0f MB\n",
        outcome.job->inputs.size(), outcome.job->ranks.size(), samples, open, openCpu, load, build, firstDraw,
        secondsSince(start), analyses, findings->intervals.size(), redraw, double(statusKb("VmRSS:")) / 1024,
        double(statusKb("VmHWM:")) / 1024);
    return drawn.isNull() || withAnalyses.isNull() ? 1 : 0;
}

// The median of five runs of f, in seconds.
template <typename F> double medianOfFive(F&& f)
{
    std::vector<double> seconds;
    for (int run = 0; run < 5; ++run) {
        const auto start = Clock::now();
        f();
        seconds.push_back(secondsSince(start));
    }
    return median(seconds);
}

// A job of `ranks` x `samples` samples at 100 ms as a merged trace holds it (ranks interleaved,
// small start skews), gaps with noise, and every 500 samples a 6 GiB burst on every rank beside
// a collective marker; phases: a step span per 100 samples and an all_reduce span per burst.
int benchCrossRank(int ranks, int samples)
{
    constexpr int64_t kGiB = 1LL << 30;
    constexpr int64_t kStepNs = 100'000'000;
    constexpr int64_t kStart = 1'796'000'000'000'000'000;
    const long long baselineKb = statusKb("VmRSS:");
    std::mt19937_64 random(42);
    JobEvents events;
    events.reserve(size_t(ranks) * size_t(samples + samples / 500));
    std::vector<int64_t> skew(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        JobEventSource source;
        source.rank = r;
        source.worldSize = ranks;
        source.pid = 5000 + r;
        source.host = "gpu-node-" + std::to_string(r / 8);
        source.jobId = "job-bench";
        source.sessionId = "session-bench";
        source.hasSessionId = true;
        source.samplingIntervalMs = 100;
        events.sources.push_back(source);
        skew[size_t(r)] = int64_t(random() % 3) * 1'000'000;
    }
    constexpr uint8_t kSample = kSampleByStripLower | kSampleByCasefold | kCountersRecorded;
    for (int i = 0; i < samples; ++i) {
        const bool burst = i % 500 == 250;
        for (int r = 0; r < ranks; ++r) {
            const int64_t ts = kStart + int64_t(i) * kStepNs + skew[size_t(r)];
            if (burst)
                events.append(ts - 10'000'000, 0, 0, 80 * kGiB, uint32_t(r),
                              kCollectiveMarker | kCountersRecorded);
            const int64_t reserved = 20 * kGiB + int64_t(random() % uint64_t(kGiB));
            const int64_t gap = burst ? 6 * kGiB : int64_t(random() % uint64_t(kGiB / 2)) - kGiB / 8;
            events.append(ts, std::max<int64_t>(0, reserved + gap), reserved, 80 * kGiB, uint32_t(r),
                          kSample);
        }
    }
    std::vector<PhaseSpanIndex> indexes;
    for (int r = 0; r < ranks; ++r) {
        std::vector<PhaseSpan> spans;
        for (int i = 0; i < samples; i += 100) {
            PhaseSpan step;
            step.sessionId = "session-bench";
            step.rank = r;
            step.scopeId = "step:" + std::to_string(i);
            step.path = {"train", "step"};
            step.threadId = 1;
            step.threadName = "MainThread";
            step.sequence = i;
            step.startNs = kStart + int64_t(i) * kStepNs;
            step.endNs = step.startNs + 100 * kStepNs - 1;
            spans.push_back(step);
            if (i % 500 == 200) {
                PhaseSpan reduce = step;
                reduce.scopeId = "reduce:" + std::to_string(i);
                reduce.path = {"train", "step", "all_reduce"};
                reduce.sequence = i + 1;
                reduce.startNs = kStart + int64_t(i + 50) * kStepNs - 20'000'000;
                reduce.endNs = reduce.startNs + 40'000'000;
                spans.push_back(reduce);
            }
        }
        indexes.emplace_back(std::move(spans));
    }
    const PhaseResolver phases = [&](int64_t ts, uint32_t source) { return indexes[source].attribute(ts); };
    const double eventBytes = double((statusKb("VmRSS:") - baselineKb) * 1024) / double(events.size());

    size_t collectiveCount = 0, suspects = 0;
    const double collective =
        medianOfFive([&] { collectiveCount = attributeCollectiveMemory(events, {}, phases).size(); });
    const double crossRank =
        medianOfFive([&] { suspects = summarizeCrossRankAnalysis(events, phases).suspects.size(); });
    const double both = medianOfFive([&] { analyzeJobEvents(events, phases); });
    std::printf("crossrank %d ranks x %d samples: %zu events (%.1f B/event resident)\n", ranks, samples,
                events.size(), eventBytes);
    std::printf("  collective attribution  %7.3f s  (%zu results)\n", collective, collectiveCount);
    std::printf("  cross-rank analysis     %7.3f s  (%zu suspects)\n", crossRank, suspects);
    std::printf("  both (side by side)     %7.3f s  median of 5\n", both);
    return 0;
}

int benchCrossRankTrace(const QString& path)
{
    const LoadOutcome outcome = loadTrace(path);
    if (!outcome.data || !outcome.data->defaultSessionIndex()) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(outcome.fatalError));
        return 1;
    }
    const TraceData& trace = *outcome.data;
    const size_t session = *trace.defaultSessionIndex();
    size_t events = 0;
    const double build = medianOfFive([&] { events = buildJobEvents(trace, session).events.size(); });
    const double all = medianOfFive([&] { analyzeTraceSession(trace, session); });
    std::printf("crossrank-trace %s: %zu events; build %.3f s, build + both analyses %.3f s (median of 5)\n",
                qPrintable(QFileInfo(path).fileName()), events, build, all);
    return 0;
}

// The job heatmap at RANKS x SAMPLES (100 ms sampling): a gap that wanders around 1.5 GiB with
// a spike every few thousand samples, at a different place on every rank.
int benchHeatmap(int ranks, int samples)
{
    std::vector<std::vector<int64_t>> gaps(static_cast<size_t>(ranks));
    std::mt19937_64 random(15);
    for (auto& gap : gaps) {
        gap.resize(size_t(samples));
        int64_t level = int64_t(3) << 29;
        for (int64_t& value : gap) {
            level =
                std::clamp<int64_t>(level + int64_t(random() % 2'000'001) - 1'000'000, 0, int64_t(4) << 30);
            value = random() % 4000 == 0 ? level + (int64_t(6) << 30) : level;
        }
    }
    auto start = Clock::now();
    const auto job = test::syntheticJob(ranks, samples, 100'000'000,
                                        [&](int r, int i) { return gaps[size_t(r)][size_t(i)]; });
    std::printf("heatmap of %d ranks x %d samples: store columns and rank series made in %.3f s\n", ranks,
                samples, secondsSince(start));
    // what buildJobViewData adds to a load: each rank's hold limit, pyramids and table figures
    std::vector<double> finishTimes;
    for (int i = 0; i < 3; ++i) {
        std::vector<RankSeries> copies = job->ranks;
        start = Clock::now();
        for (RankSeries& series : copies)
            finishRankSeries(series);
        finishTimes.push_back(secondsSince(start));
    }
    std::printf(
        "  rank series finished (hold limits, four pyramids each, table figures): %.3f s (median of 3)\n",
        median(finishTimes));
    // what the cross-rank analyses add: clocks a few ms apart, a suspect, five intervals a rank
    JobCrossRankSummary summary;
    summary.worldSize = ranks;
    const int64_t firstNs = job->ranks.front().timeAt(0);
    const int64_t span = int64_t(samples) * 100'000'000;
    std::vector<JobCollectiveInterval> intervals;
    for (int r = 0; r < ranks; ++r) {
        summary.alignmentOffsetsNs[r] = int64_t(random() % 7) * 1'000'000 - 3'000'000;
        for (int k = 1; k <= 5; ++k) {
            JobCollectiveInterval interval;
            interval.rank = r;
            interval.startNs = firstNs + span * k / 6;
            interval.endNs = interval.startNs + span / 50;
            interval.classification = CollectiveClass(k % 3);
            intervals.push_back(interval);
        }
    }
    summary.clusterOnsetNs = firstNs + span / 6;
    JobFirstCauseSuspect suspect;
    suspect.rank = ranks / 2;
    suspect.firstSpikeNs = suspect.alignedFirstSpikeNs = firstNs + span / 7;
    suspect.leadOverClusterOnsetNs = span / 6 - span / 7;
    suspect.confidence = SuspectConfidence::High;
    summary.firstCauseSuspects.push_back(suspect);
    JobHeatmapView view;
    view.resize(1600, 800);
    start = Clock::now();
    view.setJob(job);
    view.setCrossRankSummary(summary);
    view.setCollectiveIntervals(intervals);
    QPixmap first = view.grab();
    std::printf("  first draw %.1f ms (%d plot columns x %d pixel rows)\n", secondsSince(start) * 1e3,
                view.plotRect().width(), view.plotRect().height());
    std::vector<double> repaint, redraw, redrawCells, pan, panCells;
    const int64_t begin = view.visibleBeginNs();
    const int64_t end = view.visibleEndNs();
    for (int i = 0; i < 15; ++i) {
        start = Clock::now();
        view.grab();
        repaint.push_back(secondsSince(start) * 1e3);
        // every cell again: the other measure, the whole range
        start = Clock::now();
        view.setMeasure(i % 2 == 0 ? JobMeasure::GapRatio : JobMeasure::Gap);
        view.rebuildCache();
        redrawCells.push_back(secondsSince(start) * 1e3);
        view.grab();
        redraw.push_back(secondsSince(start) * 1e3);
        // a pan of a third of the run
        const int64_t width = (end - begin) / 3;
        const int64_t from = begin + (end - begin - width) * (i % 5) / 4;
        start = Clock::now();
        view.setVisibleRange(from, from + width);
        view.rebuildCache();
        panCells.push_back(secondsSince(start) * 1e3);
        view.grab();
        pan.push_back(secondsSince(start) * 1e3);
    }
    std::printf(
        "  1600x800 offscreen grab, median of 15: repaint %.1f ms, redraw of every cell %.1f ms (cells "
        "%.1f ms), pan %.1f ms (cells %.1f ms), %d cache builds\n",
        median(repaint), median(redraw), median(redrawCells), median(pan), median(panCells),
        view.cacheBuilds());
    return first.isNull() ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() >= 4 && args[1] == QLatin1String("load"))
        return benchLoad(args[2], args[3], args.size() >= 5 ? args[4].toInt() : 0);
    if (args.size() >= 4 && args[1] == QLatin1String("load-figures"))
        return benchLoadFigures(args[2], args[3].toInt());
    if (args.size() >= 4 && args[1] == QLatin1String("budget"))
        return benchBudget(args[2], args[3], args.size() >= 5 ? args[4].toInt() : 0);
    if (args.size() >= 4 && args[1] == QLatin1String("threads"))
        return benchThreads(args[2].toInt(), args.mid(3));
    if (args.size() >= 3 && args[1] == QLatin1String("reopen"))
        return benchReopen(args[2], args.size() >= 4 ? std::max(1, args[3].toInt()) : 5);
    if (args.size() >= 3 && args[1] == QLatin1String("chart"))
        return benchChart(args[2]);
    if (args.size() >= 3 && args[1] == QLatin1String("snapshot"))
        return benchSnapshot(args[2], false);
    if (args.size() >= 3 && args[1] == QLatin1String("snapshot-phases"))
        return benchSnapshot(args[2], true);
    if (args.size() >= 3 && args[1] == QLatin1String("snapshot-sites"))
        return benchSnapshotSites(args[2]);
    if (args.size() >= 3 && args[1] == QLatin1String("cancel"))
        return benchCancel(args[2]);
    if (args.size() >= 4 && args[1] == QLatin1String("job"))
        return benchJob(args[2].toInt(), args.mid(3));
    if (args.size() >= 3 && args[1] == QLatin1String("job-open"))
        return benchJobOpen(args.mid(2));
    if (args.size() >= 2 && args[1] == QLatin1String("crossrank"))
        return benchCrossRank(args.size() >= 3 ? args[2].toInt() : 64,
                              args.size() >= 4 ? args[3].toInt() : 100'000);
    if (args.size() >= 3 && args[1] == QLatin1String("crossrank-trace"))
        return benchCrossRankTrace(args[2]);
    if (args.size() >= 2 && args[1] == QLatin1String("heatmap"))
        return benchHeatmap(args.size() >= 3 ? args[2].toInt() : 64,
                            args.size() >= 4 ? args[3].toInt() : 100'000);
    std::fprintf(stderr,
                 "usage: gapscope_bench load FORM PATH [THREADS] | load-figures PATH THREADS | budget FORM "
                 "PATH [THREADS] | threads RUNS PATH... | chart PATH | reopen PATH [RUNS] | cancel PATH | "
                 "job RUNS PATH... | snapshot PATH | snapshot-phases PATH | snapshot-sites PATH | "
                 "job-open PATH... | "
                 "crossrank [RANKS] [SAMPLES] | crossrank-trace "
                 "PATH | heatmap [RANKS] [SAMPLES]\n");
    return 2;
}
