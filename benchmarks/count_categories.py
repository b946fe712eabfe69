#!/usr/bin/env python3
"""The Python baseline of figure 3: json.load of an EONET events document and a Counter of its categories."""

import collections
import json
import sys
import time

started = time.perf_counter()
with open(sys.argv[1], "rb") as handle:
    document = json.load(handle)
counts = collections.Counter(category["id"] for event in document["events"] for category in event["categories"])
seconds = time.perf_counter() - started
events = len(document["events"])
print(
    json.dumps(
        {
            "events": events,
            "seconds": seconds,
            "eventsPerSecond": round(events / seconds),
            "categories": dict(sorted(counts.items())),
        }
    )
)
