#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from tests/data (fixtures/ is the copy of shared/), cut
# to a few records each so an execution stays fast. Usage: fuzz/make-seeds.sh <out-dir>
# (one sub-directory per target). The corpora are generated, never committed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
fixtures=$repo/tests/data/fixtures
data=$repo/tests/data
out=${1:?usage: make-seeds.sh <out-dir>}
mkdir -p "$out"
seed() { # seed <target> <name> <text on stdin>
  mkdir -p "$out/$1"
  cat > "$out/$1/$2"
}

# Trace JSON: JSON lines of every parity fixture, a short JSON array, wrapper, one object,
# the diagnose timeline.
for f in "$fixtures"/stormlog/parity/*.jsonl; do
  head -n 6 "$f" | seed fuzz_trace_json "$(basename "$f")"
done
head -n 6 "$fixtures/stormlog/real/cpu_sink/segment-000001.jsonl" | seed fuzz_trace_json segment.jsonl
# The fast path of JSON lines: the same lines (it compares its reading with simdjson's).
for f in "$fixtures"/stormlog/parity/*.jsonl "$fixtures/stormlog/real/cpu_sink/segment-000001.jsonl"; do
  head -n 4 "$f" | seed fuzz_jsonfastpath "$(basename "$f")"
done
# ... and values spliced into stormlog's own record shape (a leading 0x01 byte; see the target):
# the metadata a CUDA tracker writes, a phase scope, a float, nesting, a context after 0x02.
printf '\001{"backend": "cuda", "collector_consecutive_failures": 0, "collector_health_status": "healthy", "collector_last_error": null, "collector_next_retry_epoch_s": null, "collector_partial_fields": [], "sampling_source": "torch.cuda.memory_stats", "supports_device_free": true, "supports_device_total": true, "telemetry_partial": false}' |
  seed fuzz_jsonfastpath real-metadata
printf '\001{"phase_scope": {"action": "enter", "depth": 2, "name": "step", "parent_scope_id": null, "path": ["train", "step"], "scope_id": "s:1", "sequence": 1, "thread_id": 139723376164928, "thread_name": "MainThread"}}' |
  seed fuzz_jsonfastpath real-phase
printf '\001{"usage_percent": 83.25, "x": [1, -2.5e-3, {"y": [[], {}]}], "origin_thread_id": 7}\002"WARNING: Memory usage at 83.2%%"' |
  seed fuzz_jsonfastpath real-float-context
head -n 4 "$data/realshape-sample.jsonl" | seed fuzz_jsonfastpath realshape-sample.jsonl
# The follower: JSON lines written in chunks (the same lines).
for f in "$fixtures"/stormlog/parity/*.jsonl "$fixtures/stormlog/real/cpu_sink/segment-000001.jsonl"; do
  head -n 6 "$f" | seed fuzz_trace_follower "$(basename "$f")"
done
# The comparison: two traces after each other, "\n--b--\n" between them (pairs of parity
# fixtures, phases on both sides; one trace alone is compared with itself).
parity=$fixtures/stormlog/parity
for pair in "phases phasespike" "drift frag" "mixed phases"; do
  set -- $pair
  { head -n 5 "$parity/$1.jsonl"; printf -- '--b--\n'; head -n 5 "$parity/$2.jsonl"; } | seed fuzz_compare "$1-$2"
done
head -n 5 "$parity/phasespike.jsonl" | seed fuzz_compare phasespike-alone
# A job: per-rank traces after each other, "\n--input--\n" between them (the first lines of
# ranks of the distributed fixtures; a merged two-rank trace alone is cut at its middle line).
distributed=$fixtures/stormlog/distributed
extra=$fixtures/stormlog/distributed-extra
{ head -n 5 "$extra/extra-16rank-s21/rank00.jsonl"; printf -- '--input--\n'; head -n 5 "$extra/extra-16rank-s21/rank01.jsonl"; } |
  seed fuzz_job two-ranks
{ for r in 00 01 02; do head -n 3 "$extra/extra-16rank-s21/rank$r.jsonl"; printf -- '--input--\n'; done
  head -n 3 "$extra/extra-16rank-s21/rank03.jsonl"; } | seed fuzz_job four-ranks
head -n 8 "$extra/extra-2rank-s11.jsonl" | seed fuzz_job merged-two-ranks
head -n 8 "$distributed/collective-merged.jsonl" | seed fuzz_job collective-merged
# A job's analyses and report: the same jobs (a trace without a separator is one input, its
# ranks the job's).
for f in "$out"/fuzz_job/*; do
  seed fuzz_job_report "$(basename "$f")" < "$f"
done
jq -c '.[0:4]' "$fixtures/stormlog/real/cpu_phases.json" | seed fuzz_trace_json array.json
jq '.[0:3]' "$fixtures/stormlog/real/cpu_phases.json" | seed fuzz_trace_json array-pretty.json
jq -c '{events: .[0:2]}' "$fixtures/stormlog/real/cpu_phases.json" | seed fuzz_trace_json wrapper.json
jq -c '.[1]' "$fixtures/stormlog/real/cpu_phases.json" | seed fuzz_trace_json single.json
printf '{"timestamps": [1.0, 1.5, 2.25], "allocated": [10, 20, 30], "reserved": [40, 50, 60.0]}' |
  seed fuzz_trace_json timeline.json

# CSV: the header and a few rows (Python-literal metadata included).
head -n 8 "$fixtures/stormlog/real/cpu_phases.csv" | seed fuzz_trace_csv cpu_phases.csv
{ head -n 1 "$fixtures/stormlog/real/cpu_phases.csv"; grep -m 3 phase_ "$fixtures/stormlog/real/cpu_phases.csv"; } |
  seed fuzz_trace_csv phases.csv
printf 'timestamp,memory_allocated,memory_reserved,type,device\n1.5,100,200,sample,cuda:0\n2,"150",,peak,cpu\n' |
  seed fuzz_trace_csv legacy.csv

# Legacy records: array (OOM dump events.json) and lines.
printf '[\n  {"timestamp": 1.5, "memory_allocated": 100, "memory_reserved": 200, "memory_change": 10,\n   "type": "allocation", "device": "cuda:1", "total_memory": 1000},\n  {"timestamp": 2, "memory_allocated": 150, "type": "sample", "device": "cpu", "device_total": null}\n]\n' |
  seed fuzz_trace_legacy events.json
printf '{"timestamp": 1.0, "memory_allocated": 5, "total_bytes": 10}\n{"timestamp": 2.0, "memory_allocated": 6, "device": "cuda:0"}\n' |
  seed fuzz_trace_legacy legacy.jsonl

# Sink: the real manifest and its first segment lines after the separator.
{ cat "$fixtures/stormlog/real/cpu_sink/manifest.json"; printf '\n--segment--\n';
  head -n 4 "$fixtures/stormlog/real/cpu_sink/segment-000001.jsonl"; } | seed fuzz_sink_manifest cpu_sink
cat "$fixtures/stormlog/real/cpu_sink/manifest.json" | seed fuzz_sink_manifest manifest-only

# Budget logs, one form per target.
head -n 12 "$fixtures/budget/leak.text" | seed fuzz_budget_text leak.text
head -n 12 "$fixtures/budget/wedge_info_only.text" | seed fuzz_budget_text wedge.text
cp "$data/budget_mixed.text" "$out/fuzz_budget_text/"
head -n 8 "$fixtures/budget/leak.json" | seed fuzz_budget_tracing_json leak.json
cp "$data/budget_tracing.json" "$out/fuzz_budget_tracing_json/"
head -n 4 "$fixtures/budget/leak.jsonl" | seed fuzz_budget_snapshot_jsonl leak.jsonl
cp "$data/budget_snapshot.jsonl" "$out/fuzz_budget_snapshot_jsonl/"

# Python literals: the metadata cells of the CSV fixture, and hand-made ones.
python3 - "$fixtures/stormlog/real/cpu_phases.csv" "$out/fuzz_pyliteral" <<'PY'
import csv, os, sys
os.makedirs(sys.argv[2], exist_ok=True)
seen = set()
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        cell = row.get("metadata", "")
        if cell and cell not in seen and len(seen) < 8:
            seen.add(cell)
            open(os.path.join(sys.argv[2], "cell%d" % len(seen)), "w").write(cell)
PY
printf "{'a': (1, 2.5, -3e10), b'k': [None, True, False], 'u': '\\\\u00e9\\\\x41\\\\101', 1: {'n': nan, 'i': -inf}}" |
  seed fuzz_pyliteral handmade
printf '{"json": [1, {"x": "\\ud83d\\ude00"}], "r": null}' | seed fuzz_pyliteral json

# Report writers: the bytes are a FuzzedDataProvider stream; any bytes will do, markup and
# entities among them give the escaping something to chew on.
printf '<script>&lt;|a|b|\n# h\r\n=cmd,"q"' | seed fuzz_report_writers markup
head -c 2048 "$fixtures/stormlog/parity/phasespike.jsonl" | seed fuzz_report_writers trace

# PyTorch memory snapshots: the real snapshot cut to two segments and six trace entries, each
# stack to its first three frames (the dicts stay shared, so the memo shares them as PyTorch's
# pickles do), at protocols 2, 4 and 5 and gzip-compressed; the layout before 2.1 (block
# history); records to leave out; a list appended to itself.
python3 - "$data/snapshot/snapshot.pickle" "$out/fuzz_snapshot_pickle" <<'PY'
import gzip, os, pickle, sys
os.makedirs(sys.argv[2], exist_ok=True)
real = pickle.load(open(sys.argv[1], "rb"))
short = {}
def frames(f):
    return short.setdefault(id(f), f[:3])
segments = []
for s in (real["segments"][50], real["segments"][0]):
    s = dict(s, frames=frames(s["frames"]))
    s["blocks"] = [dict(b, frames=frames(b["frames"])) for b in s["blocks"]]
    segments.append(s)
entries = [dict(e, frames=frames(e["frames"])) for e in real["device_traces"][0][245:251]]
snapshot = {"segments": segments, "device_traces": [entries],
            "allocator_settings": {"max_split_size": -1, "expandable_segments": False},
            "external_annotations": real["external_annotations"][:1]}
def write(name, data):
    open(os.path.join(sys.argv[2], name), "wb").write(data)
for protocol in (2, 4, 5):
    write(f"small-p{protocol}.pickle", pickle.dumps(snapshot, protocol=protocol))
write("small.pickle.gz", gzip.compress(pickle.dumps(snapshot, protocol=4), mtime=0))
history = {"segments": [{"device": 0, "address": s["address"], "total_size": s["total_size"],
                         "blocks": [{"size": b["size"], "state": b["state"],
                                     "history": [{"addr": b["address"], "real_size": b["requested_size"],
                                                  "frames": b["frames"]}]} for b in s["blocks"]]}
                        for s in segments],
           "device_traces": [[{k: e[k] for k in ("action", "addr", "size", "stream", "frames")} for e in entries[:3]]]}
write("history.pickle", pickle.dumps(history, protocol=2))
bad = {"segments": [dict(segments[0], total_size="1"), 5], "device_traces": [[{"size": 1}, dict(entries[0], action="x")]]}
write("bad.pickle", pickle.dumps(bad, protocol=4))
l = []
l.append(l)
write("cycle.pickle", pickle.dumps(l, protocol=4))
PY

# Regression inputs found earlier stay in every corpus they came from.
for f in "$data"/fuzz_regress_*; do
  [ -e "$f" ] || continue
  target=$(basename "$f" | sed -E 's/^fuzz_regress_([a-z_]+)-.*/fuzz_\1/')
  [ -d "$out/$target" ] && cp "$f" "$out/$target/"
done
echo "seed corpora in $out:"
for d in "$out"/*/; do echo "  $(basename "$d"): $(ls "$d" | wc -l) inputs"; done
