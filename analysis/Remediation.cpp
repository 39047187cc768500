#include "analysis/Remediation.h"

#include "analysis/PhaseSteps.h"
#include "analysis/Units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gapscope {

namespace {

std::string lowerTrimmed(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    std::string lowered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lowered;
}

bool contains(const std::string& text, std::string_view part)
{
    return text.find(part) != std::string::npos;
}

std::string printf1(const char* format, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

std::string percent(double ratio)
{
    return printf1("%.1f%%", ratio * 100.0);
}

std::string pValueText(double p)
{
    // p_value is rounded to 6 decimals upstream: 0 means "below 5e-7".
    if (p < 1e-6)
        return "p < 1e-6";
    return printf1("p = %.6g", p);
}

// The allocator whose bookkeeping the gap is measured against, as the user knows it.
std::string allocatorName(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return "PyTorch's caching allocator";
    case Backend::TensorFlow:
        return "TensorFlow's BFC allocator";
    case Backend::Jax:
        return "the XLA client allocator";
    case Backend::Cpu:
        return "the tracked heap";
    case Backend::Unknown:
        break;
    }
    return "the framework's allocator";
}

std::string phaseSuffix(const Finding& finding)
{
    // the evidence's training step, where the trace's phases carry one
    const std::string at = finding.evidenceStep ? " at " + stepLabel(*finding.evidenceStep) : std::string();
    if (!finding.phase)
        return at.empty() ? std::string() : " It happened" + at + ".";
    const PhaseAttribution& phase = *finding.phase;
    if (phase.resolution == PhaseResolution::Unique && phase.phasePath)
        return " It happened" + at + " during phase \"" + *phase.phasePath + "\".";
    if (phase.summary)
        return " It happened" + at + " while several phases were active, most likely \"" +
               phase.summary->phasePath + "\".";
    if (!phase.phasePaths.empty())
        return " It happened" + at + " during phase \"" + phase.phasePaths.front() + "\" on several threads.";
    return at.empty() ? std::string() : " It happened" + at + ".";
}

// "120 ms", "3.51 s", "2 min 5 s": a span of time in a finding's words.
std::string spanText(int64_t ns)
{
    const double seconds = static_cast<double>(ns) / 1e9;
    if (seconds < 1)
        return printf1("%.0f ms", seconds * 1e3);
    if (seconds < 120)
        return printf1("%.2f s", seconds);
    return printf1("%.0f min ", std::floor(seconds / 60)) + printf1("%.0f s", std::fmod(seconds, 60));
}

// "steps 621-630", "step 620" where both ends have a step, else empty.
std::string stepRangeOf(const std::optional<StepRef>& first, const std::optional<StepRef>& last)
{
    return first && last ? stepRangeLabel(*first, *last) : std::string();
}

// One episode in words: "10 steps (steps 621-630)", or its length in time without steps.
std::string episodeLength(const SpikeEpisode& episode)
{
    const std::string steps = stepRangeOf(episode.startStep, episode.endStep);
    if (!steps.empty() && episode.stepCount > 0)
        return (episode.stepCount == 1 ? std::string("1 step")
                                       : std::to_string(episode.stepCount) + " steps") +
               " (" + steps + ")";
    if (episode.samples == 1)
        return "1 sample";
    return spanText(episode.endNs - episode.startNs) + " (" + std::to_string(episode.samples) + " samples)";
}

// "One episode of 10 steps (steps 621-630), peak 5.61 GiB, of WHAT"; several: "3 episodes of
// WHAT (steps 100-110, step 300, steps 620-631), the largest peaking at 5.61 GiB", or without
// steps "7 episodes of WHAT, the largest peaking at 10.53 GiB (1 sample)".
std::string episodesText(const Finding& finding, const std::string& what)
{
    const std::vector<SpikeEpisode>& episodes = finding.episodes;
    if (episodes.size() == 1)
        return "One episode of " + episodeLength(episodes.front()) + ", peak " +
               formatBytes(static_cast<double>(episodes.front().peakGapBytes)) + ", of " + what;
    const auto largest = std::max_element(episodes.begin(), episodes.end(), [](const auto& a, const auto& b) {
        return a.peakGapBytes < b.peakGapBytes;
    });
    const std::string peak = formatBytes(static_cast<double>(largest->peakGapBytes));
    const bool allSteps = std::all_of(episodes.begin(), episodes.end(), [](const SpikeEpisode& e) {
        return !stepRangeOf(e.startStep, e.endStep).empty();
    });
    if (!allSteps)
        return std::to_string(episodes.size()) + " episodes of " + what + ", the largest peaking at " + peak +
               " (" + episodeLength(*largest) + ")";
    constexpr size_t kListed = 3;
    std::string listed;
    for (size_t i = 0; i < std::min(kListed, episodes.size()); ++i)
        listed += (i == 0 ? "" : ", ") + stepRangeOf(episodes[i].startStep, episodes[i].endStep);
    if (episodes.size() > kListed)
        listed += " and " + std::to_string(episodes.size() - kListed) + " more";
    return std::to_string(episodes.size()) + " episodes of " + what + " (" + listed +
           "), the largest peaking at " + peak;
}

// Evidence lookup: every number the description quotes must be present, otherwise the
// description falls back to a sentence without numbers.
struct Numbers
{
    const Finding& finding;
    bool complete = true;
    double operator()(std::string_view key)
    {
        if (const EvidenceValue* value = finding.findEvidence(key))
            return value->value;
        complete = false;
        return 0;
    }
};

std::string describeSpike(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double count = number("spike_count");
    const double maxGap = number("max_gap_bytes");
    const double z = number("max_zscore");
    const double mean = number("mean_gap_bytes");
    const double deviation = number("std_gap_bytes");
    if (!number.complete)
        return "Short-lived surges of memory held outside " + allocatorName(backend) + "." +
               phaseSuffix(finding);
    if (!finding.episodes.empty()) {
        // an episode is what happened; upstream's count is of samples above its line
        return episodesText(finding, "memory held outside " + allocatorName(backend)) + ": " +
               printf1("%.2f", z) + " standard deviations (z-score) above the gap's mean of " +
               formatBytes(mean) + " (standard deviation " + formatBytes(deviation) + "); upstream counts " +
               (count == 1 ? std::string("its 1 sample") : printf1("its %.0f samples", count)) +
               " above the line as " +
               (count == 1 ? std::string("1 transient spike") : printf1("%.0f transient spikes", count)) +
               "." + phaseSuffix(finding);
    }
    const std::string spikes = count == 1 ? "1 transient spike" : printf1("%.0f transient spikes", count);
    return spikes + " in the memory held outside " + allocatorName(backend) +
           ": the gap between device usage and reserved memory peaked at " + formatBytes(maxGap) + ", " +
           printf1("%.2f", z) + " standard deviations (z-score) above its mean of " + formatBytes(mean) +
           " (standard deviation " + formatBytes(deviation) + ")." + phaseSuffix(finding);
}

// Where one growth interval lies: "from step 248 to step 541 (6.6 MiB per step)", or in time
// from the first sample without steps: "from 3.43 s to 6.99 s after the first sample (540 MiB/s)".
std::string growthPlace(const GrowthInterval& interval, const Finding& finding)
{
    const double growth = static_cast<double>(interval.growthBytes);
    if (interval.startStep && interval.endStep && interval.stepCount > 0) {
        if (interval.stepCount == 1) // within one step: a rate per step would be the growth again
            return "during " + stepLabel(*interval.startStep);
        const size_t elapsed = interval.stepCount - 1;
        return "from " + stepLabel(*interval.startStep) + " to " + stepLabel(*interval.endStep) + " (" +
               formatBytes(growth / static_cast<double>(elapsed)) + " per step)";
    }
    const int64_t duration = interval.endNs - interval.startNs;
    std::string text = "from " + spanText(interval.startNs - finding.firstSampleNs) + " to " +
                       spanText(interval.endNs - finding.firstSampleNs) + " after the first sample";
    if (duration > 0)
        text += " (" + formatBytesPerSecond(growth / (static_cast<double>(duration) / 1e9)) + ")";
    return text;
}

// "The memory held outside X grew 1.88 GiB from step 248 to step 541 (6.6 MiB per step), then
// stopped; it also grew 224 MiB at steps 0-2." The largest interval first; the last one says
// whether growth stopped before the last sample.
std::string growthText(const Finding& finding, Backend backend)
{
    const std::vector<GrowthInterval>& intervals = finding.growthIntervals;
    const auto largest =
        std::max_element(intervals.begin(), intervals.end(),
                         [](const auto& a, const auto& b) { return a.growthBytes < b.growthBytes; });
    const GrowthInterval& last = intervals.back();
    std::string text = "The memory held outside " + allocatorName(backend) + " grew " +
                       formatBytes(static_cast<double>(largest->growthBytes)) + " " +
                       growthPlace(*largest, finding);
    if (&*largest == &last) {
        text += last.stillGrowing ? ", and was still growing at the last sample" : ", then stopped";
    }
    std::vector<const GrowthInterval*> others;
    for (const GrowthInterval& interval : intervals)
        if (&interval != &*largest)
            others.push_back(&interval);
    if (!others.empty()) {
        constexpr size_t kListed = 2;
        text += "; it also grew ";
        for (size_t i = 0; i < std::min(kListed, others.size()); ++i)
            text += (i == 0 ? "" : ", and ") + formatBytes(static_cast<double>(others[i]->growthBytes)) +
                    " " + growthPlace(*others[i], finding);
        if (others.size() > kListed)
            text += " and in " + std::to_string(others.size() - kListed) + " more intervals";
        if (&*largest != &last)
            text += last.stillGrowing
                        ? ", and was still growing at the last sample"
                        : "; the last growth ended " +
                              (last.endStep
                                   ? "at " + stepLabel(*last.endStep)
                                   : spanText(finding.lastSampleNs - last.endNs) + " before the last sample");
    }
    return text + ".";
}

std::string describeDrift(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double slope = number("slope_bytes_per_sec");
    const double rSquared = number("r_squared");
    const double p = number("p_value");
    const double start = number("gap_start_bytes");
    const double end = number("gap_end_bytes");
    if (!number.complete)
        return "The memory held outside " + allocatorName(backend) + " grows steadily." +
               phaseSuffix(finding);
    if (!finding.growthIntervals.empty())
        return growthText(finding, backend) +
               " Upstream's straight line over the whole trace: " + formatBytesPerSecond(slope) +
               " (r\u00b2 = " + printf1("%.4f", rSquared) + ", " + pValueText(p) + "), from " +
               formatBytes(start) + " at the first sample to " + formatBytes(end) + " at the last." +
               phaseSuffix(finding);
    return "The memory held outside " + allocatorName(backend) + " grows steadily at " +
           formatBytesPerSecond(slope) + " (about " + formatBytes(slope * 3600.0) +
           " per hour; r\u00b2 = " + printf1("%.4f", rSquared) + ", " + pValueText(p) + "): from " +
           formatBytes(start) + " at the first sample to " + formatBytes(end) + " at the last." +
           phaseSuffix(finding);
}

std::string describeFragmentation(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double average = number("avg_fragmentation_ratio");
    const double maximum = number("max_fragmentation_ratio");
    const double averageGap = number("avg_gap_bytes");
    const double samples = number("sample_count");
    const std::string holder = backend == Backend::Cpu ? "live objects" : "tensors";
    if (!number.complete)
        return "Much of the memory reserved by " + allocatorName(backend) + " is not allocated to " + holder +
               "." + phaseSuffix(finding);
    return "On average " + percent(average) + " of the memory reserved by " + allocatorName(backend) +
           " is not allocated to " + holder + " (at most " + percent(maximum) + ", over " +
           printf1("%.0f", samples) +
           " samples); the gap between device usage and reserved memory averages " + formatBytes(averageGap) +
           "." + phaseSuffix(finding);
}

std::vector<std::string> spikeSteps(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return {
            "Find what else allocates device memory at this moment: NCCL communicator set-up (the first "
            "collective or "
            "a new process group), cuDNN algorithm search with torch.backends.cudnn.benchmark=True, and "
            "libraries "
            "that call cudaMalloc directly (CuPy, TensorRT, custom extensions) all bypass the caching "
            "allocator.",
            "Rule out another process on the GPU: compare nvidia-smi --query-compute-apps=pid,used_memory "
            "with "
            "torch.cuda.memory_reserved() at the same time.",
            "Bound kernel workspaces: set CUBLAS_WORKSPACE_CONFIG=:4096:8 and try "
            "torch.backends.cudnn.benchmark=False "
            "for the spiking step; workspaces taken during algorithm search are released afterwards and look "
            "exactly "
            "like a short-lived gap.",
            "Create NCCL process groups once at start-up, and lower NCCL_BUFFSIZE if communication buffers "
            "are the "
            "cause; each new communicator holds its own buffers outside PyTorch.",
            "If the spike ends in an out-of-memory error, leave headroom for memory PyTorch cannot see with "
            "torch.cuda.set_per_process_memory_fraction(0.9).",
        };
    case Backend::TensorFlow:
        return {
            "Read tf.config.experimental.get_memory_info('GPU:0') ('current' and 'peak') around this step: "
            "if they "
            "stay flat while device usage jumps, the memory is taken outside the BFC allocator.",
            "cuDNN autotuning allocates scratch workspaces beside the allocator; run once with "
            "TF_CUDNN_USE_AUTOTUNE=0 to see whether the spike disappears.",
            "XLA compiles new shapes with temporary buffers: warm up with the final shapes, or pin them with "
            "tf.function(input_signature=...) / reduce_retracing=True to avoid recompiles mid-run.",
            "Leave headroom for memory outside the allocator by capping TensorFlow with "
            "tf.config.set_logical_device_configuration(gpu, "
            "[tf.config.LogicalDeviceConfiguration(memory_limit=...)]).",
        };
    case Backend::Jax:
        return {
            "Check for a recompilation at this moment (jax.config.update('jax_log_compiles', True)): "
            "compiling and "
            "autotuning a new shape allocates temporary buffers outside the arrays JAX tracks.",
            "Compare jax.live_arrays() and jax.profiler.save_device_memory_profile() at the spike with "
            "device usage; "
            "what they do not list belongs to the XLA runtime (executables, autotuning, collectives).",
            "Lower XLA_PYTHON_CLIENT_MEM_FRACTION (default 0.75) to leave room for memory the client "
            "allocator does "
            "not manage, such as cuDNN workspaces and NCCL buffers.",
            "Donate the inputs of jitted steps (jax.jit(step, donate_argnums=...)) so a step does not hold "
            "its old and "
            "new state at once.",
        };
    case Backend::Cpu:
        return {
            "Compare the process RSS with the tracked heap at this moment in /proc/<pid>/smaps_rollup (Rss, "
            "Anonymous, "
            "Private_Dirty): a jump in file-backed or shared memory is not a heap spike.",
            "Look for short-lived large buffers from native code around this time: NumPy temporaries, "
            "decompression, "
            "data-loader workers and their shared-memory segments in /dev/shm.",
            "Large blocks above glibc's mmap threshold are mapped and unmapped on every use; for repeated "
            "bursts of the "
            "same size pin the threshold with GLIBC_TUNABLES=glibc.malloc.mmap_threshold=<bytes>.",
            "With many threads, per-thread malloc arenas each absorb bursts: bound them with "
            "MALLOC_ARENA_MAX=2.",
        };
    case Backend::Unknown:
        break;
    }
    return {
        "Find which component allocates device memory outside the framework's allocator at this moment: "
        "communication libraries, kernel workspaces, compilers and other processes on the same device.",
        "Compare the framework's own memory counters with the device's used memory around the spike to "
        "confirm "
        "the memory is outside the allocator.",
        "Leave headroom below the device capacity for memory the allocator does not manage.",
    };
}

std::vector<std::string> driftSteps(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return {
            "Confirm the growth is outside PyTorch: sample "
            "torch.cuda.memory_stats()['reserved_bytes.all.current'] and "
            "torch.cuda.mem_get_info() together; reserved memory staying flat while device usage climbs "
            "points at "
            "native code.",
            "Look for objects created every step that hold device memory until destroyed: CUDA streams and "
            "events, "
            "cuBLAS/cuDNN handles (one per thread that touches the GPU), NCCL communicators from new process "
            "groups.",
            "CUDA graphs: every torch.cuda.graph or torch.compile(mode='reduce-overhead') capture keeps its "
            "private "
            "memory pool alive, and re-capturing for new shapes adds pools; share one with "
            "torch.cuda.graph_pool_handle() or bound the number of shapes.",
            "Record a short run with torch.cuda.memory._record_memory_history() and "
            "torch.cuda.memory._dump_snapshot(); "
            "if the snapshot stays flat while this drift continues, bisect the native extensions and "
            "libraries in use.",
        };
    case Backend::TensorFlow:
        return {
            "Watch for tf.function retracing: every new input shape or Python argument value builds another "
            "concrete "
            "function; fix input_signature or set reduce_retracing=True and heed the retracing warnings.",
            "Compare tf.config.experimental.get_memory_info('GPU:0')['current'] with device usage over time: "
            "flat "
            "allocator usage under a growing device total points at custom ops or per-thread cuDNN/cuBLAS "
            "handles.",
            "Call tf.keras.backend.clear_session() between models built in a loop; old graphs and their "
            "resources stay "
            "alive otherwise.",
            "Try the stream-ordered allocator (TF_GPU_ALLOCATOR=cuda_malloc_async): it returns memory to the "
            "driver "
            "and makes the remaining growth easier to attribute.",
        };
    case Backend::Jax:
        return {
            "Every new shape or static argument compiles an executable that stays cached: log compiles with "
            "jax_log_compiles and release the caches with jax.clear_caches() where shapes change by design.",
            "Track len(jax.live_arrays()) and their total size over time; arrays kept alive by Python "
            "references "
            "(metric lists, accumulated outputs) grow steadily. Move metrics to the host with "
            "jax.device_get.",
            "Run once with XLA_PYTHON_CLIENT_ALLOCATOR=platform (allocate and free on demand, slow): device "
            "usage then "
            "follows live data, and a drift that remains is a real leak.",
            "Take jax.profiler.save_device_memory_profile() at two points and compare them with pprof "
            "--diff_base.",
        };
    case Backend::Cpu:
        return {
            "glibc malloc keeps freed memory in per-thread arenas: set MALLOC_ARENA_MAX=2 and see whether "
            "the drift "
            "flattens; calling malloc_trim(0) (ctypes.CDLL('libc.so.6').malloc_trim(0)) shows how much is "
            "reclaimable.",
            "Try jemalloc or tcmalloc through LD_PRELOAD (libjemalloc.so.2, libtcmalloc_minimal.so.4): both "
            "return "
            "memory to the system more eagerly, and their heap profilers (jeprof, HEAPPROFILE) name the "
            "growing call "
            "sites.",
            "Separate Python objects from native memory with tracemalloc snapshots; if they stay flat while "
            "RSS grows, "
            "the growth is in native extensions or in the allocator itself.",
            "Check file-backed and shared mappings (memory-mapped datasets, /dev/shm of data-loader workers) "
            "in "
            "/proc/<pid>/smaps_rollup: they count in RSS but not in the heap.",
        };
    case Backend::Unknown:
        break;
    }
    return {
        "Sample the framework's own memory counters next to device usage: if they stay flat while the device "
        "total "
        "grows, the growth is outside the allocator.",
        "Look for resources created every step and never released: streams, library handles, communicators, "
        "compiled programs.",
        "Shorten the run and bisect the libraries and extensions in use until the drift disappears.",
    };
}

std::vector<std::string> fragmentationSteps(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return {
            "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the caching allocator grows segments in "
            "place "
            "instead of keeping fixed blocks that fragment when tensor sizes vary.",
            "Where expandable segments are unavailable, stop large cached blocks from being split for small "
            "requests "
            "with max_split_size_mb (e.g. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512) and release idle "
            "blocks "
            "early with garbage_collection_threshold:0.8.",
            "Measure the stranded cache: torch.cuda.memory_stats()['inactive_split_bytes.all.current'] and "
            "torch.cuda.memory_snapshot() list the segments and the free blocks inside them.",
            "Call torch.cuda.empty_cache() between phases with very different shapes (evaluation after "
            "training); it "
            "returns unused segments to the driver and frees no live tensor.",
            "Pad variable sequence lengths and batch sizes to a few buckets so allocations reuse the same "
            "block sizes.",
        };
    case Backend::TensorFlow:
        return {
            "Without memory growth TensorFlow reserves nearly all device memory at start-up, and this ratio "
            "is that "
            "pre-allocation: enable tf.config.experimental.set_memory_growth(gpu, True) or "
            "TF_FORCE_GPU_ALLOW_GROWTH=true.",
            "Switch to the stream-ordered CUDA allocator with TF_GPU_ALLOCATOR=cuda_malloc_async; it avoids "
            "the fixed "
            "bins of the BFC allocator that fragment with varying sizes.",
            "Compare 'peak' with 'current' in tf.config.experimental.get_memory_info('GPU:0'): an arena "
            "sized for an "
            "old peak stays reserved; tf.config.experimental.reset_memory_stats starts a new measurement.",
            "Compile the training step with XLA (jit_compile=True) so buffers are planned for the whole "
            "step, and keep "
            "shapes stable by padding batches to a few sizes.",
        };
    case Backend::Jax:
        return {
            "JAX preallocates 75% of device memory by default, and this ratio may be that arena rather than "
            "fragmentation: set XLA_PYTHON_CLIENT_PREALLOCATE=false to allocate on demand.",
            "Size the arena with XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. 0.5), especially when several "
            "processes share "
            "the device.",
            "Use XLA_PYTHON_CLIENT_ALLOCATOR=platform on a diagnostic run: memory is freed as soon as arrays "
            "die, "
            "which shows what the workload really needs (slower; not for production).",
            "Keep shapes static (pad to a few buckets) so the allocator reuses the same buffers from step to "
            "step.",
        };
    case Backend::Cpu:
        return {
            "Fewer malloc arenas fragment less: set MALLOC_ARENA_MAX=2 for multi-threaded workers.",
            "Return free memory at the top of the heap with malloc_trim(0) at phase boundaries, or lower "
            "GLIBC_TUNABLES=glibc.malloc.trim_threshold=<bytes>.",
            "Serve large buffers from mmap so they are returned whole: lower "
            "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072.",
            "jemalloc or tcmalloc (LD_PRELOAD) group allocations by size class and usually fragment less in "
            "long-running processes.",
        };
    case Backend::Unknown:
        break;
    }
    return {
        "Check whether the allocator pre-allocates an arena at start-up; a high unused share may be that "
        "arena.",
        "Release cached memory between phases with very different allocation sizes.",
        "Keep allocation sizes stable (pad batches to a few sizes) so cached blocks are reused.",
    };
}

// "250 ms", "1.200 s": the spans the job findings quote (leads, interval lengths).
std::string durationText(double ns)
{
    if (std::abs(ns) < 1e9)
        return printf1("%.0f ms", ns / 1e6);
    return printf1("%.3f s", ns / 1e9);
}

std::string rankText(const Finding& finding)
{
    return finding.rank ? "Rank " + std::to_string(*finding.rank) : std::string("A rank");
}

std::string describeCollective(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double peak = number("peak_gap_bytes");
    const double markers = number("marker_hits");
    const double synchronized = number("synchronized_ranks");
    const double world = number("expected_world_size");
    const double duration = number("interval_duration_ns");
    const EvidenceValue* upstreamClass = finding.findEvidence("collective_class");
    if (!number.complete || !upstreamClass)
        return rankText(finding) + " held memory outside " + allocatorName(backend) +
               " while a collective ran." + phaseSuffix(finding);
    std::string text = rankText(finding) + " held up to " + formatBytes(peak);
    if (const EvidenceValue* ratio = finding.findEvidence("peak_gap_ratio"))
        text += " (" + percent(ratio->value) + " of the device)";
    text +=
        " outside " + allocatorName(backend) + " for " + durationText(duration) +
        ", in step with collective communication: " +
        (markers == 1 ? std::string("1 collective marker") : printf1("%.0f collective markers", markers)) +
        " near it, " + printf1("%.0f", synchronized) + " of " + printf1("%.0f", world) +
        " ranks spiking at the same time. Upstream classifies it as " + upstreamClass->label +
        " (confidence " + printf1("%.3f", finding.confidence) +
        "). Communication buffers are allocated by NCCL itself, so the caching allocator never sees them." +
        phaseSuffix(finding);
    return text;
}

std::string describeFirstCause(const Finding& finding, Backend)
{
    Numbers number{finding};
    const double delta = number("device_used_delta_bytes");
    const double samples = number("spike_window_samples");
    const double lead = number("lead_over_cluster_onset_ns");
    const double supporting = number("supporting_ranks_at_or_before_onset");
    const EvidenceValue* level = finding.findEvidence("first_cause_confidence");
    if (!number.complete || !level)
        return rankText(finding) + "'s device memory rose before the other ranks'." + phaseSuffix(finding);
    std::string text = rankText(finding) + "'s device usage rose by " + formatBytes(delta) + " over " +
                       (samples == 1 ? std::string("1 sample") : printf1("%.0f samples", samples));
    text += lead > 0 ? ", " + durationText(lead) +
                           " before the cluster's onset (clocks aligned on each "
                           "rank's first sample)"
                     : ", at the cluster's onset (clocks aligned on each rank's first sample)";
    text += "; " + printf1("%.0f", supporting) + (supporting == 1 ? " rank" : " ranks") +
            " spiked at or before the onset. First-cause confidence: " + level->label + "." +
            phaseSuffix(finding);
    return text;
}

// "1 and 5", "1, 5 and 7" from the evidence's "1, 5, 7"
std::string ranksPhrase(const std::string& list)
{
    std::vector<std::string> ranks;
    size_t from = 0;
    while (from <= list.size()) {
        const size_t comma = list.find(", ", from);
        ranks.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
        if (comma == std::string::npos)
            break;
        from = comma + 2;
    }
    std::string text;
    for (size_t i = 0; i < ranks.size(); ++i)
        text += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + ranks[i];
    return text;
}

std::string describeRankDivergence(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double growth = number("growth_bytes");
    const double level = number("level_bytes");
    const double peerGrowth = number("peer_median_growth_bytes");
    const double peerLevel = number("peer_median_level_bytes");
    const double excess = number("excess_bytes");
    const double excessRate = number("excess_bytes_per_second");
    const double peers = number("peer_ranks");
    const EvidenceValue* series = finding.findEvidence("series");
    const EvidenceValue* ranks = finding.findEvidence("ranks");
    const bool gap = series && series->label == "gap";
    const std::string what =
        gap ? "memory outside " + allocatorName(backend) + " (device used - reserved)" : "reserved memory";
    if (!number.complete || !series || !ranks)
        return rankText(finding) + "'s " + what + " departs from the other ranks'.";
    std::string text = rankText(finding) + "'s " + what + (growth >= 0 ? " grew " : " shrank ") +
                       formatBytes(std::abs(growth)) + " to " + formatBytes(level) + " against a median of " +
                       formatBytes(peerGrowth) + " (to " + formatBytes(peerLevel) + ") on its " +
                       printf1("%.0f", peers) + (peers == 1 ? " peer" : " peers") + ": " +
                       formatBytes(excess) + " above them at the end, " +
                       (excessRate >= 0 ? formatBytesPerSecond(excessRate) + " faster"
                                        : formatBytesPerSecond(-excessRate) + " slower") +
                       " (least squares over the run).";
    if (ranks->label.find(',') != std::string::npos)
        text += " Ranks " + ranksPhrase(ranks->label) + " depart from their peers; the numbers are rank " +
                std::to_string(finding.rank.value_or(0)) + "'s, the furthest.";
    return text;
}

std::vector<std::string> rankDivergenceSteps(const Finding& finding, Backend backend)
{
    const EvidenceValue* series = finding.findEvidence("series");
    std::vector<std::string> steps;
    if (series && series->label == "gap") {
        steps = {
            "Look for native memory only this rank allocates: a C++/CUDA extension, a library workspace "
            "(cuBLAS, cuDNN, NCCL) created per call, or work only this rank does (logging, checkpointing, "
            "evaluation on rank 0). The caching allocator never sees it, so its own statistics stay level.",
            "Check the rank's GPU for other processes: nvidia-smi --query-compute-apps=pid,used_memory "
            "names each process's share; another job or a stray dataloader worker on the same device shows "
            "as memory outside this rank's allocator.",
        };
    } else {
        steps = {
            "Find what this rank keeps that its peers free: tensors held across steps (logits or losses kept "
            "for logging without .detach().item(), a list appended to every step, a cache only this rank "
            "fills). The ranks run the same model on the same shapes, so their memory should move together.",
            "Record this rank's allocations for a few steps and compare with a peer's: "
            "torch.cuda.memory._record_memory_history() then torch.cuda.memory._dump_snapshot(), or "
            "torch.cuda.memory_summary() on both ranks at the same step.",
            "Check the data: a shard with longer sequences or larger batches makes one rank's allocator "
            "cache grow; pad or bucket so every rank sees the same shapes.",
        };
    }
    (void)backend;
    return steps;
}

std::vector<std::string> collectiveSteps(Backend backend)
{
    std::vector<std::string> steps = {
        "Size NCCL's buffers to what the job needs: a communicator keeps buffers of NCCL_BUFFSIZE (4 MiB by "
        "default) for each channel and connection, so lowering NCCL_BUFFSIZE or capping the channels with "
        "NCCL_MAX_NCHANNELS shrinks this gap; measure the step time after each change.",
        "Make communicators once: a process group created per step or per evaluation builds a new NCCL "
        "communicator with its own buffers every time. Build the groups at start-up and reuse them, and "
        "destroy the ones you are done with.",
        "Do not initialise groups that never communicate: each one that is initialised eagerly holds its "
        "buffers for the whole run. Create a subgroup only on the ranks that use it, and let unused ones "
        "initialise lazily on their first collective.",
        "NVLink SHARP and CollNet reserve extra device memory per communicator; if this gap matters more "
        "than their bandwidth, try NCCL_NVLS_ENABLE=0 or NCCL_COLLNET_ENABLE=0.",
    };
    switch (backend) {
    case Backend::PyTorch:
        steps.push_back("Leave room for communicator memory in the caching allocator's budget: "
                        "torch.cuda.set_per_process_memory_fraction() below 1.0 (0.9 is a start), so the "
                        "allocator's cache does not take what NCCL allocates later.");
        steps.push_back("In PyTorch, dist.new_group() called per step is the usual source of repeated "
                        "communicators; with init_process_group(device_id=...) communicators are set up "
                        "eagerly, subgroups' too, so create only the subgroups the job uses.");
        break;
    case Backend::TensorFlow:
        steps.push_back("Leave room for communicator memory outside the BFC allocator: cap TensorFlow with "
                        "tf.config.set_logical_device_configuration(gpu, "
                        "[tf.config.LogicalDeviceConfiguration(memory_limit=...)]) below the device size.");
        steps.push_back("Build the tf.distribute strategy once per process: every new "
                        "MultiWorkerMirroredStrategy or MirroredStrategy sets up collectives of its own.");
        break;
    case Backend::Jax:
        steps.push_back("Leave room for communicator memory outside the XLA client allocator: lower "
                        "XLA_PYTHON_CLIENT_MEM_FRACTION (default 0.75) so NCCL can allocate its buffers.");
        steps.push_back("Keep the mesh and the shardings of the jitted step stable: a new device "
                        "assignment compiles collectives over new communicators.");
        break;
    case Backend::Cpu:
    case Backend::Unknown:
        steps.push_back("Leave headroom below the device capacity for communicator memory the framework's "
                        "allocator does not manage.");
        break;
    }
    return steps;
}

std::vector<std::string> firstCauseSteps(Backend)
{
    return {
        "Look at this rank's host first: a slow or stalled data loader, a batch that differs from the other "
        "ranks' (longer sequences, another shard), or work only this rank does (logging, checkpointing, "
        "evaluation on rank 0) makes one rank allocate before the others wait in the next collective.",
        "Compare this rank's device with the others at its first spike: another process on the GPU "
        "(nvidia-smi --query-compute-apps=pid,used_memory), a throttled or faulty GPU (nvidia-smi -q -d "
        "PERFORMANCE,ECC), or a different driver or library version on the host.",
        "Check for communicators or process groups only this rank creates; NCCL_DEBUG=INFO with "
        "NCCL_DEBUG_SUBSYS=INIT logs every communicator set-up with its rank.",
        "The ranks' clocks are aligned on each rank's first sample: a rank that started late or a host whose "
        "clock drifts can move its spike; a lead of less than one sampling interval is not conclusive.",
    };
}

// allocator_fragmentation (AllocatorFragmentation.h): reserved far above allocated, read from the
// allocator's own counters.
std::string describeAllocatorFragmentation(const Finding& finding, Backend backend)
{
    Numbers number{finding};
    const double reserved = number("reserved_bytes");
    const double allocated = number("allocated_bytes");
    const double unallocated = number("unallocated_bytes");
    const double ratio = number("unallocated_ratio");
    const double fragmented = number("fragmented_samples");
    const double samples = number("sample_count");
    const double warnings = number("tracker_fragmentation_warnings");
    const std::string holder = backend == Backend::Cpu ? "live objects" : "tensors";
    if (!number.complete)
        return "Most of the memory reserved by " + allocatorName(backend) + " is not allocated to " + holder +
               ", over much of the run: the allocator holds blocks it cannot reuse for the requests it "
               "gets." +
               phaseSuffix(finding);
    std::string text = allocatorName(backend);
    text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
    text += " held " + formatBytes(reserved) + " reserved with only " + formatBytes(allocated) +
            " allocated to " + holder + ": " + formatBytes(unallocated) + " (" + percent(ratio) +
            ") reserved but not allocated, and half or more of reserved stayed unallocated on " +
            printf1("%.0f", fragmented) + " of " + printf1("%.0f", samples) +
            " samples. The cache keeps blocks it cannot reuse for the sizes requested (fragmentation), so "
            "the process needs more device memory than its tensors.";
    if (warnings > 0)
        text += " The tracker itself logged " +
                (warnings == 1 ? std::string("1 fragmentation warning")
                               : printf1("%.0f fragmentation warnings", warnings)) +
                ".";
    return text + phaseSuffix(finding);
}

std::vector<std::string> allocatorFragmentationSteps(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return {
            "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow in place instead of "
            "being cut into fixed blocks, which is what strands reserved memory when tensor sizes vary "
            "(PyTorch 2.1 and later, Linux).",
            "Without expandable segments, keep large cached blocks from being split for small requests "
            "with max_split_size_mb (e.g. PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:256), and let the "
            "allocator free idle blocks before it asks for more with garbage_collection_threshold:0.8.",
            "Confirm it: torch.cuda.memory_stats()['inactive_split_bytes.all.current'] is the stranded "
            "part, and torch.cuda.memory_snapshot() shows the free blocks inside each segment.",
            "torch.cuda.empty_cache() returns only whole unused segments to the driver: it does not "
            "defragment, a segment with one live block stays, and calling it every step costs "
            "cudaFree/cudaMalloc and synchronisation. Call it between phases with very different "
            "shapes, not in the loop.",
            "Make sizes repeat: pad variable lengths and batch sizes to a few buckets, and allocate "
            "long-lived tensors before the variable ones so they do not pin segments.",
        };
    default:
        return fragmentationSteps(backend);
    }
}

} // namespace

Backend backendFromTrace(std::string_view collector, std::string_view metadataBackend)
{
    const std::string name = lowerTrimmed(collector);
    const std::string backend = lowerTrimmed(metadataBackend);
    // The framework trackers name the framework; device trackers and legacy traces leave it
    // to metadata.backend.
    if (contains(name, "tensorflow") || contains(name, "tfmemprof"))
        return Backend::TensorFlow;
    if (contains(name, "jax"))
        return Backend::Jax;
    if (backend == "cuda" || backend == "rocm" || backend == "mps" || backend == "torch" ||
        backend == "pytorch")
        return Backend::PyTorch;
    if (backend == "tensorflow" || backend == "tf")
        return Backend::TensorFlow;
    if (backend == "jax")
        return Backend::Jax;
    if (backend == "cpu")
        return Backend::Cpu;
    if (contains(name, "cuda_tracker") || contains(name, "rocm_tracker") || contains(name, "mps_tracker"))
        return Backend::PyTorch;
    if (contains(name, "cpu_tracker"))
        return Backend::Cpu;
    return Backend::Unknown;
}

std::string_view toString(Backend backend)
{
    switch (backend) {
    case Backend::PyTorch:
        return "PyTorch";
    case Backend::TensorFlow:
        return "TensorFlow";
    case Backend::Jax:
        return "JAX";
    case Backend::Cpu:
        return "CPU";
    case Backend::Unknown:
        break;
    }
    return "unknown";
}

FindingText describeFinding(const Finding& finding, Backend backend)
{
    switch (finding.classification) {
    case Classification::TransientSpike:
        return {describeSpike(finding, backend), spikeSteps(backend)};
    case Classification::PersistentDrift:
        return {describeDrift(finding, backend), driftSteps(backend)};
    case Classification::FragmentationLike:
        return {describeFragmentation(finding, backend), fragmentationSteps(backend)};
    case Classification::CollectiveMemory:
        return {describeCollective(finding, backend), collectiveSteps(backend)};
    case Classification::FirstCause:
        return {describeFirstCause(finding, backend), firstCauseSteps(backend)};
    case Classification::RankDivergence:
        return {describeRankDivergence(finding, backend), rankDivergenceSteps(finding, backend)};
    case Classification::AllocatorFragmentation:
        return {describeAllocatorFragmentation(finding, backend), allocatorFragmentationSteps(backend)};
    default:
        // Budget findings carry their own text, written by the budget rules.
        return {finding.description, finding.remediation};
    }
}

void applyText(Finding& finding, Backend backend)
{
    FindingText text = describeFinding(finding, backend);
    finding.description = std::move(text.description);
    finding.remediation = std::move(text.remediation);
}

} // namespace gapscope
