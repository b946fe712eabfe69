#!/usr/bin/env python3
"""Runs commands that print a JSON line with "seconds" (and "cpuSeconds"), alternately, RUNS times each, under
/usr/bin/time; prints per command the medians of wall, CPU (user + system), in-process seconds and CPU, and the
peak RSS.  Usage: benchmarks/compare.py RUNS LABEL=COMMAND ...  (BENCHMARKS.md, figures 3 and 3c)."""
import json, os, statistics, subprocess, sys, tempfile
TIME = os.path.join(tempfile.mkdtemp(), "time.txt")
runs = int(sys.argv[1]); tools = [a.split('=',1) for a in sys.argv[2:]]
res = {l: [] for l, _ in tools}
for r in range(runs):
    for label, cmd in tools:
        p = subprocess.run(f"/usr/bin/time -f '%e %U %S %M' -o {TIME} {cmd}", shell=True, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout.strip().splitlines()[-1])
        wall, user, sys_, rss = open(TIME).read().split()[-4:]
        res[label].append(dict(wall=float(wall), cpu=float(user)+float(sys_), rss=int(rss), inproc=out['seconds'], incpu=out.get('cpuSeconds', -1), events=out['events'], counts=out.get('categories', out.get('types'))))
for label, rs in res.items():
    med = lambda k: statistics.median(x[k] for x in rs)
    print(json.dumps(dict(tool=label, runs=len(rs), wall=med('wall'), cpu=med('cpu'), inproc=round(med('inproc'),4), incpu=round(med('incpu'),4), maxrssKB=max(x['rss'] for x in rs), medrssKB=med('rss'), events=rs[0]['events'], walls=[x['wall'] for x in rs], inprocs=[round(x['inproc'],4) for x in rs], counts=rs[0]['counts'])))
