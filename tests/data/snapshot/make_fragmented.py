#!/usr/bin/env python3
"""Writes layouts/fragmented.pickle: a snapshot shaped as PyTorch 2.11 writes it whose default pool
is fragmented (tst_snapshotsegmentmap, tst_snapshotpage). Nothing real: sizes chosen so the rule of
model/snapshot/SnapshotFragmentation fires on one pool and not on the other.

  stream 0, default pool: two 512 MiB segments, each [active 64 MiB, inactive 200 MiB,
      active 48 MiB (pending free in the second), inactive 200 MiB]: 800 MiB inactive split of
      1 GiB reserved (78.1 %): a Warning
  stream 7, pool (1, 2): one 2 MiB small segment [active 1 MiB, inactive 1 MiB]: 1 MiB split,
      below the 128 MiB floor: none
The first active block has a stack of C++ frames with two Python frames after them (the order
PyTorch writes: innermost first), for the tooltip's Python-first order.

Usage: python3 tests/data/snapshot/make_fragmented.py
"""
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20

FRAMES = [
    {"name": "torch::unwind::unwind()", "filename": "??", "line": 0},
    {"name": "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)",
     "filename": "CUDACachingAllocator.cpp", "line": 0},
    {"name": "forward", "filename": "/work/model.py", "line": 42},
    {"name": "train_step", "filename": "/work/train.py", "line": 7},
]


def block(address, size, state, frames=()):
    return {"address": address, "size": size, "requested_size": size if state != "inactive" else 0,
            "state": state, "frames": list(frames)}


def segment(address, stream, pool, seg_type, blocks):
    total = sum(b["size"] for b in blocks)
    allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
    active = sum(b["size"] for b in blocks if b["state"].startswith("active"))
    return {"device": 0, "address": address, "total_size": total, "allocated_size": allocated,
            "active_size": active, "requested_size": allocated, "stream": stream,
            "segment_type": seg_type, "segment_pool_id": pool, "is_expandable": False, "frames": [],
            "blocks": blocks}


def split_segment(address, second_state, frames=()):
    sizes = [(64 * MiB, "active_allocated"), (200 * MiB, "inactive"), (48 * MiB, second_state),
             (200 * MiB, "inactive")]
    blocks, at = [], address
    for i, (size, state) in enumerate(sizes):
        blocks.append(block(at, size, state, frames if i == 0 else ()))
        at += size
    return segment(address, 0, (0, 0), "large", blocks)


def main():
    base = 0x7F0000000000
    snapshot = {
        "segments": [
            split_segment(base + 512 * MiB, "active_pending_free"),
            split_segment(base, "active_allocated", FRAMES),
            segment(base + 2048 * MiB, 7, (1, 2), "small",
                    [block(base + 2048 * MiB, MiB, "active_allocated"),
                     block(base + 2049 * MiB, MiB, "inactive")]),
        ],
        "device_traces": [[
            {"action": "segment_alloc", "addr": base, "size": 512 * MiB, "stream": 0, "time_us": 1,
             "frames": FRAMES},
            {"action": "alloc", "addr": base, "size": 64 * MiB, "stream": 0, "time_us": 2, "frames": FRAMES},
        ]],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                               "garbage_collection_threshold": 0.0, "expandable_segments": False},
    }
    os.makedirs(os.path.join(HERE, "layouts"), exist_ok=True)
    with open(os.path.join(HERE, "layouts", "fragmented.pickle"), "wb") as f:
        pickle.dump(snapshot, f, protocol=4)


if __name__ == "__main__":
    main()
