#!/usr/bin/env python3
"""The totals tst_snapshot asserts, computed from the snapshots with Python's own pickle.load.

Usage: python3 tests/data/snapshot/expected.py [PICKLE...]   (default: the two real snapshots)

For each snapshot it prints what gapscope's summary must equal (summarizeSnapshot, and
`gapscope analyze --format json`'s `snapshot` object) and, beside it, the allocator's own
counters from memory_stats.json in the same folder (torch.cuda.memory_stats() taken right after
the dump). The definitions are the summary's (model/snapshot/SnapshotSummary.h):

  reserved_bytes           sum of every segment's total_size
  allocated_bytes          sum of the sizes of blocks in state active_allocated
  active_bytes             allocated + the sizes of blocks in state active_pending_free
  requested_bytes          sum of requested_size over active_allocated blocks
  inactive_split_bytes     sizes of inactive blocks in segments of more than one block (a
                           segment that is one free block is not split)
  largest_free_block_bytes the largest inactive block
  distinct_stacks          stacks of frames that differ in content (an empty one not counted)
  distinct_frames          {name, filename, line} that differ
"""
import collections
import gzip
import json
import os
import pickle
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return pickle.load(f)


def summary(snapshot):
    segments = snapshot.get("segments", [])
    allocated = pending = requested = inactive_split = largest_free = 0
    blocks = collections.Counter()
    for segment in segments:
        split = len(segment["blocks"]) > 1
        for block in segment["blocks"]:
            blocks[block["state"]] += 1
            if block["state"] == "active_allocated":
                allocated += block["size"]
                # before PyTorch 2.1 a block had no requested_size: its latest history entry's
                # real_size (upstream's _memory_viz reads history[0]), else its size
                history = block.get("history") or [{}]
                requested += block.get("requested_size", history[0].get("real_size", block["size"]))
            elif block["state"] == "active_pending_free":
                pending += block["size"]
            elif block["state"] == "inactive":
                largest_free = max(largest_free, block["size"])
                if split:
                    inactive_split += block["size"]
    actions = collections.Counter(
        entry["action"] for trace in snapshot.get("device_traces", []) for entry in trace)
    stacks, frames = set(), set()
    for holder in ([s for s in segments] + [b for s in segments for b in s["blocks"]] +
                   [e for trace in snapshot.get("device_traces", []) for e in trace]):
        history = holder.get("history") or [{}]
        stack = tuple((f["name"], f["filename"], f["line"]) for f in holder.get("frames", history[0].get("frames", [])))
        if stack:
            stacks.add(stack)
        frames.update(stack)
    pools = collections.Counter(str(tuple(s.get("segment_pool_id", (0, 0)))) for s in segments)
    streams = collections.Counter(s["stream"] for s in segments)
    return {
        "segment_count": len(segments),
        "block_count": sum(blocks.values()),
        "blocks_by_state": dict(sorted(blocks.items())),
        "reserved_bytes": sum(s["total_size"] for s in segments),
        "allocated_bytes": allocated,
        "active_bytes": allocated + pending,
        "requested_bytes": requested,
        "inactive_split_bytes": inactive_split,
        "largest_free_block_bytes": largest_free,
        "trace_entry_count": sum(actions.values()),
        "trace_entries_by_action": dict(sorted(actions.items())),
        "distinct_stacks": len(stacks),
        "distinct_frames": len(frames),
        "segments_by_pool": dict(sorted(pools.items())),
        "segments_by_stream": dict(sorted(streams.items())),
        "oom_entries": [
            {k: v for k, v in entry.items() if k != "frames"}
            for trace in snapshot.get("device_traces", []) for entry in trace if entry["action"] == "oom"],
    }


def timeline(snapshot, device=0):
    """What tst_snapshottimeline asserts of one device's timeline (model/snapshot/SnapshotTimeline).

    Counters: walked back from the snapshot's allocated and reserved bytes (alloc +, free_requested
    -, segment_alloc/segment_map +, segment_free/segment_unmap -). Allocations and their level: the
    rules of PyTorch's torch/utils/viz/MemoryViz.js (process_alloc_data), whose max_size is the
    peak here.
    """
    trace = snapshot.get("device_traces", [])[device]
    segments = [s for s in snapshot.get("segments", []) if s.get("device", 0) == device]
    allocated = sum(b["size"] for s in segments for b in s["blocks"] if b["state"] == "active_allocated")
    reserved = sum(s["total_size"] for s in segments)
    low_allocated = high_allocated = allocated
    for entry in reversed(trace):
        action, size = entry["action"], entry.get("size", 0)
        if action == "alloc":
            allocated -= size
        elif action == "free_requested":
            allocated += size
        elif action in ("segment_alloc", "segment_map"):
            reserved -= size
        elif action in ("segment_free", "segment_unmap"):
            reserved += size
        low_allocated, high_allocated = min(low_allocated, allocated), max(high_allocated, allocated)
    opened, before, deltas = {}, [], []
    count = 0
    for entry in trace:
        action = entry["action"]
        if action == "alloc":
            opened[entry["addr"]] = entry["size"]
            count += 1
            deltas.append(entry["size"])
        elif action in ("free", "free_completed"):
            if entry["addr"] in opened:
                deltas.append(-opened.pop(entry["addr"]))
            else:
                before.append(entry["size"])
                deltas.append(-entry["size"])
        else:
            deltas.append(0)
    for s in segments:
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in opened:
                before.append(b["requested_size"])
    level = peak = sum(before)
    initial_active, peak_entry = level, -1
    for j, delta in enumerate(deltas):
        level += delta
        if level > peak:
            peak, peak_entry = level, j
    return {
        "initial_allocated_bytes": allocated,
        "initial_reserved_bytes": reserved,
        "lowest_allocated_bytes": low_allocated,
        "highest_allocated_bytes": high_allocated,
        "allocations": count + len(before),
        "live_before_trace": len(before),
        "live_at_snapshot": len(opened) + sum(1 for s in segments for b in s["blocks"]
                                              if b["state"] == "active_allocated" and b["address"] not in opened),
        "initial_active_bytes": initial_active,
        "final_active_bytes": level,
        "peak_active_bytes": peak,
        "peak_entry": peak_entry,
        "segment_entries": sum(1 for e in trace if e["action"].startswith("segment_")),
        "oom_entries": [j for j, e in enumerate(trace) if e["action"] == "oom"],
    }


ALLOCATOR_FRAME_PREFIXES = ("torch::unwind::", "torch::CapturedTraceback::", "torch::cuda::(anonymous namespace)::gather",
                            "c10::cuda::CUDACachingAllocator::")


def top_frame(stack):
    """The frame a site is named after, None when there is none."""
    frames = [f for f in stack if not f[0].startswith(ALLOCATOR_FRAME_PREFIXES)]
    frames = [f for f in frames if f[1].endswith(".py")] + [f for f in frames if not f[1].endswith(".py")]
    return frames[0] if frames else None


def site_name(stack, function=False):
    """A site's display name (model/snapshot/SnapshotSegmentMap's stackTopFrames, first frame): the
    innermost Python frame (filename ending in .py), else the innermost frame that is not the
    allocator's own; "name (file:line)" (by function: "name (file)"), the name alone for a frame with
    no line."""
    if not stack:
        return "(no stack recorded)"
    if top_frame(stack) is None:
        return "(allocator frames only)"
    name, filename, line = top_frame(stack)
    if line <= 0:
        return name[:160]
    return f"{name[:160]} ({filename[:160]})" if function else f"{name[:160]} ({filename[:160]}:{line})"


def sites(snapshot, device=0, function=False):
    """What tst_snapshotsites asserts (model/snapshot/SnapshotSites): the allocations of the timeline
    (MemoryViz.js's pairing, as `timeline`) grouped by their stack of frames (function=True: by the
    function of the site's name), with the bytes live right after the peak entry, the bytes of the
    snapshot's active_allocated blocks, the count, the largest and the total; sorted by bytes at peak,
    then bytes at the snapshot, then total bytes, descending."""
    trace = snapshot.get("device_traces", [])[device]
    segments = [s for s in snapshot.get("segments", []) if s.get("device", 0) == device]

    def stack_of(holder):
        history = holder.get("history") or [{}]
        return tuple((f["name"], f["filename"], f["line"]) for f in holder.get("frames", history[0].get("frames", [])))

    allocations, opened = [], {}  # [stack, size, begin, end]; begin -1: before the trace, end None: live
    before = []
    for j, entry in enumerate(trace):
        if entry["action"] == "alloc":
            allocation = [stack_of(entry), entry["size"], j, None]
            opened[entry["addr"]] = allocation
            allocations.append(allocation)
        elif entry["action"] in ("free", "free_completed"):
            if entry["addr"] in opened:
                opened.pop(entry["addr"])[3] = j
            else:
                before.append([stack_of(entry), entry["size"], -1, j])
    for s in segments:
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in opened:
                before.append([stack_of(b), b["requested_size"], -1, None])
    allocations = before + allocations
    level = peak = sum(a[1] for a in before)
    peak_entry = -1
    deltas = collections.defaultdict(int)
    for a in allocations:
        if a[2] >= 0:
            deltas[a[2]] += a[1]
        if a[3] is not None:
            deltas[a[3]] -= a[1]
    for j in range(len(trace)):
        level += deltas[j]
        if level > peak:
            peak, peak_entry = level, j

    def key(stack):
        # by function: the top frame's name and file (its line left out); the stacks without one by
        # what their name says
        if not function:
            return stack
        frame = top_frame(stack)
        return frame[:2] if frame else site_name(stack)

    groups = {}
    for stack, size, begin, end in allocations:
        g = groups.setdefault(key(stack), {"name": site_name(stack, function), "bytes_at_peak": 0,
                                           "bytes_at_snapshot": 0, "allocations": 0, "largest_bytes": 0,
                                           "total_bytes": 0})
        if begin <= peak_entry and (end is None or end > peak_entry):
            g["bytes_at_peak"] += size
        g["allocations"] += 1
        g["largest_bytes"] = max(g["largest_bytes"], size)
        g["total_bytes"] += size
    for s in segments:
        for b in s["blocks"]:
            if b["state"] == "active_allocated":
                groups[key(stack_of(b))]["bytes_at_snapshot"] += b["size"]
    ordered = sorted(groups.values(),
                     key=lambda g: (-g["bytes_at_peak"], -g["bytes_at_snapshot"], -g["total_bytes"]))
    return {
        "peak_active_bytes": peak,
        "site_count": len(ordered),
        "bytes_at_peak": sum(g["bytes_at_peak"] for g in ordered),
        "bytes_at_snapshot": sum(g["bytes_at_snapshot"] for g in ordered),
        "allocations": sum(g["allocations"] for g in ordered),
        "top": ordered[:3],
    }


def memory_stats(path):
    stats_path = os.path.join(os.path.dirname(path), "memory_stats.json")
    if not os.path.exists(stats_path):
        return None
    with open(stats_path) as f:
        stats = json.load(f)
    names = ["reserved_bytes", "allocated_bytes", "active_bytes", "requested_bytes", "inactive_split_bytes"]
    return {name: stats[name + ".all.current"] for name in names} | {
        "segment_count": stats["segment.all.current"]}


def main():
    paths = sys.argv[1:] or [os.path.join(HERE, "snapshot.pickle"), os.path.join(HERE, "pair", "snapshot.pickle.gz")]
    for path in paths:
        print(os.path.relpath(path, HERE))
        snapshot = load(path)
        ours = summary(snapshot)
        print(json.dumps(ours, indent=2))
        for device in range(len(snapshot.get("device_traces", []))):
            print(f"timeline of device {device}:", json.dumps(timeline(snapshot, device), indent=2))
            print(f"sites of device {device}:", json.dumps(sites(snapshot, device), indent=2))
            print(f"sites by function of device {device}:", json.dumps(sites(snapshot, device, True), indent=2))
        stats = memory_stats(path)
        if stats:
            for name, value in stats.items():
                verdict = "equal" if ours[name] == value else f"differs by {ours[name] - value}"
                print(f"  memory_stats {name}: {value} ({verdict})")


if __name__ == "__main__":
    main()
