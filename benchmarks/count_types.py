#!/usr/bin/env python3
"""The Python baseline of the GitHub throughput figure: json.loads of a GitHub events page and a Counter of its
event types, REPEAT times (the file is read once; the time is for all of them, the counts for one)."""

import collections
import json
import sys
import time

started = time.perf_counter()
started_cpu = time.process_time()
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
with open(sys.argv[1], "rb") as handle:
    text = handle.read()
for _ in range(max(1, repeat)):
    page = json.loads(text)
    if isinstance(page, dict):
        page = [page]
    counts = collections.Counter(event["type"] for event in page)
seconds = time.perf_counter() - started
cpu_seconds = time.process_time() - started_cpu
events = len(page)
print(
    json.dumps(
        {
            "events": events,
            "bytes": len(text),
            "repeat": max(1, repeat),
            "seconds": seconds,
            "cpuSeconds": cpu_seconds,
            "eventsPerSecond": round(events * max(1, repeat) / seconds),
            "types": dict(sorted(counts.items())),
        }
    )
)
