#!/bin/sh
# Generates the large inputs under $GAPSCOPE_BENCH_DIR (default /tmp/gapscope-bench; never
# committed) and prints the figures of docs/performance.md.
#   cmake --build build --target bench && bench/run.sh [build dir] [samples]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
samples=${2:-10000000}
ticks=${GAPSCOPE_BENCH_TICKS:-200000}
dir=${GAPSCOPE_BENCH_DIR:-/tmp/gapscope-bench}
gen=$build/bench/gapscope_gen
bench=$build/bench/gapscope_bench
fixtures=$here/../tests/data/fixtures/budget
mkdir -p "$dir"

make_input() { # form count output [fixture]
    [ -e "$3" ] && return 0
    echo "generating $3" >&2
    if [ $# -ge 4 ]; then "$gen" "$1" "$2" "$4" "$3"; else "$gen" "$1" "$2" "$3"; fi
}
make_input jsonl "$samples" "$dir/trace-$samples.jsonl"
make_input array "$samples" "$dir/trace-$samples.json"
make_input csv "$samples" "$dir/trace-$samples.csv"
make_input sink "$samples" "$dir/sink-$samples"
make_input budget-text "$ticks" "$dir/budget-$ticks.text" "$fixtures/leak.text"
make_input budget-json "$ticks" "$dir/budget-$ticks.json" "$fixtures/leak.json"

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

echo "== parse ($(nproc) cores; threads = one per core unless noted)"
load "JSONL 1 thr" "$dir/trace-$samples.jsonl" 1
load "JSONL" "$dir/trace-$samples.jsonl"
load "JSON array" "$dir/trace-$samples.json"
load "CSV" "$dir/trace-$samples.csv"
load "sink" "$dir/sink-$samples"
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
