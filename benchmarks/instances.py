#!/usr/bin/env python3
"""Several `monitor run` instances on one PostgreSQL state (BENCHMARKS.md, "Several instances").

Starts a PostgreSQL server (Debian's postgresql, as nobody when run as root, pg_stat_statements loaded) and the
stand-in, then for SQLite × 1 instance and PostgreSQL × 1, 2, 4 instances runs `monitor run --format json` on FEEDS
github feeds (interval INTERVAL s) until every feed was polled ROUNDS + 1 times in all, and prints polls per second
(after the first round), polls per feed per interval (the interval over the mean gap between two polls of a
feed), the shortest gap between two polls of one feed, the
database time per poll (pg_stat_statements) and the instances' CPU time per poll.

    python3 benchmarks/instances.py [--bin .build/debug] [--feeds 1000] [--interval 30] [--rounds 2]
"""
import argparse, datetime, glob, json, os, pathlib, shutil, signal, socket, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--bin", default=".build/debug")
parser.add_argument("--feeds", type=int, default=1000)
parser.add_argument("--interval", type=int, default=30)
parser.add_argument("--rounds", type=int, default=2)
parser.add_argument("--configs", default="sqlite:1,postgres:1,postgres:2,postgres:4")
args = parser.parse_args()
binary = os.path.abspath(os.path.join(args.bin, "monitor"))
standin_binary = os.path.abspath(os.path.join(args.bin, "monitor-standin"))
pg = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


root = pathlib.Path(tempfile.mkdtemp(prefix="monitor-instances-", dir="/tmp"))
os.chmod(root, 0o755)
as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.getuid() == 0 else []
pgdir = root / "pg"
pgdir.mkdir()
if as_nobody:
    shutil.chown(pgdir, "nobody", "nogroup")
port = free_port()
subprocess.run(as_nobody + [f"{pg}/initdb", "-D", f"{pgdir}/data", "-U", "monitor", "--auth=trust", "-E", "UTF8",
                            "--locale=C"], check=True, stdout=subprocess.DEVNULL)
subprocess.run(as_nobody + [f"{pg}/pg_ctl", "-D", f"{pgdir}/data", "-l", f"{pgdir}/log", "-w", "-s", "-o",
                            f"-p {port} -k {pgdir} -c listen_addresses=127.0.0.1 -c max_connections=200 "
                            "-c shared_preload_libraries=pg_stat_statements -c fsync=off -c synchronous_commit=off",
                            "start"], check=True)


def psql(sql, db="postgres"):
    return subprocess.run([f"{pg}/psql", "-h", "127.0.0.1", "-p", str(port), "-U", "monitor", "-d", db, "-tAc", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


standin = subprocess.Popen([standin_binary, "--poll-interval", "1", "--rate-limit", "100000000"],
                           stdout=subprocess.PIPE, text=True)
api = standin.stdout.readline().split()[-1]


def proc_cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def parse(path):
    reports = []
    for line in open(path):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if "feed" in obj and "status" in obj and "started" in obj:
            reports.append(obj)
    return reports


results = []
try:
    for config in args.configs.split(","):
        backend, count = config.split(":")
        count = int(count)
        work = root / f"{backend}-{count}"
        work.mkdir()
        names = [f"repo-{n:04d}" for n in range(1, args.feeds + 1)]
        # The events alone, as before GitHub's fill-in: its own row in BENCHMARKS.md says what it spends.
        feeds = "".join(
            f"  - name: {n}\n    type: github\n    repo: standin/{n}\n    api: {api}\n    details: false\n"
            for n in names)
        (work / "feeds.yaml").write_text(
            f"settings:\n  concurrency: 8\n  interval: {args.interval}s\n\nfeeds:\n" + feeds)
        env = dict(os.environ, HOME=str(work))
        if backend == "postgres":
            db = f"bench_{count}"
            psql(f"CREATE DATABASE {db}")
            psql("CREATE EXTENSION pg_stat_statements", db)
            psql("SELECT pg_stat_statements_reset()", db)
            env["MONITOR_STATE"] = f"postgres://monitor@127.0.0.1:{port}/{db}"
        else:
            env["MONITOR_STATE"] = str(work / "state.sqlite")
        processes = []
        for i in range(count):
            out = open(work / f"out-{i}.jsonl", "w")
            processes.append(subprocess.Popen([binary, "run", "--format", "json"], cwd=work, env=env, stdout=out,
                                              stderr=open(work / f"err-{i}.txt", "w")))
        wanted = args.feeds * (args.rounds + 1)
        started = time.time()
        while True:
            time.sleep(1)
            total = sum(len(parse(work / f"out-{i}.jsonl")) for i in range(count))
            if total >= wanted or time.time() - started > 40 * args.interval * (args.rounds + 1):
                break
        cpu = sum(proc_cpu(p.pid) for p in processes)
        db_ms = None
        if backend == "postgres":
            db_ms = float(psql(f"SELECT coalesce(sum(total_exec_time), 0) FROM pg_stat_statements s JOIN pg_database d "
                               f"ON d.oid = s.dbid WHERE d.datname = '{db}'", db))
        for p in processes:
            p.send_signal(signal.SIGINT)
        for p in processes:
            p.wait(timeout=120)
        reports = [r for i in range(count) for r in parse(work / f"out-{i}.jsonl")]
        by_feed = {}
        for r in reports:
            by_feed.setdefault(r["feed"], []).append(datetime.datetime.fromisoformat(r["started"].replace("Z", "+00:00")))
        times = sorted(t for ts in by_feed.values() for t in ts)
        first_round_end = sorted(min(ts) for ts in by_feed.values())[-1]
        later = [t for t in times if t > first_round_end]
        span = (times[-1] - first_round_end).total_seconds() if later else 0
        gaps = [(b - a).total_seconds() for ts in by_feed.values() for a, b in zip(sorted(ts), sorted(ts)[1:])]
        # Polls of a feed per interval: the interval over the mean gap between two polls of the feed (jitter ±10 %).
        per_interval = args.interval / (sum(gaps) / len(gaps)) if gaps else 0
        doubles = sum(1 for g in gaps if g < 0.85 * args.interval)
        # Under the interval less its jitter (`started` is stamped to the second, so a gap of 27.0 s shows as 27 or 28).
        short = sum(1 for g in gaps if g < 0.9 * args.interval)
        results.append({
            "config": f"{backend} × {count}", "polls": len(reports), "feeds polled": len(by_feed),
            "polls/s after round 1": round(len(later) / span, 1) if span else None,
            "polls per feed per interval": round(per_interval, 2),
            "shortest gap (s)": round(min(gaps), 1) if gaps else None, "gaps < 0.85 interval": doubles,
            "gaps < 0.9 interval": short,
            "db ms per poll": round(db_ms / len(reports), 2) if db_ms is not None else None,
            "cpu ms per poll": round(cpu * 1000 / len(reports), 1),
            "load average (1 min) at the end": round(os.getloadavg()[0], 1),
            "statuses": {s: sum(1 for r in reports if r["status"] == s) for s in sorted({r["status"] for r in reports})},
        })
        print(json.dumps(results[-1]), flush=True)
finally:
    standin.send_signal(signal.SIGINT)
    subprocess.run(as_nobody + [f"{pg}/pg_ctl", "-D", f"{pgdir}/data", "-m", "fast", "-w", "-s", "stop"])
    shutil.rmtree(root, ignore_errors=True)
