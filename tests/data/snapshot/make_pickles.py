#!/usr/bin/env python3
"""Writes the small snapshots and the hostile pickles tst_snapshotloader and tst_picklereader read.

Usage: python3 tests/data/snapshot/make_pickles.py   (rewrites layouts/ and hostile/ beside it)

layouts/: real-shaped snapshots cut from snapshot.pickle (the real one, PyTorch 2.11) with
Python's own pickle, so the frames are shared through the memo as PyTorch's are:
  small-p2.pickle, small-p4.pickle, small-p5.pickle  3 segments (one free, two split), 40 trace
                          entries (alloc, free_requested, free_completed, segment_alloc), protocols 2/4/5
  unknown-keys.pickle     the same with keys no PyTorch wrote, at every level
  no-traces.pickle        torch.cuda.memory._snapshot() without device_traces
  empty-traces.pickle     device_traces of one empty list, no allocator_settings
  history.pickle          the layout before PyTorch 2.1: blocks with `history` instead of
                          address / requested_size / frames, no time_us, no segment_pool_id
  two-devices.pickle      segments and traces of devices 0 and 1
  small.pickle.gz         small-p4.pickle, gzip-compressed
  bad-fields.pickle       records to leave out: a str total_size, a segment that is an int, one
                          without address, entries without action, with a negative size, a str
                          entry; one with an action no PyTorch wrote, one at address 2^64 - 1 (kept)
                          and one at 2^64 (left out)
  segments-list.pickle    PyTorch 1.13's torch.cuda.memory_snapshot(): a list of segments
hostile/: pickles that must be refused, nothing run:
  reduce-os-system-p4.pickle  an object whose __reduce__ is (os.system, ("touch ...",)), protocol 4
  reduce-os-system-p2.pickle  the same, protocol 2 (GLOBAL)
  global-p0.pickle            the same, protocol 0 (text)
  deep-list.pickle            a list nested 200 000 deep, as Python's pickler would write it
                              (EMPTY_LIST MEMOIZE ... APPEND ...; pickle.dumps itself cannot:
                              RecursionError)
  deep-marks.pickle           200 000 MARKs open
  binget-unset.pickle         BINGET of memo 5, never set
  huge-length.pickle          BINUNICODE8 announcing 2^62 bytes
values.jsonl: one line per Python value and protocol (0 to 5): the pickle (hex) and the value's
repr, which tst_picklereader compares with PickleArena::reprText; where Python's pickler writes
code opcodes for a value (bytes before protocol 3, sets before 4, bytearray before 5: REDUCE of a
GLOBAL), the line says which opcode comes first and where, and the reader must refuse it there.
Nothing here is unpickled except the real snapshot.
"""
import copy
import gzip
import json
import os
import pickle
import pickletools

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "/tmp/gapscope-hostile-pickle-was-run"


class RunsCode:
    def __reduce__(self):
        return (os.system, ("touch " + MARKER,))


def write(folder, name, data):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), "wb") as f:
        f.write(data)


def small(real):
    # a shallow cut: the frame dicts stay the same objects, so pickle shares them through the memo.
    # Three segments: one free (one inactive block), two split (active and inactive blocks); 40
    # trace entries around the first segment_alloc (alloc, free_requested, free_completed).
    cut = dict(real)
    cut["segments"] = [real["segments"][i] for i in (0, 31, 50)]
    cut["device_traces"] = [trace[230:270] for trace in real["device_traces"]]
    cut["external_annotations"] = real.get("external_annotations", [])[:4]
    return cut


# Python expressions of the values the reader must read as Python does, at every protocol.
VALUES = [
    "None", "True", "False", "0", "1", "255", "256", "65535", "65536", "-1", "-256", "2**31 - 1", "-2**31",
    "2**31", "2**63 - 1", "-2**63", "2**63", "2**64 - 1", "2**64", "-2**64 - 1", "10**30", "-10**30",
    "1.5", "-0.0", "1e300", "5e-324", "float('inf')", "float('-inf')", "0.1",
    "''", "'abc'", "'\u00fcn\u00ef\u20ac\U0001f600'", "'a\\nb\\\\c'", "\"q'uote\"", "'x' * 300",
    "b''", "b'\\x00\\xffab'", "bytearray(b'ab')",
    "()", "(1,)", "(1, 2)", "(1, 2, 3)", "(1, 2, 3, 4)", "[]", "[1, [2, [3, []]]]", "{}",
    "{'a': 1, 'b': [1, 2], 3: None}", "{1, 2, 3}", "frozenset({4})", "set()", "frozenset()",
    "[('shared', 1.25)] * 3", "list(range(2500))", "{i: str(i) for i in range(1200)}",
    "[{'name': 'f', 'filename': 'a.py', 'line': 3}] * 2",
]
CODE_OPCODES = {"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX", "EXT1",
                "EXT2", "EXT4", "PERSID", "BINPERSID", "NEXT_BUFFER", "READONLY_BUFFER"}


def values_lines():
    for expr in VALUES:
        value = eval(expr)
        for protocol in range(6):
            data = pickle.dumps(value, protocol=protocol)
            line = {"expr": expr, "protocol": protocol, "hex": data.hex()}
            code = next(((op.name, pos) for op, _, pos in pickletools.genops(data) if op.name in CODE_OPCODES), None)
            if code:
                line["refused"] = {"opcode": code[0], "offset": code[1]}
            else:
                line["repr"] = repr(bytes(value) if isinstance(value, bytearray) else value)
            yield json.dumps(line, ensure_ascii=False)


def main():
    with open(os.path.join(HERE, "values.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(values_lines()) + "\n")
    with open(os.path.join(HERE, "snapshot.pickle"), "rb") as f:
        real = pickle.load(f)
    base = small(real)
    for protocol in (2, 4, 5):
        write("layouts", f"small-p{protocol}.pickle", pickle.dumps(base, protocol=protocol))
    write("layouts", "small.pickle.gz", gzip.compress(pickle.dumps(base, protocol=4), mtime=0))

    unknown = copy.deepcopy(base)
    unknown["future_top_level"] = {"nested": [1, 2.5, None]}
    unknown["segments"][0]["new_segment_field"] = 7
    unknown["segments"][0]["blocks"][0]["new_block_field"] = "x"
    unknown["device_traces"][0][0]["new_entry_field"] = (1, 2)
    unknown["device_traces"][0][1]["frames"][0]["column"] = 12
    unknown["allocator_settings"]["new_setting"] = 3
    write("layouts", "unknown-keys.pickle", pickle.dumps(unknown, protocol=4))

    no_traces = {"segments": base["segments"], "allocator_settings": base["allocator_settings"]}
    write("layouts", "no-traces.pickle", pickle.dumps(no_traces, protocol=4))
    write("layouts", "empty-traces.pickle", pickle.dumps({"segments": base["segments"], "device_traces": [[]]}, protocol=4))

    # before 2.1: a block had no address, requested_size nor frames; its history, newest first,
    # had them
    history = {"segments": [], "device_traces": [[]]}
    for segment in base["segments"]:
        old = {k: segment[k] for k in ("device", "address", "total_size", "allocated_size", "active_size",
                                       "stream", "segment_type")}
        old["blocks"] = []
        for block in segment["blocks"]:
            entry = {"size": block["size"], "state": block["state"]}
            if block["state"] != "inactive":
                entry["history"] = [{"addr": block["address"], "real_size": block["requested_size"],
                                     "frames": block["frames"]},
                                    {"addr": block["address"], "real_size": 1, "frames": []}]
            old["blocks"].append(entry)
        history["segments"].append(old)
    for entry in base["device_traces"][0]:
        history["device_traces"][0].append({k: entry[k] for k in ("action", "addr", "size", "stream", "frames")})
    write("layouts", "history.pickle", pickle.dumps(history, protocol=2))

    two = copy.deepcopy(base)
    second = copy.deepcopy(base["segments"][:2])
    for segment in second:
        segment["device"] = 1
    two["segments"] = base["segments"] + second
    two["device_traces"] = [base["device_traces"][0], base["device_traces"][0][:10]]
    write("layouts", "two-devices.pickle", pickle.dumps(two, protocol=4))

    # records a reader must leave out (with a problem each) while it reads the rest
    bad = {"segments": [base["segments"][0], dict(base["segments"][1], total_size="12"), 5,
                        {k: v for k, v in base["segments"][2].items() if k != "address"}],
           "device_traces": [[base["device_traces"][0][0],
                              {"addr": 1, "size": 2},
                              dict(base["device_traces"][0][1], size=-5),
                              dict(base["device_traces"][0][2], action="future_action"),
                              "not an entry",
                              dict(base["device_traces"][0][3], addr=2**64 - 1),
                              dict(base["device_traces"][0][4], addr=2**64)]]}
    write("layouts", "bad-fields.pickle", pickle.dumps(bad, protocol=4))
    # torch.cuda.memory_snapshot() of PyTorch 1.13: the list of segments alone
    write("layouts", "segments-list.pickle", pickle.dumps(base["segments"], protocol=4))

    write("hostile", "reduce-os-system-p4.pickle", pickle.dumps(RunsCode(), protocol=4))
    write("hostile", "reduce-os-system-p2.pickle", pickle.dumps(RunsCode(), protocol=2))
    write("hostile", "global-p0.pickle", pickle.dumps(RunsCode(), protocol=0))
    depth = 200_000
    write("hostile", "deep-list.pickle", b"\x80\x04" + b"]\x94" * depth + b"a" * (depth - 1) + b".")
    write("hostile", "deep-marks.pickle", b"\x80\x04" + b"(" * depth + b"]" + b"l" * depth + b".")
    write("hostile", "binget-unset.pickle", b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00h\x05\x85\x94.")
    write("hostile", "huge-length.pickle", b"\x80\x04\x8d" + (2**62).to_bytes(8, "little") + b"abc.")


if __name__ == "__main__":
    main()
