#!/usr/bin/env bash
# Builds and runs every test. Usage: scripts/test.sh [build-dir] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/build.sh "$@"
ctest --test-dir "$build" --output-on-failure --parallel "$(nproc)"
