#!/usr/bin/env python3
"""The Python baseline of the GitHub throughput figure: json.loads of a GitHub events page and a Counter of its
event types, REPEAT times (the file is read once; the time is for all of them, the counts for one)."""

import collections
import json
import sys
import time

started = time.perf_counter()
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
with open(sys.argv[1], "rb") as handle:
    text = handle.read()
for _ in range(max(1, repeat)):
    page = json.loads(text)
    if isinstance(page, dict):
        page = [page]
    counts = collections.Counter(event["type"] for event in page)
seconds = time.perf_counter() - started
events = len(page)
print(
    json.dumps(
        {
            "events": events,
            "bytes": len(text),
            "repeat": max(1, repeat),
            "seconds": seconds,
            "eventsPerSecond": round(events * max(1, repeat) / seconds),
            "types": dict(sorted(counts.items())),
        }
    )
)
