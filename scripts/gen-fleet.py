#!/usr/bin/env python3
"""Writes a fleet of training runs in stormlog's shape, for the fleet index benchmark.

    scripts/gen-fleet.py OUT [--runs 10000] [--min-samples 200] [--max-samples 2000] [--seed 1]

OUT/day-DD/run-NNNNN/telemetry_sink/ is one append-only sink per run (manifest.json and one
segment-000001.jsonl), and one run in 25 is a 4-rank job (OUT/day-DD/job-NNNNN/rankR/telemetry_sink/),
as stormlog leaves them: schema 3 events written one per line with json.dumps(..., sort_keys=True)
(a start, `sample` events every 100 ms, phase_enter/phase_exit around train steps, a stop).
200 to 2 000 samples a run. A few percent of the runs carry each finding class: a transient
spike of the gap outside the allocator (3 %), a persistent drift (3 %), stormlog's stock
collector (device used = max(allocated, reserved): the gap cannot be observed, 3 %), the
tracker's "High fragmentation" warnings (3 %), a degraded collector (2 %), an OOM bundle beside
the sink (1 %); the rest are quiet. Deterministic for a seed. Never committed: the benchmark
writes it under /tmp.
"""

import argparse
import json
import os
import random
import uuid

GIB = 1024**3
MIB = 1024**2
DEVICE_TOTAL = 80 * GIB
START_NS = 1_796_000_000_000_000_000
INTERVAL_NS = 100_000_000
KINDS = [("spike", 0.03), ("drift", 0.03), ("blind", 0.03), ("fragmentation", 0.03), ("degraded", 0.02),
         ("oom", 0.01)]


def kind_of(rng):
    roll = rng.random()
    for kind, share in KINDS:
        if roll < share:
            return kind
        roll -= share
    return "quiet"


def event(ident, kind, ts, context, metadata, **counters):
    record = {
        "schema_version": 3, "session_id": ident["sid"], "timestamp_ns": ts, "event_type": kind,
        "collector": ident["collector"], "sampling_interval_ms": 100, "pid": ident["pid"], "host": ident["host"],
        "job_id": ident["job"], "rank": ident["rank"], "local_rank": ident["rank"], "world_size": ident["world"],
        "device_id": ident["rank"], "allocator_allocated_bytes": 0, "allocator_reserved_bytes": 0,
        "allocator_active_bytes": 0, "allocator_inactive_bytes": 0, "allocator_change_bytes": 0,
        "device_used_bytes": 0, "device_free_bytes": DEVICE_TOTAL, "device_total_bytes": DEVICE_TOTAL,
        "context": context, "metadata": metadata,
    }
    record.update(counters)
    return record


def phase(ident, action, ts, step, sequence):
    metadata = {"backend": "cuda", "phase_scope": {
        "action": action, "name": "step", "path": ["train", "step"], "depth": 2,
        "scope_id": "%s:%d" % (ident["sid"], step), "parent_scope_id": None, "thread_id": 1,
        "thread_name": "MainThread", "sequence": sequence, "attributes": {"step": step}}}
    verb = "entered" if action == "enter" else "exited"
    return event(ident, "phase_" + action, ts, "Phase %s: train / step" % verb, metadata)


def run_events(ident, kind, samples, start, rng):
    health = {"backend": "cuda", "collector_health_status": "healthy", "collector_consecutive_failures": 0}
    yield event(ident, "start", start, "Tracking started", dict(health))
    allocated = rng.randint(8, 40) * GIB
    reserved = allocated + rng.randint(1, 4) * GIB
    base_gap = rng.randint(300, 900) * MIB
    spike_at = rng.randint(samples // 4, samples * 3 // 4)
    sequence = 0
    for i in range(samples):
        ts = start + (i + 1) * INTERVAL_NS
        if i % 10 == 0:
            sequence += 1
            yield phase(ident, "enter", ts - INTERVAL_NS // 2, i // 10, sequence)
        gap = base_gap + rng.randint(-16, 16) * MIB
        if kind == "spike" and spike_at <= i < spike_at + 3:
            gap += 12 * GIB
        if kind == "drift":
            gap += int(10 * GIB * i / samples)
        alloc_now = allocated + rng.randint(-128, 128) * MIB
        used = max(alloc_now, reserved) if kind == "blind" else min(reserved + gap, DEVICE_TOTAL)
        metadata = dict(health)
        if kind == "degraded" and i == spike_at:
            metadata.update({"collector_health_status": "degraded", "collector_consecutive_failures": 3,
                             "collector_last_error": "NVML_ERROR_TIMEOUT: query took %d ms" % rng.randint(500, 900),
                             "collector_partial_fields": ["device_used_bytes"]})
        yield event(ident, "sample", ts, "Collected telemetry sample.", metadata,
                    allocator_allocated_bytes=alloc_now, allocator_reserved_bytes=reserved,
                    allocator_active_bytes=alloc_now, allocator_inactive_bytes=reserved - alloc_now,
                    device_used_bytes=used, device_free_bytes=DEVICE_TOTAL - used)
        if kind == "fragmentation" and i % 50 == 25:
            share = round(rng.uniform(80, 96), 1)
            yield event(ident, "warning", ts + 1, "High fragmentation: %.1f%%" % share,
                        {"backend": "cuda", "fragmentation": share / 100})
        if i % 10 == 9:
            sequence += 1
            yield phase(ident, "exit", ts + INTERVAL_NS // 2, i // 10, sequence)
    end = start + (samples + 1) * INTERVAL_NS
    if kind == "oom":
        yield event(ident, "error", end - 1, "OOM detected (torch.cuda.OutOfMemoryError)",
                    {"backend": "cuda", "oom_reason": "torch.cuda.OutOfMemoryError"})
    yield event(ident, "stop", end, "Tracking stopped", dict(health))


def write_sink(folder, ident, events):
    sink = os.path.join(folder, "telemetry_sink")
    os.makedirs(sink, exist_ok=True)
    count, first, last = 0, None, None
    with open(os.path.join(sink, "segment-000001.jsonl"), "w", encoding="utf-8") as handle:
        for record in events:
            handle.write(json.dumps(record, sort_keys=True) + "\n")
            count += 1
            first = record["timestamp_ns"] if first is None else first
            last = record["timestamp_ns"]
    size = os.path.getsize(os.path.join(sink, "segment-000001.jsonl"))
    manifest = {
        "schema_version": 2, "format": "stormlog.append_only_telemetry_sink",
        "sessions": [{"session_id": ident["sid"], "status": "completed", "started_at_ns": first, "ended_at_ns": last,
                      "host": ident["host"], "pid": ident["pid"], "job_id": ident["job"], "rank": ident["rank"],
                      "local_rank": ident["rank"], "world_size": ident["world"], "source": ident["collector"]}],
        "segments": [{"filename": "segment-000001.jsonl", "closed": True, "session_id": ident["sid"],
                      "event_count": count, "size_bytes": size}],
    }
    with open(os.path.join(sink, "manifest.json"), "w", encoding="utf-8") as out:
        json.dump(manifest, out, indent=2, sort_keys=True)
    return last


def write_oom_bundle(folder, ident, when_ns, index):
    stamp = "20261204T%06dZ" % (index % 240000)
    bundle = os.path.join(folder, "oom_dumps", "oom_dump_%s_%d_cuda_1" % (stamp, ident["pid"]))
    os.makedirs(bundle, exist_ok=True)
    manifest = {"bundle_name": os.path.basename(bundle), "reason": "torch.cuda.OutOfMemoryError", "backend": "cuda",
                "event_count": 0, "session_id": ident["sid"], "session_status": "interrupted",
                "created_at_utc": "2026-12-04T%02d:%02d:%02dZ" % (index // 3600 % 24, index // 60 % 60, index % 60)}
    for name, payload in (("manifest.json", manifest), ("events.json", []),
                          ("metadata.json", {"reason": "torch.cuda.OutOfMemoryError", "backend": "cuda",
                                             "exception_type": "OutOfMemoryError", "exception_module": "torch.cuda",
                                             "session_id": ident["sid"]}),
                          ("environment.json", {"python": "3.11"})):
        with open(os.path.join(bundle, name), "w", encoding="utf-8") as out:
            json.dump(payload, out, indent=2, sort_keys=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--min-samples", type=int, default=200)
    parser.add_argument("--max-samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    written = 0
    index = 0
    while written < args.runs:
        index += 1
        day = os.path.join(args.out, "day-%02d" % (index % 7 + 1))
        kind = kind_of(rng)
        samples = rng.randint(args.min_samples, args.max_samples)
        start = START_NS + index * 3_600_000_000_000
        collector = "stormlog.cuda_tracker" if kind == "blind" else "stormlog.cuda_tracker.truth"
        world = 4 if index % 25 == 0 else 1
        job = "job-%05d" % index
        folder = os.path.join(day, ("job-%05d" if world > 1 else "run-%05d") % index)
        for rank in range(world):
            ident = {"sid": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "collector": collector,
                     "pid": 1000 + index % 60000, "host": "gpu-node-%d" % (index % 32), "job": job, "rank": rank,
                     "world": world}
            run_folder = os.path.join(folder, "rank%d" % rank) if world > 1 else folder
            last = write_sink(run_folder, ident, run_events(ident, kind, samples, start, rng))
            if kind == "oom" and rank == 0:
                write_oom_bundle(run_folder, ident, last, index)
            written += 1


if __name__ == "__main__":
    main()
