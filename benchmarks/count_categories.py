#!/usr/bin/env python3
"""The Python baseline of figure 3: json.load of an EONET events document and a Counter of its categories."""

import collections
import json
import sys
import time

started = time.perf_counter()
started_cpu = time.process_time()
with open(sys.argv[1], "rb") as handle:
    document = json.load(handle)
counts = collections.Counter(category["id"] for event in document["events"] for category in event["categories"])
seconds = time.perf_counter() - started
cpu_seconds = time.process_time() - started_cpu
events = len(document["events"])
print(
    json.dumps(
        {
            "events": events,
            "seconds": seconds,
            "cpuSeconds": cpu_seconds,
            "eventsPerSecond": round(events / seconds),
            "categories": dict(sorted(counts.items())),
        }
    )
)
