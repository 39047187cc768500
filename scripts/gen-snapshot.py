#!/usr/bin/env python3
"""Writes a real-shaped PyTorch memory snapshot of N trace entries (bench/run.sh BUILD snapshot).

Usage: scripts/gen-snapshot.py OUT [--entries N] [--protocol P] [--source PICKLE] [--gzip]

The shape is the real snapshot's (tests/data/snapshot/snapshot.pickle: PyTorch 2.11 on an H200,
20 000 entries): its segments, blocks, allocator settings and annotations as they are, and N trace
entries that repeat its entries in order with their addresses and times moved on each round (so
values differ as a long run's do). Sharing is PyTorch's: every frame dict is one object for all
the stacks that hold it (so pickle writes it once and fetches it from the memo after), the key
and action strings are shared, and each entry's frames list is a new list of those shared dicts,
except where the real snapshot itself shares one list between entries (about one entry in three:
20 000 entries hold 13 309 distinct lists). Written by Python's own pickle, protocol 4 by default
(torch.cuda.memory._dump_snapshot writes pickle.dump's default, 4 or 5 by Python version).
"""
import argparse
import gzip
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--protocol", type=int, default=4)
    parser.add_argument("--source", default=os.path.join(HERE, "..", "tests", "data", "snapshot", "snapshot.pickle"))
    parser.add_argument("--gzip", action="store_true")
    args = parser.parse_args()
    with open(args.source, "rb") as f:
        real = pickle.load(f)
    entries = real["device_traces"][0]
    span = entries[-1]["time_us"] - entries[0]["time_us"] + 1
    trace = []
    round_lists = {}  # id of a real entry's frames list -> the list this round uses for it
    for i in range(args.entries):
        source = entries[i % len(entries)]
        rounds = i // len(entries)
        if i % len(entries) == 0:
            round_lists = {}
        # a list shared between real entries stays shared within a round; each round has its own
        frames = round_lists.get(id(source["frames"]))
        if frames is None:
            frames = list(source["frames"])  # a new list of the same frame dicts
            round_lists[id(source["frames"])] = frames
        entry = dict(source)
        entry["frames"] = frames
        entry["time_us"] = source["time_us"] + rounds * span
        if "addr" in entry:
            entry["addr"] = source["addr"] + (rounds % 64) * 0x100000000
        trace.append(entry)
    snapshot = dict(real)
    snapshot["device_traces"] = [trace]
    data = pickle.dumps(snapshot, protocol=args.protocol)
    if args.gzip:
        data = gzip.compress(data, compresslevel=6, mtime=0)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"{args.out}: {args.entries} entries, {len(data)} bytes")


if __name__ == "__main__":
    main()
