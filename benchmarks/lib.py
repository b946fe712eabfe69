#!/usr/bin/env python3
"""Helpers of benchmarks/run.sh: HTTP to the stand-in, JSON, /proc sampling and the final report.

Every wait here is bounded in time; every request goes to 127.0.0.1.
"""

import http.client
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time


def fail(message):
    print(f"benchmarks: error: {message}", file=sys.stderr)
    sys.exit(1)


def local(url):
    if not url.startswith("http://127.0.0.1:"):
        fail(f"refusing to send a request anywhere but 127.0.0.1: {url}")
    return url


# MARK: - Commands used by run.sh


def cmd_listen(path, seconds):
    """Waits until the stand-in printed its first line to `path`; prints its URL."""
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        try:
            with open(path) as handle:
                line = handle.readline()
        except FileNotFoundError:
            line = ""
        match = re.match(r"listening on (http://127\.0\.0\.1:\d+)\s*$", line)
        if match:
            print(match.group(1))
            return
        time.sleep(0.05)
    fail(f"the stand-in did not say where it listens within {seconds} s")


def cmd_http(method, url, out=None):
    """GET or POST `url` (127.0.0.1 only); the body goes to `out` or standard output. Fails unless 200.

    The connection is kept alive (http.client, not urllib, which asks for `Connection: close`): the test server
    the stand-in runs on cuts a large body short when the client asks to close the connection."""
    match = re.match(r"http://127\.0\.0\.1:(\d+)(/.*)$", local(url))
    if not match:
        fail(f"not a URL on 127.0.0.1: {url}")
    connection = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=60)
    try:
        connection.request(method, match.group(2), headers={"User-Agent": "monitor-benchmarks"})
        response = connection.getresponse()
        body = response.read()
        status = response.status
    except Exception as error:  # noqa: BLE001 - any failure of the stand-in is fatal here
        fail(f"{method} {url}: {error}")
    finally:
        connection.close()
    if status != 200:
        fail(f"{method} {url}: HTTP {status}")
    length = response.getheader("Content-Length")
    if length is not None and int(length) != len(body):
        fail(f"{method} {url}: {len(body)} bytes of {length}")
    if out:
        with open(out, "wb") as handle:
            handle.write(body)
    else:
        sys.stdout.write(body.decode())


def parse_value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_sample(args):
    """Prints one JSON object from `key=value` (value as JSON when it parses) and `key@file` (a JSON file)."""
    sample = {}
    for arg in args:
        if arg.startswith("+@"):
            with open(arg[2:]) as handle:
                sample.update(json.load(handle))
        elif "@" in arg and ("=" not in arg or arg.index("@") < arg.index("=")):
            key, path = arg.split("@", 1)
            with open(path) as handle:
                text = handle.read().strip()
            try:
                sample[key] = json.loads(text)
            except ValueError:
                fail(f"{path} is not JSON: {text[:200]!r}")
        else:
            key, value = arg.split("=", 1)
            sample[key] = parse_value(value)
    print(json.dumps(sample))


def cmd_reports(path, expect_status=None):
    """Sums the JSON lines `monitor run --format json` printed; fails on a missing field or a failed feed."""
    totals = {"feeds": 0, "requests": 0, "notModified": 0, "items": 0, "bytes": 0, "statuses": {}}
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line:
                continue
            try:
                report = json.loads(line)
            except ValueError:
                fail(f"{path}:{number}: not JSON: {line[:200]}")
            for field in ("feed", "status", "requests", "notModified", "items", "bytes"):
                if field not in report:
                    fail(f"{path}:{number}: the report has no '{field}'")
            totals["feeds"] += 1
            for field in ("requests", "notModified", "items", "bytes"):
                totals[field] += report[field]
            totals["statuses"][report["status"]] = totals["statuses"].get(report["status"], 0) + 1
            if report["status"] in ("failed", "partial"):
                fail(f"{path}:{number}: feed '{report['feed']}' {report['status']}: {report.get('error')}")
    if totals["feeds"] == 0:
        fail(f"{path}: no report")
    if expect_status and set(totals["statuses"]) != {expect_status}:
        fail(f"{path}: expected every feed '{expect_status}', got {totals['statuses']}")
    print(json.dumps(totals))


def cmd_timed(out, *command):
    """Runs `command` with its standard output in `out`; prints its wall time, exit status and peak RSS as JSON
    and exits with its status."""
    with open(out, "wb") as handle:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=handle, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    cpu = round(usage.ru_utime + usage.ru_stime, 6)
    print(json.dumps({"wall": round(wall, 6), "exit": code, "maxRSSKB": usage.ru_maxrss, "cpu": cpu}))
    if code != 0:
        print(f"benchmarks: error: {' '.join(command)} exited with {code}", file=sys.stderr)
    sys.exit(1 if code != 0 else 0)


def cmd_curlconfig(api, categories):
    """Prints a curl config (`-K`) that downloads, to /dev/null, `api`/categories and each category's events as the
    eonet source asks for them with its defaults (figure 6's download reference)."""
    local(api)
    with open(categories) as handle:
        ids = [category["id"] for category in json.load(handle)["categories"]]
    urls = [f"{api}/categories"] + [f"{api}/events?category={id}&status=all&days=360" for id in ids]
    for url in urls:
        print(f'url = "{url}"\noutput = /dev/null')


def cmd_field(path, name):
    """Prints field `name` (dotted) of the JSON in `path`; fails when it is missing."""
    with open(path) as handle:
        value = json.load(handle)
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            fail(f"{path}: no field '{name}'")
        value = value[part]
    print(json.dumps(value) if isinstance(value, (dict, list)) else value)


def cmd_repeat(out, runs, warmup, *command):
    """Runs `command` `warmup` + `runs` times (output discarded); writes median, min and max wall time to `out`."""
    walls = []
    deadline = time.monotonic() + 600
    for index in range(int(warmup) + int(runs)):
        if time.monotonic() > deadline:
            fail(f"{' '.join(command)}: {index} runs took more than 600 s")
        # No timeout on the child: Python waits for one by polling then, which adds up to 50 ms to its time.
        started = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        if result.returncode != 0:
            fail(f"{' '.join(command)} exited with {result.returncode}")
        if index >= int(warmup):
            walls.append(wall)
    with open(out, "w") as handle:
        json.dump({"median": statistics.median(walls), "min": min(walls), "max": max(walls), "runs": len(walls)}, handle)


def cmd_hyperfine(path):
    """Prints one JSON line per command of a hyperfine --export-json file: median, min, max, runs."""
    with open(path) as handle:
        results = json.load(handle)["results"]
    for result in results:
        print(json.dumps({"median": result["median"], "min": result["min"], "max": result["max"],
                          "runs": len(result["times"])}))


def proc_sample(pid):
    """(CPU seconds, resident kB) of process `pid`."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = 0
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return cpu, rss


def cmd_watch(pid, output, feeds, rounds, timeout):
    """Samples CPU time and RSS of `pid` each time another `feeds` JSON lines (a round of polls) are in `output`."""
    pid, feeds, rounds, timeout = int(pid), int(feeds), int(rounds), float(timeout)
    start = time.monotonic()
    cpu0, rss0 = proc_sample(pid)
    samples = [{"round": 0, "polls": 0, "seconds": 0.0, "cpu": cpu0, "rssKB": rss0}]
    polls = 0
    while len(samples) <= rounds:
        if time.monotonic() - start > timeout:
            fail(f"only {polls} polls of {feeds * rounds} within {timeout:.0f} s")
        if not os.path.exists(f"/proc/{pid}"):
            fail(f"the monitor (pid {pid}) exited after {polls} polls")
        with open(output, "rb") as handle:
            polls = handle.read().count(b"\n")
        while len(samples) <= rounds and polls >= len(samples) * feeds:
            cpu, rss = proc_sample(pid)
            samples.append(
                {
                    "round": len(samples),
                    "polls": polls,
                    "seconds": round(time.monotonic() - start, 3),
                    "cpu": cpu,
                    "rssKB": rss,
                }
            )
        time.sleep(0.1)
    print(json.dumps(samples))


# MARK: - The report


def median(values):
    return statistics.median(values) if values else None


def machine():
    def run(command):
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout
        except Exception:  # noqa: BLE001 - best effort
            return ""

    model = ""
    for line in run(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    memory = 0
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) // 1024
    swift = run(["swift", "--version"]).strip().splitlines()
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "memoryMiB": memory,
        "kernel": platform.release(),
        "swift": next((line for line in swift if "Swift version" in line), swift[0] if swift else ""),
    }


def load_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def figure1(work):
    rows = []
    samples = load_lines(f"{work}/fig1.jsonl")
    for events, k in sorted({(sample["events"], sample["k"]) for sample in samples}):
        runs = [sample for sample in samples if sample["k"] == k and sample["events"] == events]
        latency = runs[0]["latency"]
        requests = runs[0]["stats"]["requests"]
        limit = latency * (1 + math.ceil((requests - 1) / k))
        walls = [run["wall"] for run in runs]
        categories = runs[0]["categories"]
        classic = latency * (1 + math.ceil(categories / 2))
        rows.append(
            {
                "events": events,
                "k": k,
                "latency": latency,
                "requests": requests,
                "maxInFlight": max(run["stats"]["maxInFlight"] for run in runs),
                "items": runs[0]["reports"]["items"],
                "runs": len(runs),
                "wallMedian": round(median(walls), 4),
                "walls": walls,
                "limit": round(limit, 4),
                "ratio": round(median(walls) / limit, 4),
                "classicLimit": round(classic, 4),
                "classicRequests": 1 + 2 * categories,
                "goalMet": median(walls) / limit <= 1.10,
            }
        )
    return rows


def figure2(work):
    samples = {sample["run"]: sample for sample in load_lines(f"{work}/fig2.jsonl")}
    if "second" not in samples:
        return None
    first, second = samples["first"], samples["second"]
    return {
        "repositories": second["repositories"],
        "first": {key: first["stats"][key] for key in ("requests", "notModified", "bodyBytes", "rateLimitUsed")},
        "second": {key: second["stats"][key] for key in ("requests", "notModified", "bodyBytes", "rateLimitUsed")},
        "secondStatuses": second["reports"]["statuses"],
        "goalMet": second["stats"]["bodyBytes"] == 0 and second["stats"]["rateLimitUsed"] == 0,
    }


def figure3(work):
    samples = load_lines(f"{work}/fig3.jsonl")
    swift = [sample for sample in samples if sample["tool"] == "monitor-bench"]
    python = [sample for sample in samples if sample["tool"] == "python3"]
    if not swift or not python:
        return None
    size = swift[0]["output"]["bytes"]
    swift_rate = median([sample["output"]["eventsPerSecond"] for sample in swift])
    python_rate = median([sample["output"]["eventsPerSecond"] for sample in python])
    swift_rss = max(sample["maxRSSKB"] for sample in swift) * 1024
    python_rss = max(sample["maxRSSKB"] for sample in python) * 1024
    counts_agree = all(sample["output"]["categories"] == python[0]["output"]["categories"] for sample in swift)
    return {
        "events": swift[0]["output"]["events"],
        "documentBytes": size,
        "runs": len(swift),
        "swiftEventsPerSecond": round(swift_rate),
        "pythonEventsPerSecond": round(python_rate),
        "speedRatio": round(swift_rate / python_rate, 2),
        "swiftSeconds": round(median([sample["output"]["seconds"] for sample in swift]), 4),
        "pythonSeconds": round(median([sample["output"]["seconds"] for sample in python]), 4),
        "swiftWall": round(median([sample["wall"] for sample in swift]), 4),
        "pythonWall": round(median([sample["wall"] for sample in python]), 4),
        "swiftPeakRSS": swift_rss,
        "pythonPeakRSS": python_rss,
        "swiftRSSOverDocument": round(swift_rss / size, 2),
        "pythonRSSOverDocument": round(python_rss / size, 2),
        "countsAgree": counts_agree,
        "goalMet": swift_rate >= 3 * python_rate and swift_rss < 3 * size,
        "speedGoalMet": swift_rate >= 3 * python_rate,
        "memoryGoalMet": swift_rss < 3 * size,
    }


# The start-up goals of issue #12, by command (the listing of every item prints 10,000 lines).
FIGURE4_GOALS = {"monitor status": 0.015, "monitor events planet": 0.100, "monitor events planet --limit 20": 0.020,
                 "monitor status (real capture)": 0.010, "monitor events planet --limit 20 (real capture)": 0.010}
FIGURE4_HELLO = "hello world (static, imports Foundation)"


def figure4(work):
    """One row per command; `monitor --version`'s goal is twice the hello world's median, which has none."""
    samples = load_lines(f"{work}/fig4.jsonl")
    if not samples:
        return None
    hello = next((sample["median"] for sample in samples if sample["command"] == FIGURE4_HELLO), None)
    rows = []
    for sample in samples:
        if sample["command"] == FIGURE4_HELLO:
            goal = None
        elif sample["command"] == "monitor --version":
            goal = 2 * hello if hello else None
        else:
            goal = FIGURE4_GOALS.get(sample["command"], 0.020)
        rows.append(
            {
                "command": sample["command"],
                "items": sample["items"],
                "runs": sample["runs"],
                "tool": sample["tool"],
                "median": round(sample["median"], 5),
                "min": round(sample["min"], 5),
                "max": round(sample["max"], 5),
                "goal": round(goal, 5) if goal else None,
                "goalMet": sample["median"] <= goal if goal else None,
            }
        )
    return rows


def figure5(work):
    """One row per number of feeds: `run --once` (fresh, then filled) and the long-running rounds."""
    once = load_lines(f"{work}/fig5once.jsonl")
    rows = []
    for sample in load_lines(f"{work}/fig5.jsonl"):
        rounds = sample["samples"]
        feeds = sample["feeds"]
        first = rounds[1]
        later = rounds[2:] if len(rounds) > 2 else rounds[1:]
        steady_cpu = (rounds[-1]["cpu"] - rounds[1]["cpu"]) / max(1, rounds[-1]["polls"] - rounds[1]["polls"])
        rss = [entry["rssKB"] for entry in rounds[1:]]
        growth = rounds[-1]["rssKB"] - rounds[2 if len(rounds) > 2 else 1]["rssKB"]
        runs = {entry["run"]: entry for entry in once if entry["feeds"] == feeds}
        rows.append({
            "feeds": feeds,
            "rounds": len(rounds) - 1,
            "interval": sample["interval"],
            "newEvery": sample.get("newEvery"),
            "cpuPerPollFirstRoundMs": round((first["cpu"] - rounds[0]["cpu"]) / max(1, first["polls"]) * 1000, 3),
            "cpuPerPollMs": round(steady_cpu * 1000, 3),
            "rssKBByRound": rss,
            "rssGrowthKB": growth,
            "secondsByRound": [entry["seconds"] for entry in rounds[1:]],
            "standIn": sample.get("stats"),
            "flat": growth <= max(2048, 0.05 * rounds[2 if len(rounds) > 2 else 1]["rssKB"]),
            "under256MiB": max(rss) < 256 * 1024,
            "goalMet": growth <= max(2048, 0.05 * rounds[2 if len(rounds) > 2 else 1]["rssKB"])
            and max(rss) < 256 * 1024,
            "laterRounds": len(later),
            "once": {
                run: {"wall": entry["wall"], "cpu": entry.get("cpu"), "peakRSSKB": entry["maxRSSKB"],
                      "cpuPerFeedMs": round(entry.get("cpu", 0) / feeds * 1000, 3),
                      "statuses": entry["reports"]["statuses"]}
                for run, entry in runs.items()
            },
        })
    return rows or None


def figure6(work):
    """The medians of wall and CPU of each tool, and monitor's fresh and filled walls against curl's and Python's."""
    samples = load_lines(f"{work}/fig6.jsonl")
    if not samples:
        return None

    def of(tool, state=None):
        runs = [sample for sample in samples if sample["tool"] == tool and sample.get("state") == state]
        return {"runs": len(runs), "wall": round(median([run["wall"] for run in runs]), 4),
                "cpu": round(median([run["cpu"] for run in runs]), 4), "walls": [run["wall"] for run in runs]}

    curl, python = of("curl"), of("python3")
    row = {"curl": curl, "python3": python,
           "pythonEvents": next(sample for sample in samples if sample["tool"] == "python3")["output"]["events"]}
    for state in ("fresh", "filled"):
        monitor = of("monitor", state)
        monitor["items"] = next(sample for sample in samples if sample.get("state") == state)["reports"]["items"]
        monitor["overDownload"] = round(monitor["wall"] / curl["wall"], 2)
        monitor["overPython"] = round(monitor["wall"] / python["wall"], 3)
        monitor["goalMet"] = monitor["overDownload"] <= 2 and monitor["overPython"] <= 0.25
        row[state] = monitor
    return row


def mib(value):
    return f"{value / 1048576:.1f} MiB"


def table(results):
    quick = results["quick"]

    def verdict(met):
        return "n/a" if quick else ("met" if met else "NOT met")

    lines = []
    add = lines.append
    add(f"machine: {results['machine']['nproc']} cores, {results['machine']['cpu']}, "
        f"{results['machine']['memoryMiB']} MiB, Linux {results['machine']['kernel']}, {results['machine']['swift']}")
    add(f"build: {results['build']}{' (quick run: tiny sizes, numbers not meaningful)' if results['quick'] else ''}")
    add("")
    if results.get("figure1"):
        add("1. Refresh against the limit (EONET, 13 categories)")
        add("   events  k  requests  max in flight   wall (median)   limit     ratio   classic limit  goal <=1.10")
        for row in results["figure1"]:
            add(f"   {row['events']:>6}  {row['k']:<2} {row['requests']:>8}  {row['maxInFlight']:>13}   "
                f"{row['wallMedian']:>11.3f} s  {row['limit']:>6.3f} s  {row['ratio']:>6.3f}   "
                f"{row['classicLimit']:>10.3f} s   {verdict(row['goalMet'])}")
    if results.get("figure2"):
        row = results["figure2"]
        add(f"2. An unchanged feed ({row['repositories']} GitHub repositories)")
        for name in ("first", "second"):
            values = row[name]
            add(f"   {name:<6} run: {values['requests']} requests, {values['notModified']} answered 304, "
                f"{values['bodyBytes']} body bytes, {values['rateLimitUsed']} rate-limit units")
        add(f"   goal 0 bytes and 0 units on the second run: {verdict(row['goalMet'])}")
    if results.get("figure3"):
        row = results["figure3"]
        add(f"3. Throughput ({row['events']} EONET events, {mib(row['documentBytes'])})")
        add(f"   monitor-bench: {row['swiftEventsPerSecond']:,} events/s, peak {mib(row['swiftPeakRSS'])} "
            f"({row['swiftRSSOverDocument']}x the document)")
        add(f"   python3:       {row['pythonEventsPerSecond']:,} events/s, peak {mib(row['pythonPeakRSS'])} "
            f"({row['pythonRSSOverDocument']}x the document)")
        add(f"   speed {row['speedRatio']}x Python (goal >= 3x: {verdict(row['speedGoalMet'])}); "
            f"memory goal < 3x the document: {verdict(row['memoryGoalMet'])}; "
            f"counts agree: {row['countsAgree']}")
    if results.get("figure4"):
        add("4. Start-up (state of {} items)".format(results["figure4"][0]["items"]))
        for row in results["figure4"]:
            goal = (f"goal <= {row['goal'] * 1000:.1f} ms: {verdict(row['goalMet'])}" if row["goal"]
                    else "the reference")
            add(f"   {row['command']:<49} median {row['median'] * 1000:7.2f} ms  (min {row['min'] * 1000:.2f}, "
                f"max {row['max'] * 1000:.2f}, {row['runs']} runs, {row['tool']})  {goal}")
    for row in results.get("figure5") or []:
        add(f"5. Scale ({row['feeds']} GitHub feeds, interval {row['interval']}, {row['rounds']} rounds)")
        for run, once in row["once"].items():
            add(f"   run --once ({run} state): {once['wall']:.2f} s wall, {once['cpu']:.2f} s CPU "
                f"({once['cpuPerFeedMs']} ms a feed), peak RSS {once['peakRSSKB'] / 1024:.1f} MiB")
        add(f"   CPU per poll: {row['cpuPerPollFirstRoundMs']} ms in round 1 (every feed fetched), "
            f"{row['cpuPerPollMs']} ms in rounds 2-{row['rounds']}")
        add(f"   RSS by round (MiB): " + ", ".join(f"{value / 1024:.1f}" for value in row["rssKBByRound"]))
        add(f"   growth from round 2 to round {row['rounds']}: {row['rssGrowthKB'] / 1024:.1f} MiB "
            f"(goal: flat and under 256 MiB): {verdict(row['goalMet'])}")
    row = results.get("figure6")
    if row:
        add(f"6. A refresh of EONET's real capture ({row['fresh']['items']} items; Python stored {row['pythonEvents']})")
        add(f"   curl, the 14 answers two at a time: {row['curl']['wall'] * 1000:7.1f} ms wall, "
            f"{row['curl']['cpu'] * 1000:6.1f} ms CPU (medians of {row['curl']['runs']})")
        add(f"   eonet_refresh.py:                   {row['python3']['wall'] * 1000:7.1f} ms wall, "
            f"{row['python3']['cpu'] * 1000:6.1f} ms CPU")
        for state in ("fresh", "filled"):
            monitor = row[state]
            add(f"   monitor run --once, {state:<6} state:   {monitor['wall'] * 1000:7.1f} ms wall, "
                f"{monitor['cpu'] * 1000:6.1f} ms CPU: {monitor['overDownload']}x the download, "
                f"{monitor['overPython']}x Python (goal <= 2x and <= 0.25x): {verdict(monitor['goalMet'])}")
    return "\n".join(lines)


def cmd_report(work, out, build, quick):
    results = {
        "machine": machine(),
        "build": build,
        "quick": quick == "1",
        "figure1": figure1(work),
        "figure2": figure2(work),
        "figure3": figure3(work),
        "figure4": figure4(work),
        "figure5": figure5(work),
        "figure6": figure6(work),
    }
    with open(out, "w") as handle:
        json.dump(results, handle, indent=2)
        handle.write("\n")
    print(table(results))


def main():
    if len(sys.argv) < 2:
        fail("usage: lib.py COMMAND ARGS…")
    command, args = sys.argv[1], sys.argv[2:]
    commands = {
        "listen": cmd_listen,
        "timed": cmd_timed,
        "field": cmd_field,
        "repeat": cmd_repeat,
        "hyperfine": cmd_hyperfine,
        "http": cmd_http,
        "reports": cmd_reports,
        "watch": cmd_watch,
        "report": cmd_report,
        "curlconfig": cmd_curlconfig,
    }
    if command == "sample":
        cmd_sample(args)
    elif command in commands:
        commands[command](*args)
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
