#!/usr/bin/env bash
# Builds gapscope with AddressSanitizer + UndefinedBehaviorSanitizer and runs every test.
# Usage: scripts/test-asan.sh [build-dir] [extra cmake args...]
# -O1 -g0 keeps the build fast on a 2-core CI runner; ASan still names the functions of a
# report (symbols), only the source lines are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
shift || true
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g0" \
  -DGAPSCOPE_SANITIZE=ON -DGAPSCOPE_FUZZ=OFF "$@"
cmake --build "$build" --parallel "$(nproc)"
suppressions="$PWD/scripts/lsan.supp"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$suppressions:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)"
