#!/bin/sh
# Generates the large inputs under $GAPSCOPE_BENCH_DIR (default /tmp/gapscope-bench; never
# committed) and prints the figures of docs/performance.md.
#   cmake --build build --target bench gapscope && bench/run.sh [build dir] [events]
# The inputs are stormlog's own record shape (bench/RealShape.h) in every form; the bench's
# former compact JSON lines are one extra case. `bench/run.sh BUILD targets` prints only the
# real-shape targets (a 138 MB and a 1 GB trace: load on 1 and 2 threads, gapscope analyze).
# `bench/run.sh BUILD threads` prints 1 thread against 2 on every form at about 16, 64 and 500 MB.
# `bench/run.sh BUILD fleet [RUNS]` generates a fleet of RUNS (10 000) runs (scripts/gen-fleet.py) and times
# `gapscope index` on it, a reindex with nothing changed, and scripts/gapscope-dask-index on a
# two-worker LocalCluster (medians of GAPSCOPE_BENCH_FLEET_REPEATS, 3).
# `bench/run.sh BUILD snapshot [ENTRIES]` loads a PyTorch memory snapshot of ENTRIES (1 000 000)
# trace entries, times its active memory timeline (build, layout at 1400 px, paint) and Python's
# pickle.load of it. `bench/run.sh BUILD fleet-page [RUNS]` opens a fleet index of RUNS (10 000)
# runs as the fleet page does, filters it and paints its scatter.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
samples=${2:-2000000} # about 2 GB of JSON lines in the real shape
ticks=${GAPSCOPE_BENCH_TICKS:-200000}
dir=${GAPSCOPE_BENCH_DIR:-/tmp/gapscope-bench}
gen=$build/bench/gapscope_gen
bench=$build/bench/gapscope_bench
gapscope=$build/app/gapscope
fixtures=$here/../tests/data/fixtures/budget
mkdir -p "$dir"

make_input() { # form count output [fixture or events per sink segment]
    [ -e "$3" ] && return 0
    echo "generating $3" >&2
    if [ $# -ge 4 ]; then "$gen" "$1" "$2" "$4" "$3"; else "$gen" "$1" "$2" "$3"; fi
}

# Parse rates are measured with the input in the page cache (read once before), so they say
# what the parser does, not what the disk does.
warm() { cat "$@" > /dev/null; }
load() { # label path [threads]
    if [ -d "$2" ]; then warm "$2"/*; else warm "$2"; fi
    "$bench" load "$@" 2>/dev/null
}
budget() {
    warm "$2"
    "$bench" budget "$@" 2>/dev/null
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The figures of issue 16 on a real-shaped trace of $2 events: the load on 1 and 2 threads
# alternately (5 runs each, in the same minute, so that the machine's load touches both
# alike), then `gapscope analyze --format json` under /usr/bin/time 5 times; medians.
targets() { # label events
    input=$dir/real-$2.jsonl
    make_input jsonl "$2" "$input"
    warm "$input"
    mb=$(du -m "$input" | cut -f1)
    echo "$1: $2 events, $mb MB of JSON lines; load $(cut -d' ' -f1-3 /proc/loadavg)"
    : > "$dir/figures-1" && : > "$dir/figures-2" && : > "$dir/analyze"
    for run in 1 2 3 4 5; do
        "$bench" load-figures "$input" 1 2>/dev/null >> "$dir/figures-1"
        "$bench" load-figures "$input" 2 2>/dev/null >> "$dir/figures-2"
    done
    for threads in 1 2; do
        f=$dir/figures-$threads
        echo "  load, $threads thread(s): $(cut -d' ' -f1 "$f" | median) s, $(cut -d' ' -f2 "$f" | median) MB/s" \
            "(cpu $(cut -d' ' -f7 "$f" | median) s; runs: $(cut -d' ' -f1 "$f" | tr '\n' ' ')s)," \
            "peak $(cut -d' ' -f3 "$f" | median) B/event ($(cut -d' ' -f5 "$f" | median) MB)," \
            "resident $(cut -d' ' -f4 "$f" | median) B/event (medians of 5)"
    done
    for run in 1 2 3 4 5; do
        /usr/bin/time -f '%e %M %U %S' -a -o "$dir/analyze" "$gapscope" analyze --format json "$input" > /dev/null
    done
    echo "  gapscope analyze --format json: $(cut -d' ' -f1 "$dir/analyze" | median) s wall," \
        "peak RSS $(cut -d' ' -f2 "$dir/analyze" | median | awk '{ printf "%.1f", $1 / 1024 }') MB," \
        "cpu $(awk '{ print $3 + $4 }' "$dir/analyze" | median) s (medians of 5;" \
        "every run: $(cut -d' ' -f1 "$dir/analyze" | tr '\n' ' ')s)"
}

# Every form at about 16, 64 and 500 MB (counts chosen for each form's bytes per record), loaded on 1 and 2 threads
# alternately by `gapscope_bench threads` (medians of 5; "!" marks 2 threads slower than 1).
threads_matrix() {
    echo "== 1 thread against 2 ($(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
    for size in 16 64 500; do
        events=$((size * 1000)) # the real shape: ~1000 bytes per JSON line, ~1160 per array element
        inputs=""
        for form in jsonl array csv compact-jsonl sink; do
            case $form in
            csv) count=$((size * 1780)) ;;           # ~560 bytes per row
            compact-jsonl) count=$((size * 1680)) ;; # ~595 bytes per line
            *) count=$events ;;
            esac
            if [ $form = sink ]; then
                make_input sink $count "$dir/threads-sink-${size}mb" $((count / 4)) # four segments
            else
                make_input $form $count "$dir/threads-$form-${size}mb"
            fi
            inputs="$inputs $dir/threads-$form-${size}mb"
        done
        for fixture in leak.text leak.json leak.jsonl; do # text, tracing JSON, snapshot JSON lines
            case $fixture in
            leak.text) ticks=$((size * 790)) ;;
            leak.json) ticks=$((size * 570)) ;;
            *) ticks=$((size * 955)) ;;
            esac
            make_input budget-text $ticks "$dir/threads-budget-${size}mb.$fixture" "$fixtures/$fixture"
            inputs="$inputs $dir/threads-budget-${size}mb.$fixture"
        done
        for input in $inputs; do
            if [ -d "$input" ]; then warm "$input"/*; else warm "$input"; fi
        done
        # shellcheck disable=SC2086
        "$bench" threads "${GAPSCOPE_BENCH_RUNS:-5}" $inputs 2>/dev/null | { [ $size = 16 ] && cat || tail -n +2; }
    done
}

# PyTorch memory snapshots (issue 34): scripts/gen-snapshot.py writes $1 trace entries in the real
# snapshot's shape (frames shared through the memo as PyTorch shares them); `gapscope_bench
# snapshot` loads it, one load per process, 5 times (medians), one `snapshot-phases` run splits the
# time into the pickle's reading and the build; then Python's own pickle.load of the same file
# (median of 3) for comparison.
snapshot_bench() { # entries
    input=$dir/snapshot-$1.pickle
    if [ ! -e "$input" ]; then
        echo "generating $input" >&2
        python3 "$here/../scripts/gen-snapshot.py" "$input" --entries "$1" >&2
    fi
    warm "$input"
    f=$dir/snapshot-figures
    : > "$f"
    for run in 1 2 3 4 5; do
        "$bench" snapshot "$input" 2>/dev/null >> "$f"
    done
    phases=$("$bench" snapshot-phases "$input" 2>/dev/null)
    echo "snapshot: $1 entries, $(du -m "$input" | cut -f1) MB pickle; load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  gapscope: $(cut -d' ' -f1 "$f" | median) s wall, cpu $(cut -d' ' -f2 "$f" | median) s," \
        "peak $(cut -d' ' -f4 "$f" | median) MB over the baseline, resident after $(cut -d' ' -f5 "$f" | median) B/entry" \
        "(held by the data $(cut -d' ' -f6 "$f" | median) B/entry); medians of 5, runs: $(cut -d' ' -f1 "$f" | tr '\n' ' ')s"
    echo "  of one run of $(echo "$phases" | cut -d' ' -f1) s: pickle read $(echo "$phases" | cut -d' ' -f7) s," \
        "build $(echo "$phases" | cut -d' ' -f8) s"
    timeline=$("$bench" snapshot-timeline "$input" 2>/dev/null)
    echo "  active memory timeline of $(echo "$timeline" | cut -d' ' -f1) entries, $(echo "$timeline" | cut -d' ' -f2)" \
        "allocations: built in the loader in $(echo "$timeline" | cut -d' ' -f3) s (median of 5); layout at 1400 px" \
        "$(echo "$timeline" | cut -d' ' -f4) ms for the whole trace, $(echo "$timeline" | cut -d' ' -f5) ms for a tenth" \
        "(medians of 9); the view painted in $(echo "$timeline" | cut -d' ' -f6) ms (median of 5)"
    python3 - "$input" <<'PY'
import pickle, statistics, sys, time
runs = []
for _ in range(3):
    start = time.perf_counter()
    with open(sys.argv[1], "rb") as f:
        pickle.load(f)
    runs.append(time.perf_counter() - start)
print(f"  python3 pickle.load: {statistics.median(runs):.2f} s (median of 3; runs: {' '.join(f'{r:.2f}' for r in runs)} s)")
PY
}

# The fleet index: a fresh database each run (the inputs in the page cache), then a reindex of
# the last one with nothing changed, then the Dask route (fresh parts each run); medians. The CPU
# time (user + system, every thread) beside the wall time: on a shared machine the wall time is
# what the others leave.
fleet_bench() { # runs
    fleet=$dir/fleet-$1
    if [ ! -e "$fleet" ]; then
        echo "generating $fleet" >&2
        python3 "$here/../scripts/gen-fleet.py" "$fleet" --runs "$1"
    fi
    find "$fleet" -type f -exec cat {} + > /dev/null
    repeats=${GAPSCOPE_BENCH_FLEET_REPEATS:-3}
    python=$(command -v /usr/bin/python3 || command -v python3)
    db=$dir/fleet-$1.sqlite
    : > "$dir/fleet-index" && : > "$dir/fleet-reindex" && : > "$dir/fleet-dask"
    for run in $(seq "$repeats"); do
        rm -f "$db" "$db-wal" "$db-shm"
        /usr/bin/time -f '%e %M %U %S' -a -o "$dir/fleet-index" "$gapscope" index "$fleet" --output "$db" 2>/dev/null
    done
    for run in $(seq "$repeats"); do
        /usr/bin/time -f '%e %M %U %S' -a -o "$dir/fleet-reindex" "$gapscope" index "$fleet" --output "$db" 2>/dev/null
    done
    for run in $(seq "$repeats"); do
        rm -rf "$dir/fleet-dask.sqlite" "$dir/fleet-dask.sqlite.parts"
        /usr/bin/time -f '%e %M %U %S' -a -o "$dir/fleet-dask" "$python" "$here/../scripts/gapscope-dask-index" "$fleet" \
            --output "$dir/fleet-dask.sqlite" --local-workers 2 --gapscope "$gapscope" 2>/dev/null
    done
    echo "fleet: $1 runs ($(sqlite3 "$db" 'SELECT COUNT(*) FROM runs' 2>/dev/null || echo '?') rows)," \
        "$(du -sm "$fleet" | cut -f1) MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
    for what in index reindex dask; do
        f=$dir/fleet-$what
        echo "  $what: $(cut -d' ' -f1 "$f" | median) s wall," \
            "$(awk '{ print $3 + $4 }' "$f" | median) s CPU, peak RSS" \
            "$(cut -d' ' -f2 "$f" | median | awk '{ printf "%.0f", $1 / 1024 }') MB (median of $repeats; runs:" \
            "$(cut -d' ' -f1 "$f" | tr '\n' ' ')s)"
    done
}

if [ "${2:-}" = fleet ]; then
    echo "== fleet index ($(nproc) cores)"
    fleet_bench "${3:-10000}"
    exit 0
fi

# The fleet page (issue 35): a fleet index of RUNS (10 000) synthetic runs, opened, filtered and
# its scatter painted at 1400x900 (gapscope_bench fleet-page).
if [ "${2:-}" = fleet-page ]; then
    echo "== fleet page ($(nproc) cores)"
    "$bench" fleet-page "$dir/fleet-${3:-10000}.sqlite" "${3:-10000}"
    exit 0
fi

if [ "${2:-}" = snapshot ]; then
    echo "== PyTorch memory snapshot ($(nproc) cores)"
    snapshot_bench "${3:-1000000}"
    exit 0
fi

if [ "${2:-}" = threads ]; then
    threads_matrix
    exit 0
fi

if [ "${2:-}" = targets ]; then
    echo "== real-shape targets ($(nproc) cores)"
    targets "138 MB trace" "${GAPSCOPE_BENCH_TARGET_EVENTS:-139000}"
    targets "1 GB trace" "${GAPSCOPE_BENCH_BIG_EVENTS:-1080000}"
    exit 0
fi

make_input jsonl "$samples" "$dir/trace-$samples.jsonl"
make_input array "$samples" "$dir/trace-$samples.json"
make_input csv "$samples" "$dir/trace-$samples.csv"
make_input sink "$samples" "$dir/sink-$samples"
make_input compact-jsonl "$samples" "$dir/compact-$samples.jsonl"
make_input budget-text "$ticks" "$dir/budget-$ticks.text" "$fixtures/leak.text"
make_input budget-json "$ticks" "$dir/budget-$ticks.json" "$fixtures/leak.json"

echo "== parse ($(nproc) cores; threads = one per core unless noted)"
load "JSONL 1 thr" "$dir/trace-$samples.jsonl" 1
load "JSONL" "$dir/trace-$samples.jsonl"
load "JSON array" "$dir/trace-$samples.json"
load "CSV" "$dir/trace-$samples.csv"
load "sink" "$dir/sink-$samples"
load "compact JSONL" "$dir/compact-$samples.jsonl"
budget "budget text" "$dir/budget-$ticks.text"
budget "budget JSON" "$dir/budget-$ticks.json"
echo "== open, analysis, chart"
warm "$dir/trace-$samples.jsonl"
"$bench" chart "$dir/trace-$samples.jsonl" 2>/dev/null
echo "== cancel (the flag set 0.3, 0.9, 1.7 and 2.6 s into a load)"
for input in "$dir/trace-$samples.jsonl" "$dir/trace-$samples.json" "$dir/trace-$samples.csv" \
    "$dir/sink-$samples" "$dir/budget-$ticks.json"; do
    echo "$(basename "$input"):"
    "$bench" cancel "$input" 2>/dev/null | tail -1
done
echo "== real-shape targets"
targets "138 MB trace" "${GAPSCOPE_BENCH_TARGET_EVENTS:-139000}"
targets "1 GB trace" "${GAPSCOPE_BENCH_BIG_EVENTS:-1080000}"
echo "== distributed job (scripts/gen-job.py: sink folders of every rank; load and every rank's analysis, median of 5)"
job_ranks=${GAPSCOPE_BENCH_JOB_RANKS:-64}
job_samples=${GAPSCOPE_BENCH_JOB_SAMPLES:-100000}
job=$dir/job-${job_ranks}x$job_samples
if [ ! -e "$job" ]; then
    echo "generating $job" >&2
    python3 "$here/../scripts/gen-job.py" "$job" --ranks "$job_ranks" --samples "$job_samples"
fi
warm "$job"/*/telemetry_sink/*
"$bench" job 5 "$job" 2>/dev/null | tail -1
"$bench" job 5 "$here/../tests/data/fixtures/stormlog/distributed/firstcause-job" 2>/dev/null | tail -1
