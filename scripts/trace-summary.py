#!/usr/bin/env python3
"""Summarises a Tandem trace (TANDEM_TRACE / tandem-run --trace).

Prints a Markdown report: per run (the host track's "run" spans), the wall
time and the busy time of each stream; then the kernels, GEMMs, graph
replays and copies by name, with their count, total and mean time and
share of the device time, longest first. On CUDA the spans are execution
times from timing events (docs/Runtime.md, "Traces"), so this says where the
GPU's time goes; scripts/gpu-check writes one per model.

Python's standard library only: it runs on the CUDA machine, which has no
numpy. Usage: trace-summary.py TRACE.json [--top N]
"""

import argparse
import collections
import json
import sys


def summarize(events, top):
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    device = [e for e in spans if e.get("cat") in ("kernel", "copy", "graph")]
    runs = [e for e in spans if e.get("cat") == "run"]
    lines = []
    busy = collections.defaultdict(float)
    for e in device:
        busy[tracks.get(e["tid"], str(e["tid"]))] += e["dur"]
    lines.append("%d runs, %d device spans" % (len(runs), len(device)))
    if runs:
        walls = sorted(e["dur"] for e in runs)
        lines.append("run wall time: min %.1f us, median %.1f us"
                     % (walls[0], walls[len(walls) // 2]))
    lines.append("")
    lines.append("| stream | busy (us) |")
    lines.append("|---|---|")
    for name, total in sorted(busy.items(), key=lambda kv: -kv[1]):
        lines.append("| %s | %.1f |" % (name, total))
    by_name = collections.defaultdict(list)
    for e in device:
        by_name[(e.get("cat"), e["name"])].append(e["dur"])
    total = sum(sum(d) for d in by_name.values()) or 1.0
    lines.append("")
    lines.append("| kind | name | count | total (us) | mean (us) | share |")
    lines.append("|---|---|---|---|---|---|")
    ranked = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))
    for (category, name), durations in ranked[:top]:
        lines.append("| %s | %s | %d | %.1f | %.2f | %.1f%% |" % (
            category, name, len(durations), sum(durations),
            sum(durations) / len(durations), 100.0 * sum(durations) / total))
    if len(ranked) > top:
        rest = sum(sum(d) for _, d in ranked[top:])
        lines.append("| | %d more | | %.1f | | %.1f%% |"
                     % (len(ranked) - top, rest, 100.0 * rest / total))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    try:
        with open(args.trace) as f:
            events = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit("trace-summary: cannot read %s: %s" % (args.trace, error))
    if not isinstance(events, list):
        sys.exit("trace-summary: %s is not a JSON array of trace events"
                 % args.trace)
    sys.stdout.write(summarize(events, args.top))


if __name__ == "__main__":
    main()
