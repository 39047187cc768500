#!/usr/bin/env python3
"""Writes a large distributed training job in stormlog's shape, for the job benchmark.

    scripts/gen-job.py OUT [--ranks 64] [--samples 100000] [--segment-events 50000] [--seed 1]

OUT/rank{N}/telemetry_sink/ is one append-only sink per rank (manifest.json and
segment-NNNNNN.jsonl files), as torchrun jobs leave them: schema 3 events written one per line
with json.dumps(..., sort_keys=True), a start, `sample` events every 100 ms with a slow drift of
the hidden gap and an all_reduce spike of three samples every 200 (clocks a few ms apart, rank 0
a sample early), phase_enter/phase_exit around each all_reduce, and a stop. Deterministic for a
seed. Never committed: the benchmark writes it under /tmp.
"""

import argparse
import json
import os
import random
import uuid

GIB = 1024**3
DEVICE_TOTAL = 80 * GIB
START_NS = 1_796_000_000_000_000_000
INTERVAL_NS = 100_000_000
SPIKE_EVERY = 200  # samples between all_reduce spikes
SPIKE_SAMPLES = 3


def session_id(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def base_event(rank, args, sid, host, kind, ts, context, metadata):
    return {
        "schema_version": 3,
        "session_id": sid,
        "timestamp_ns": ts,
        "event_type": kind,
        "collector": "stormlog.cuda_tracker",
        "sampling_interval_ms": 100,
        "pid": 5000 + rank,
        "host": host,
        "job_id": "job-bench",
        "rank": rank,
        "local_rank": rank % 8,
        "world_size": args.ranks,
        "device_id": rank % 8,
        "allocator_allocated_bytes": 0,
        "allocator_reserved_bytes": 0,
        "allocator_active_bytes": 0,
        "allocator_inactive_bytes": 0,
        "allocator_change_bytes": 0,
        "device_used_bytes": 0,
        "device_free_bytes": DEVICE_TOTAL,
        "device_total_bytes": DEVICE_TOTAL,
        "context": context,
        "metadata": metadata,
    }


def phase(rank, args, sid, host, action, ts, scope, sequence):
    path = ["train", "all_reduce"]
    metadata = {
        "backend": "cuda",
        "collective": "nccl:all_reduce",
        "phase_scope": {
            "action": action,
            "name": path[-1],
            "path": path,
            "depth": 2,
            "scope_id": "%s:%d:%d" % (sid, rank, scope),
            "parent_scope_id": None,
            "thread_id": 1,
            "thread_name": "MainThread",
            "sequence": sequence,
        },
    }
    verb = "entered" if action == "enter" else "exited"
    return base_event(rank, args, sid, host, "phase_" + action, ts, "Phase %s: train / all_reduce" % verb, metadata)


def rank_events(rank, args, rng):
    sid = session_id(rng)
    host = "gpu-node-%d" % (rank // 8)
    skew = rng.randint(-3, 3) * 1_000_000  # clocks a few ms apart
    spike_start = SPIKE_EVERY - SPIKE_SAMPLES - (1 if rank == 0 else 0)  # rank 0 a sample early: the first cause
    allocated = 32 * GIB + rank * 64 * 1024**2
    reserved = allocated + 2 * GIB
    yield base_event(rank, args, sid, host, "start", START_NS + skew, "Tracking started", {"backend": "cuda"})
    sequence = 0
    previous = allocated
    for i in range(args.samples):
        ts = START_NS + skew + (i + 1) * INTERVAL_NS
        step = i % SPIKE_EVERY
        spiking = spike_start <= step < spike_start + SPIKE_SAMPLES
        if step == spike_start:
            sequence += 1
            yield phase(rank, args, sid, host, "enter", ts - INTERVAL_NS // 2, i, sequence)
        gap = int(1.5 * GIB + 6 * GIB * i / max(args.samples, 1)) + rng.randint(-32, 32) * 1024**2
        if spiking:
            gap += 6 * GIB + rng.randint(0, 512) * 1024**2
        allocated_now = allocated + rng.randint(-256, 256) * 1024**2
        used = min(reserved + gap, DEVICE_TOTAL)
        event = base_event(rank, args, sid, host, "sample", ts, "Collected telemetry sample.", {"backend": "cuda"})
        event.update({
            "allocator_allocated_bytes": allocated_now,
            "allocator_reserved_bytes": reserved,
            "allocator_active_bytes": allocated_now,
            "allocator_inactive_bytes": reserved - allocated_now,
            "allocator_change_bytes": allocated_now - previous,
            "device_used_bytes": used,
            "device_free_bytes": DEVICE_TOTAL - used,
        })
        previous = allocated_now
        yield event
        if step == spike_start + SPIKE_SAMPLES - 1:
            sequence += 1
            yield phase(rank, args, sid, host, "exit", ts + INTERVAL_NS // 2, i - SPIKE_SAMPLES + 1, sequence)
    end = START_NS + skew + (args.samples + 1) * INTERVAL_NS
    yield base_event(rank, args, sid, host, "stop", end, "Tracking stopped", {"backend": "cuda"})


def write_rank(rank, args, rng):
    sink = os.path.join(args.out, "rank%d" % rank, "telemetry_sink")
    os.makedirs(sink, exist_ok=True)
    segments = []
    handle = None
    count = 0
    first = last = None
    sid = None

    def close():
        handle.close()
        segments[-1]["event_count"] = count
        segments[-1]["size_bytes"] = os.path.getsize(os.path.join(sink, segments[-1]["filename"]))

    for event in rank_events(rank, args, rng):
        if handle is None or count >= args.segment_events:
            if handle is not None:
                close()
            name = "segment-%06d.jsonl" % (len(segments) + 1)
            segments.append({"filename": name, "closed": True, "session_id": event["session_id"]})
            handle = open(os.path.join(sink, name), "w", encoding="utf-8")
            count = 0
        handle.write(json.dumps(event, sort_keys=True) + "\n")
        count += 1
        sid = event["session_id"]
        first = event["timestamp_ns"] if first is None else first
        last = event["timestamp_ns"]
    close()
    manifest = {
        "schema_version": 2,
        "format": "stormlog.append_only_telemetry_sink",
        "sessions": [{
            "session_id": sid,
            "status": "completed",
            "started_at_ns": first,
            "ended_at_ns": last,
            "host": "gpu-node-%d" % (rank // 8),
            "pid": 5000 + rank,
            "job_id": "job-bench",
            "rank": rank,
            "local_rank": rank % 8,
            "world_size": args.ranks,
            "source": "stormlog.cuda_tracker",
        }],
        "segments": segments,
    }
    with open(os.path.join(sink, "manifest.json"), "w", encoding="utf-8") as out:
        json.dump(manifest, out, indent=2, sort_keys=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--segment-events", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for rank in range(args.ranks):
        write_rank(rank, args, random.Random(args.seed * 1_000_003 + rank))


if __name__ == "__main__":
    main()
