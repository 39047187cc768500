#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a number of
# executions, one target at a time and niced (the machine is shared).
# Usage: scripts/fuzz.sh [runs per target, default 20000] [target...]
# Env: FUZZ_BUILD (build dir, default build-fuzz), FUZZ_SECONDS (time box per target,
# default 600), FUZZ_JOBS (parallel build jobs, default 2), FUZZ_NICE (default 19),
# FUZZ_MERGE=1 (after the runs, minimise each target's corpus into fuzz/corpus/<target>;
# with 0 runs it only minimises), FUZZ_NO_BUILD=1 (run the binaries already in $FUZZ_BUILD:
# a campaign beside a build in the same folder, where two ninja runs would collide),
# FUZZ_UBSAN_ALL=1 (a build with UBSan's alignment and pointer-overflow checks, which the fuzz
# build leaves out for speed (CMakeLists.txt); default build dir build-fuzz-ubsan-all),
# FUZZ_REPLAY=1 (no fuzzing: run every input of each target's committed corpus once; with
# FUZZ_UBSAN_ALL=1, the check that the corpus passes the full UBSan set).
# Each run starts from the committed corpus fuzz/corpus/<target> (read only), the seeds cut
# from tests/data (fuzz/make-seeds.sh) and what earlier runs left in $FUZZ_BUILD/corpus/<target>,
# where it adds what it finds. A crash leaves crash-*/leak-*/timeout-* files in
# $FUZZ_BUILD/findings/<target>; turn each into tests/data/fuzz_regress_<target without
# fuzz_>-<what>.<ext> (see docs/robustness.md). A target's own libFuzzer flags (its -max_len,
# the schedule) are in fuzz/<target>.options.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
shift || true
ubsan_all=OFF
[ "${FUZZ_UBSAN_ALL:-0}" = 1 ] && ubsan_all=ON
default_build=build-fuzz
[ "$ubsan_all" = ON ] && default_build=build-fuzz-ubsan-all
build=${FUZZ_BUILD:-$default_build}
seconds=${FUZZ_SECONDS:-600}
niceness=${FUZZ_NICE:-19}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_trace_json fuzz_trace_csv fuzz_trace_legacy fuzz_sink_manifest fuzz_budget_text
           fuzz_budget_tracing_json fuzz_budget_snapshot_jsonl fuzz_pyliteral fuzz_jsonfastpath
           fuzz_report_writers fuzz_trace_follower fuzz_compare fuzz_job fuzz_job_report fuzz_snapshot_pickle)
fi
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DGAPSCOPE_FUZZ=ON -DGAPSCOPE_SANITIZE=ON \
    -DGAPSCOPE_FUZZ_UBSAN_ALL="$ubsan_all" -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
  nice -n "$niceness" cmake --build "$build" --parallel "${FUZZ_JOBS:-2}" --target "${targets[@]}"
fi
# a replay runs the committed corpus alone: no seeds
[ "${FUZZ_REPLAY:-0}" = 1 ] || bash fuzz/make-seeds.sh "$build/seeds" >/dev/null
# malloc_context_size=0: ASan records no stack for an allocation or a free. Recording it (unwinding
# and StackDepot::Put for every malloc and free) was 10 % of fuzz_report_writers' time; without it
# that target runs 22 % more executions per CPU second, fuzz_compare 7 % (docs/robustness.md). A
# report still gives the whole stack of the faulting access, and every artifact a run leaves is
# replayed below with ASan's default 30 frames, so the "allocated by"/"freed by" stacks of a
# finding are in its replay file.
# allocator_release_to_os_interval_ms=-1: ASan keeps the memory freed by an execution instead of
# returning it to the OS every few seconds and faulting it in again (page faults and zeroing were
# about 10 % of fuzz_trace_legacy's time; 2026-12-02, docs/robustness.md).
replay_options="detect_leaks=1:allocator_may_return_null=1"
export ASAN_OPTIONS="$replay_options:malloc_context_size=0:allocator_release_to_os_interval_ms=-1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# The libFuzzer flags of a target: the defaults of every target, then what fuzz/<target>.options
# sets (OSS-Fuzz's form: "[libfuzzer]", then "name = value" lines; libFuzzer takes a flag's last
# value). -entropic_feature_frequency_threshold=8: libFuzzer keeps every feature seen at most
# this often (default 255) in its list of rare features and searches that list linearly for each
# feature an execution hits (32 % of fuzz_trace_json's time); at 8 the list stays near 100
# entries at the same coverage (docs/robustness.md).
target_options() {
  echo -n "-max_len=65536 -entropic_feature_frequency_threshold=8 "
  [ -f "fuzz/$1.options" ] && sed -n 's/^\([a-z_]*\) *= *\([^ ]*\) *$/-\1=\2/p' "fuzz/$1.options" | tr '\n' ' '
  echo
}
# failed <what> <log>: says so, with the first lines of the log that tell why
failed() {
  echo "FAILED: $1, see $2"
  grep -m 5 -E 'ERROR|SUMMARY|invariant|runtime error' "$2" || true
}
status=0
if [ "${FUZZ_REPLAY:-0}" = 1 ]; then
  for target in "${targets[@]}"; do
    [ -d "fuzz/corpus/$target" ] || continue
    read -r -a options <<<"$(target_options "$target")"
    log="$build/findings/$target/replay.txt"
    mkdir -p "$(dirname "$log")"
    inputs=("fuzz/corpus/$target"/*)
    # each input given by name runs once, as a test; the first failure stops the target
    if nice -n "$niceness" "$build/fuzz/$target" "${options[@]}" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" \
        >"$log" 2>&1; then
      echo "== $target: ${#inputs[@]} inputs replayed, no finding"
    else
      status=1
      failed "$target" "$log"
    fi
  done
  exit $status
fi
for target in "${targets[@]}"; do
  [ "$runs" = 0 ] && break
  corpus="$build/corpus/$target"
  findings="$build/findings/$target"
  mkdir -p "$corpus" "$findings"
  inputs=("$corpus")
  [ -d "fuzz/corpus/$target" ] && inputs+=("fuzz/corpus/$target")
  inputs+=("$build/seeds/$target")
  dict=()
  [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
  read -r -a options <<<"$(target_options "$target")"
  echo "== $target: $runs runs (at most ${seconds}s)"
  start=$(date +%s)
  # -rss_limit_mb: a parser must never need gigabytes for a small input.
  if nice -n "$niceness" "$build/fuzz/$target" "${inputs[@]}" "${dict[@]}" -runs="$runs" \
      -max_total_time="$seconds" "${options[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/" >"$findings/log.txt" 2>&1; then
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$findings/log.txt" | tr '\n' ' '
    echo "($(( $(date +%s) - start ))s)"
  else
    status=1
    failed "$target" "$findings/log.txt"
    # The campaign records no allocation stacks: replay each artifact with ASan's defaults.
    for artifact in "$findings"/crash-* "$findings"/leak-* "$findings"/timeout-* "$findings"/oom-*; do
      # only the inputs: not the replays of an earlier failure, which match the same patterns
      [ -f "$artifact" ] && [[ "$artifact" != *.replay.txt ]] || continue
      ASAN_OPTIONS="$replay_options" "$build/fuzz/$target" "${options[@]}" -timeout=10 -rss_limit_mb=2048 \
        "$artifact" >"$artifact.replay.txt" 2>&1 || true
      echo "replayed with full stacks: $artifact.replay.txt"
    done
  fi
done
if [ "${FUZZ_MERGE:-0}" = 1 ]; then
  # Minimise: keep the smallest inputs that reach every coverage edge of all the corpora
  # together (-use_counters=0: edges, not how often they ran, so the committed corpus stays a
  # few MB; the local corpus in $build keeps the rest).
  for target in "${targets[@]}"; do
    merged="$build/merged/$target"
    rm -rf "$merged"
    mkdir -p "$merged"
    inputs=("$build/corpus/$target")
    [ -d "fuzz/corpus/$target" ] && inputs+=("fuzz/corpus/$target")
    inputs+=("$build/seeds/$target")
    read -r -a options <<<"$(target_options "$target")"
    nice -n "$niceness" "$build/fuzz/$target" -merge=1 -use_counters=0 "${options[@]}" -timeout=10 -rss_limit_mb=2048 \
      "$merged" "${inputs[@]}" >"$build/findings/$target/merge.txt" 2>&1
    rm -rf "fuzz/corpus/$target"
    mkdir -p fuzz/corpus
    cp -r "$merged" "fuzz/corpus/$target"
    echo "== $target: fuzz/corpus/$target: $(ls "fuzz/corpus/$target" | wc -l) inputs, $(du -sk "fuzz/corpus/$target" | cut -f1) KB"
  done
fi
exit $status
