#!/usr/bin/env python3
"""The recurring issues upstream stormlog's `stormlog query issues` gives over this tree, by
upstream's own rules (stormlog/issues.py IssueFingerprint and normalize_text_dimension,
stormlog/query.py ArtifactCatalog and QueryStore.list_issues, stormlog/phases.py
summarize_phase_attribution), reproduced here without stormlog so that the test needs nothing
but this file's output, expected.json (tst_fleetindex compares gapscope's recurring_issues with it).

Run from this folder: python3 expected.py > expected.json (it reads tree/ and expected/)

What upstream reads here (ArtifactCatalog): the sink folders (a manifest.json with "segments"),
the OOM bundle (a manifest.json with bundle_name, reason, backend and event_count; nothing inside
it is read), and parity/*.jsonl (a .jsonl file is a telemetry source). It passes over
budget/wedge_info_only.text, snapshot/fragmented.pickle and single/nvidia-smi.csv (a .csv is a
source only when its name holds event, events, track or telemetry).

Hidden-memory findings are upstream's gap analysis at its default thresholds: for
parity/mixed.jsonl and parity/phasespike.jsonl they are upstream's own output, kept in expected/
(*.expected.json, from tests/data/fixtures/stormlog/parity; phasespike.jsonl's session id was
changed by one digit so that it is a run of its own, not a copy of mixed.jsonl). The sinks have
none: stock and the four DDP ranks record device used as max(allocated, reserved) (gap 0), and
on the truth and frag cuts the gap stays below upstream's 5 % gate with nothing hidden by it
(tests/data/fixtures/real-gpu/README.md).
"""

import hashlib
import json
import os
import re
from collections import defaultdict
from datetime import datetime, timezone

_RE_NUMERIC = re.compile(r"(?<!\w)\d+(?:\.\d+)?%?(?!\w)")
_RE_HEX = re.compile(r"0x[0-9a-fA-F]+")
_RE_SPACE = re.compile(r"\s+")
_SEVERITY_RANK = {"critical": 0, "error": 0, "warning": 1, "info": 2}


def norm_text(value, default="unknown"):
    if value is None:
        return default
    text = str(value).strip().lower()
    if not text:
        return default
    text = _RE_HEX.sub("<hex>", text)
    text = _RE_NUMERIC.sub("<num>", text)
    return _RE_SPACE.sub(" ", text)


def norm_value(value):
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, str):
        return norm_text(value)
    if isinstance(value, list):
        return sorted((norm_value(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return norm_text(value)


def fingerprint(kind, dimensions):
    dims = {k: norm_value(v) for k, v in sorted(dimensions.items())}
    payload = {"schema_version": 1, "kind": kind, "dimensions": dims}
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return "issue:" + hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:24]


def phase_summary(attribution):
    if attribution is None:
        return None
    summary = attribution.get("phase_summary")
    if summary is not None:
        prefix = "(likely) " if summary.get("source") == "heuristic" else ""
        return prefix + summary["phase_path"]
    labels = [p for p in attribution.get("phase_paths") or [] if p]
    if attribution.get("phase_resolution") == "unique":
        if attribution.get("phase_path"):
            return attribution["phase_path"]
        return labels[0] if len(labels) == 1 else None
    if attribution.get("phase_resolution") == "ambiguous" and labels:
        return "(ambiguous) " + " | ".join(labels)
    return None


issues = {}


def accumulate(kind, dimensions, severity, seen_ns, session_id):
    fid = fingerprint(kind, dimensions)
    item = issues.setdefault(fid, {"fingerprint": fid, "kind": kind, "severity": severity, "hit_count": 0,
                                   "sessions": set(), "first_seen_ns": None, "last_seen_ns": None})
    item["hit_count"] += 1
    if session_id:
        item["sessions"].add(session_id)
    if seen_ns is not None:
        item["first_seen_ns"] = seen_ns if item["first_seen_ns"] is None else min(item["first_seen_ns"], seen_ns)
        item["last_seen_ns"] = seen_ns if item["last_seen_ns"] is None else max(item["last_seen_ns"], seen_ns)
    if _SEVERITY_RANK.get(severity, 9) < _SEVERITY_RANK.get(item["severity"], 9):
        item["severity"] = severity


def backend_of(event):
    return norm_text((event.get("metadata") or {}).get("backend"))


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


sources = []  # (path, events)
bundles = []
HERE = os.path.dirname(os.path.abspath(__file__))
for folder, dirs, files in sorted(os.walk(os.path.join(HERE, "tree"))):
    dirs.sort()
    if "manifest.json" in files:
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        if all(k in manifest for k in ("bundle_name", "reason", "backend", "event_count")):
            bundles.append(manifest)
            dirs[:] = []  # nothing inside a bundle is read
            continue
        if manifest.get("format") == "stormlog.append_only_telemetry_sink" or "segments" in manifest:
            events = []
            for name in sorted(f for f in files if f.startswith("segment-") and f.endswith(".jsonl")):
                events += read_lines(os.path.join(folder, name))
            sources.append((folder, events))
            continue
    for name in sorted(files):
        if name.endswith(".jsonl") and not name.startswith("segment-"):
            sources.append((os.path.join(folder, name), read_lines(os.path.join(folder, name))))

# list_issues: OOM bundles, then every event, then the hidden-memory findings of each source
for manifest in bundles:
    created = datetime.fromisoformat(manifest["created_at_utc"].replace("Z", "+00:00")).astimezone(timezone.utc)
    accumulate("oom", {"backend": manifest.get("backend") or None, "reason": manifest.get("reason") or None},
               "critical", int(created.timestamp() * 1_000_000_000), manifest.get("session_id"))

for _, events in sources:
    for event in sorted(events, key=lambda e: e["timestamp_ns"]):
        metadata = event.get("metadata") or {}
        event_type = event["event_type"]
        health = norm_text(metadata.get("collector_health_status"))
        if event_type == "error" and ("oom_reason" in metadata or "oom_dump_path" in metadata):
            accumulate("oom", {"backend": backend_of(event), "reason": metadata.get("oom_reason")}, "critical",
                       event["timestamp_ns"], event.get("session_id"))
        elif event_type == "collector_degraded" or health in ("degraded", "unhealthy"):
            status = norm_text(metadata.get("collector_health_status"), default="degraded")
            partial = metadata.get("collector_partial_fields")
            if not isinstance(partial, list):
                partial = []
            last_error = norm_text(metadata.get("collector_last_error"))
            stem = last_error
            if stem != "unknown":
                for separator in (":", "\n"):
                    if separator in stem:
                        stem = stem.split(separator, 1)[0].strip()
                stem = stem[:120] or "unknown"
            accumulate("collector_degradation",
                       {"collector": event.get("collector"), "backend": backend_of(event), "health_status": status,
                        "partial_fields": partial, "error_stem": stem},
                       "critical" if status == "unhealthy" else "warning", event["timestamp_ns"], event.get("session_id"))
        elif event_type in ("warning", "critical", "error") or metadata.get("severity") in ("warning", "critical", "error"):
            severity = metadata.get("severity")
            if isinstance(severity, str) and severity.strip():
                severity = norm_text(severity)
            else:
                severity = "critical" if event_type in ("critical", "error") else (
                    "warning" if event_type == "warning" else "info")
            context = norm_text(event.get("context"))
            if "fragmentation" in context:
                category = "high_fragmentation"
            elif "oom" in context or "out of memory" in context:
                category = "oom_alert"
            elif context == "unknown":
                category = "generic_alert"
            else:
                category = context
            accumulate("alert", {"event_type": event_type, "severity": severity, "collector": event.get("collector"),
                                 "backend": backend_of(event), "category": category},
                       severity, event["timestamp_ns"], event.get("session_id"))

for path, events in sources:
    expected = os.path.join(HERE, "expected", os.path.splitext(os.path.basename(path))[0] + ".expected.json")
    if not os.path.exists(expected):
        continue  # a sink: no finding at the default thresholds (see above)
    for finding in json.load(open(expected))["gap_analysis"]:
        at = finding["evidence_timestamp_ns"]
        evidence = next((e for e in sorted(events, key=lambda e: e["timestamp_ns"]) if e["timestamp_ns"] == at), None)
        accumulate("hidden_memory_anomaly",
                   {"classification": finding["classification"], "severity": finding["severity"],
                    "phase": phase_summary(finding.get("phase_attribution")),
                    "collector": evidence["collector"] if evidence else "unknown",
                    "backend": backend_of(evidence) if evidence else "unknown"},
                   finding["severity"], at, events[0].get("session_id"))

rows = []
for item in sorted(issues.values(), key=lambda i: (_SEVERITY_RANK.get(i["severity"], 9), -(i["last_seen_ns"] or -1),
                                                   i["fingerprint"])):
    item["session_count"] = len(item.pop("sessions"))
    rows.append(item)
print(json.dumps(rows, indent=1, sort_keys=True))
