#!/usr/bin/env python3
"""Writes the lease fixtures of tests/data/fixtures/budget/ (run from the repository root):

  lease_healthy.text     a healthy run whose only event is one temporary lease
                         (tracing-subscriber text, hold ticks at INFO, like retention.text)
  lease_retention.jsonl  an allocator-retention run with one lease window
                         (snapshot JSON lines, like leak.jsonl)
  lease_shrinks.text     a healthy run with one lease that is never released: the budget skips
                         shrinking for 8 ticks, then the leased operation fills a cache, the
                         budget shrinks it, and rss is back within the lowered target's band
                         while the lease is still held (tracing-subscriber text)

The ticks follow the memory-budget crate's policy (budget-snapshots.md): the effective target
is the target minus the live leases, the lease's bytes are in rss while it is held, shrink
above 1.05 x the effective target, grow below 0.70 x the target. While the lease is held the
caches are flat, so the budget skips shrinking (skip-shrink-flat-caches) unless they grew;
it holds again on the tick the lease is released. Noise comes from a seeded generator, so the
output is the same on every run.
"""

import json
import random
import sys
from pathlib import Path

MiB = 1 << 20
GiB = 1 << 30
TARGET = 4 * GiB
TICK_SECONDS = 5
CACHES = ("plan_cache", "row_cache", "dict_cache")
HIT_RATES = {"plan_cache": 0.91, "row_cache": 0.66, "dict_cache": 0.99}


def stamp(start_minute, tick, fraction):
    seconds = tick * TICK_SECONDS
    minute = start_minute + seconds // 60
    hour = minute // 60
    text = f"2026-12-01T{hour:02d}:{minute % 60:02d}:{seconds % 60:02d}"
    return text + (".000000Z" if fraction else "Z")


def simulate(rng, ticks, lease_bytes, lease_first, lease_last, retention_per_tick, refill=None,
             shrink_step=64 * MiB, caps=None):
    """One snapshot per tick: buckets, caches, verdict with streak and detail.

    refill = (tick, cache, bytes): from that tick on the cache's working set grows by that many
    bytes a tick (the leased operation fills it), so the caches grow again and the budget shrinks
    them; the lowered caps stop the growth. shrink_step: the most one shrink takes from a cache's
    current bytes. caps: the caches' starting maximums."""
    # each cache fills towards its share of the working set, then stays
    plateau = {"plan_cache": 1000 * MiB, "row_cache": 950 * MiB, "dict_cache": 300 * MiB}
    current = {"plan_cache": 880 * MiB, "row_cache": 700 * MiB, "dict_cache": 130 * MiB}
    caps = dict(caps or {"plan_cache": 1200 * MiB, "row_cache": 1000 * MiB, "dict_cache": 256 * MiB})
    reporter = 600 * MiB
    other = 300 * MiB
    retention = 110 * MiB
    label, streak = None, 0
    previous_cache = None
    snapshots = []
    for tick in range(ticks):
        lease = lease_bytes if lease_first <= tick <= lease_last else 0
        if refill and tick >= refill[0]:
            plateau[refill[1]] += refill[2]
            current[refill[1]] += refill[2]
        for name in CACHES:
            current[name] += (plateau[name] - current[name]) // 8 + rng.randint(-3, 3) * MiB
            current[name] = max(0, min(current[name], caps[name]))
        cache = sum(current.values())
        live_reporter = reporter + rng.randint(-2, 2) * MiB
        live_other = other + rng.randint(-3, 3) * MiB
        retained_pages = retention + retention_per_tick * tick + rng.randint(-4, 4) * MiB
        allocated = cache + lease + live_reporter + live_other
        rss = allocated + retained_pages
        effective = max(TARGET - lease, 0)

        # the policy, as the crate applies it (caches are measured before it acts)
        before = dict(caps)
        if rss > effective * 1.05:
            # the caches did not grow since the last tick: rss grew elsewhere, shrinking them
            # would not bring it back
            flat = previous_cache is not None and cache - previous_cache < 16 * MiB
            if flat:
                verdict, detail = "skip-shrink-flat-caches", {
                    "cache_bytes": cache, "previous_cache_bytes": previous_cache, "rss_bytes": rss}
            else:
                factor = round(effective / rss, 4)
                for name in CACHES:
                    caps[name] = max(int(caps[name] * factor), current[name] - shrink_step)
                    current[name] = min(current[name], caps[name])
                verdict, detail = "shrink", {"factor": factor}
        elif rss < TARGET * 0.70:
            for name in CACHES:
                caps[name] = int(caps[name] * 1.1)
            verdict, detail = "grow", {"headroom_bytes": int(TARGET * 0.70) - rss}
        else:
            verdict, detail = "hold", {}
        previous_label, previous_streak = (label, streak) if verdict != label else (None, None)
        streak = streak + 1 if verdict == label else 1
        label = verdict
        previous_cache = cache
        caches = []
        for name in CACHES:
            hit = None if tick == 0 else round(min(1.0, HIT_RATES[name] + rng.uniform(-0.03, 0.03)), 3)
            caches.append({"name": name, "current_bytes": current[name], "previous_max_bytes": before[name],
                           "new_max_bytes": caps[name], "delta_bytes": caps[name] - before[name],
                           "hit_rate": hit})
        jemalloc = {"allocated_bytes": allocated, "active_bytes": allocated + 40 * MiB,
                    "metadata_bytes": 30 * MiB, "resident_bytes": rss - 80 * MiB,
                    "mapped_bytes": rss + 20 * MiB, "retained_bytes": 50 * MiB + retained_pages - retention}
        snapshots.append({
            "tick": tick, "target_bytes": TARGET, "effective_target_bytes": effective, "rss_bytes": rss,
            "rss_sysinfo_bytes": rss, "lease_bytes_active": lease, "jemalloc": jemalloc, "verdict": verdict,
            "verdict_detail": detail, "verdict_streak": streak, "previous_verdict_label": previous_label,
            "previous_verdict_streak": previous_streak, "caches": caches,
            "reporters": [{"name": "reasoner", "current_bytes": live_reporter}],
            "derived": {"cache": sum(c["current_bytes"] for c in caches), "reporter": live_reporter,
                        "other": live_other},
        })
    return snapshots


def text_log(snapshots, start_minute):
    prefix = " INFO memory_budget::budget: "
    lines = []
    for s in snapshots:
        when = stamp(start_minute, s["tick"], True)
        if s["previous_verdict_label"]:
            lines.append(f'{when}{prefix}verdict run ended previous_verdict="{s["previous_verdict_label"]}" '
                         f'previous_verdict_streak={s["previous_verdict_streak"]} new_verdict="{s["verdict"]}"')
        d = s["derived"]
        je = s["jemalloc"]
        non_cache = s["rss_bytes"] - d["cache"] - s["lease_bytes_active"]
        live = je["allocated_bytes"] - d["cache"] - s["lease_bytes_active"]
        detail = " ".join(f"{k}={v}" for k, v in s["verdict_detail"].items())
        lines.append(
            f"{when}{prefix}budget tick target_bytes={s['target_bytes']} "
            f"effective_target_bytes={s['effective_target_bytes']} rss_bytes={s['rss_bytes']} "
            f"rss_sysinfo_bytes={s['rss_sysinfo_bytes']} lease_bytes_active={s['lease_bytes_active']} "
            f"cache_bytes_current={d['cache']} non_cache_bytes={non_cache} non_cache_live_bytes={live} "
            f"non_cache_other_bytes={d['other']} "
            + " ".join(f"je_{k}={v}" for k, v in je.items())
            + f' verdict="{s["verdict"]}" verdict_detail="{detail}" verdict_streak={s["verdict_streak"]}')
        for c in s["caches"]:
            hit = "None" if c["hit_rate"] is None else f"Some({c['hit_rate']})"
            lines.append(f'{when}{prefix}cache tick cache="{c["name"]}" current_bytes={c["current_bytes"]} '
                         f'previous_max_bytes={c["previous_max_bytes"]} new_max_bytes={c["new_max_bytes"]} '
                         f'delta_bytes={c["delta_bytes"]} hit_rate={hit}')
        for r in s["reporters"]:
            lines.append(f'{when}{prefix}reporter tick reporter="{r["name"]}" current_bytes={r["current_bytes"]}')
    return "\n".join(lines) + "\n"


def jsonl_log(snapshots, start_minute):
    out = []
    for s in snapshots:
        record = {"timestamp": stamp(start_minute, s["tick"], False)}
        record.update({k: v for k, v in s.items() if k not in ("tick", "derived")})
        out.append(json.dumps(record))
    return "\n".join(out) + "\n"


def main():
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/fixtures/budget")
    # 10 minutes from 10:00; a 768 MiB lease held for 55 s (ticks 50..60), nothing else happens
    healthy = simulate(random.Random(17), 120, 768 * MiB, 50, 60, 0)
    (folder / "lease_healthy.text").write_text(text_log(healthy, 10 * 60))
    # 12.5 minutes from 11:00; allocator retention grows 2.5 MiB a tick; a 512 MiB lease held
    # for 100 s (ticks 80..99)
    retention = simulate(random.Random(29), 150, 512 * MiB, 80, 99, 5 * MiB // 2)
    (folder / "lease_retention.jsonl").write_text(jsonl_log(retention, 11 * 60))
    # 10 minutes from 12:00; a 512 MiB lease from tick 60 (12:05:00) to the end of the log;
    # 8 skip-shrink ticks, then plan_cache grows 40 MiB a tick from tick 68 and the budget
    # shrinks (at most 128 MiB from a cache per shrink) until rss is back within the band
    shrinks = simulate(random.Random(17), 120, 512 * MiB, 60, 119, 0, (68, "plan_cache", 40 * MiB),
                       128 * MiB)
    (folder / "lease_shrinks.text").write_text(text_log(shrinks, 12 * 60))


if __name__ == "__main__":
    main()
