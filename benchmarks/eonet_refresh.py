#!/usr/bin/env python3
"""The Python baseline of figure 6 (issue #12, goal 0): one refresh of EONET as a twenty-line script does it.
Fetches the categories, then each category's events two at a time, counts them per category and stores them in
SQLite (one row per event, replaced). Usage: eonet_refresh.py API DATABASE  (API: http://127.0.0.1:PORT/api/v3).
Prints one JSON line: events, seconds and cpuSeconds (the whole refresh), and the count of each category."""
import collections, concurrent.futures, json, sqlite3, sys, time, urllib.request

started, started_cpu = time.perf_counter(), time.process_time()
api, path = sys.argv[1].rstrip("/"), sys.argv[2]
get = lambda url: json.load(urllib.request.urlopen(url, timeout=60))
categories = [c["id"] for c in get(api + "/categories")["categories"]]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    answers = list(pool.map(lambda c: (c, get(f"{api}/events?category={c}&status=all&days=360")["events"]), categories))
counts, rows = collections.Counter(), {}
for category, events in answers:
    counts[category] += len(events)
    for e in events:
        rows[e["id"]] = (e["id"], e["title"], (e["geometry"] or [{}])[-1].get("date"), e["closed"], json.dumps(e["categories"]))
db = sqlite3.connect(path)
db.execute("CREATE TABLE IF NOT EXISTS event (id TEXT PRIMARY KEY, title TEXT, date TEXT, closed TEXT, categories TEXT)")
with db:
    db.executemany("INSERT OR REPLACE INTO event VALUES (?, ?, ?, ?, ?)", rows.values())
db.close()
seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
print(json.dumps({"events": len(rows), "seconds": seconds, "cpuSeconds": cpu, "categories": dict(sorted(counts.items()))}))
