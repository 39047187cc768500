#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a number of
# executions. Usage: scripts/fuzz.sh [runs per target, default 20000] [target...]
# Env: FUZZ_BUILD (build dir, default build-fuzz), FUZZ_SECONDS (time box per target,
# default 600), FUZZ_JOBS (parallel build jobs, default 2).
# A crash leaves crash-*/leak-*/timeout-* files in $FUZZ_BUILD/findings/<target>; turn each
# into tests/data/fuzz_regress_<target without fuzz_>-<what>.<ext> (see docs/robustness.md).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
shift || true
build=${FUZZ_BUILD:-build-fuzz}
seconds=${FUZZ_SECONDS:-600}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_trace_json fuzz_trace_csv fuzz_trace_legacy fuzz_sink_manifest fuzz_budget_text
           fuzz_budget_tracing_json fuzz_budget_snapshot_jsonl fuzz_pyliteral fuzz_jsonfastpath
           fuzz_report_writers fuzz_trace_follower fuzz_compare)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DGAPSCOPE_FUZZ=ON -DGAPSCOPE_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
cmake --build "$build" --parallel "${FUZZ_JOBS:-2}" --target "${targets[@]}"
bash fuzz/make-seeds.sh "$build/seeds" >/dev/null
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  findings="$build/findings/$target"
  mkdir -p "$corpus" "$findings"
  dict=()
  [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
  echo "== $target: $runs runs (at most ${seconds}s)"
  start=$(date +%s)
  # -rss_limit_mb: a parser must never need gigabytes for a small input.
  if "$build/fuzz/$target" "$corpus" "$build/seeds/$target" "${dict[@]}" -runs="$runs" \
      -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/" >"$findings/log.txt" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$findings/log.txt" | tr '\n' ' '
    echo "($(( $(date +%s) - start ))s)"
  else
    status=1
    echo "FAILED: see $findings/log.txt"
    grep -m 5 -E 'ERROR|SUMMARY|invariant|runtime error' "$findings/log.txt" || true
  fi
done
exit $status
