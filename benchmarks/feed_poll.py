#!/usr/bin/env python3
"""The feed figure: one `monitor run --once` of a `type: feed` whose answer is a 5 MB RSS 2.0 document (the real
WordPress feed of ../shared/api-samples/feeds/, its items repeated with new guids), served on 127.0.0.1, against a
Python script that parses the same file with the standard library's xml.etree and reads the same fields. Alternates
the two RUNS times, each in a fresh process (and a fresh state for monitor), and prints the medians of wall time and
CPU and the peak RSS of each.  Usage: benchmarks/feed_poll.py MONITOR [RUNS] [MEGABYTES]"""
import email.utils, http.server, json, os, re, statistics, subprocess, sys, tempfile, threading, time
import xml.etree.ElementTree as ET

if sys.argv[1] == "--etree":
    # The baseline: parse, then each item's guid, title, link, date, categories and description.
    started = time.perf_counter()
    root = ET.parse(sys.argv[2]).getroot()
    items = []
    for item in root.iter("item"):
        date = item.findtext("pubDate")
        items.append((item.findtext("guid"), (item.findtext("title") or "").strip(), item.findtext("link"),
                      email.utils.parsedate_to_datetime(date) if date else None,
                      [c.text for c in item.findall("category")], (item.findtext("description") or "")[:300]))
    print(json.dumps({"items": len(items), "seconds": time.perf_counter() - started}))
    sys.exit(0)

monitor = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
megabytes = float(sys.argv[3]) if len(sys.argv) > 3 else 5
here = os.path.dirname(os.path.abspath(__file__))
sample = os.path.join(here, "..", "..", "shared", "api-samples", "feeds", "wordpress-natasha.xml")
if not os.path.exists(sample):
    print(f"feed_poll: {sample} is absent: skipped", file=sys.stderr)
    sys.exit(0)
text = open(sample, encoding="utf-8").read()
start, end = text.index("<item>"), text.rindex("</item>") + len("</item>")
items = text[start:end]
body, copies = [], 0
while sum(map(len, body)) < megabytes * 1_000_000:
    body.append(re.sub(r"\?p=(\d+)</guid>", rf"?p=\1-{copies}</guid>", items))
    copies += 1
document = (text[:start] + "".join(body) + text[end:]).encode()
work = tempfile.mkdtemp()
path = os.path.join(work, "feed.xml")
open(path, "wb").write(document)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(document)))
        self.end_headers()
        self.wfile.write(document)
    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
feeds = os.path.join(work, "feeds.yaml")
open(feeds, "w").write(f"feeds:\n  - {{name: big, type: feed, url: 'http://127.0.0.1:{server.server_port}/feed', keep: 10000}}\n")

results = {"monitor": [], "python": []}
times = os.path.join(work, "time.txt")
for run in range(runs):
    for label in results:
        state = tempfile.mkdtemp(dir=work)
        argv = ([monitor, "run", "--once", "--format", "json", "--config", feeds, "--state", state] if label == "monitor"
                else [sys.executable, __file__, "--etree", path])
        # Under /usr/bin/time: a child forked by this process would inherit its peak RSS (the 5 MB document's).
        timed = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", times] + argv, capture_output=True, cwd=work)
        assert timed.returncode == 0, timed.stderr.decode()
        wall, user, system, rss = open(times).read().split()[-4:]
        found = json.loads(timed.stdout.decode().splitlines()[-1])["items"]
        results[label].append((float(wall), float(user) + float(system), int(rss), found))
        if os.environ.get("FEED_POLL_VERBOSE"):
            print(label, wall, rss, file=sys.stderr)
for label, rows in results.items():
    print(json.dumps({"tool": label, "bytes": len(document), "items": rows[0][3], "runs": runs,
                      "wall": round(statistics.median(r[0] for r in rows), 3),
                      "cpu": round(statistics.median(r[1] for r in rows), 3),
                      "maxrssMiB": round(max(r[2] for r in rows) / 1024, 1)}))
server.shutdown()
