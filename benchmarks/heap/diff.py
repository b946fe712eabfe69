"""Live heap by allocation site, two trk.c dumps compared: python3 diff.py BEFORE AFTER FEEDS [TOP].

Prints each site's live bytes in both dumps and the change per feed, largest change first: which sites grow
between two rounds of a long-running monitor."""
import os, sys, collections; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sym import load, symbolize, demangle, cache, site

before, after, feeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
top = int(sys.argv[4]) if len(sys.argv) > 4 else 30
dumps = [load(before), load(after)]
for total, stacks, maps in dumps:
    symbolize(set(x for s in stacks for x in s[3]), maps)
names = sorted(set(cache.values())); dm = dict(zip(names, demangle(names)))
sites = [collections.Counter(), collections.Counter()]; blocks = [collections.Counter(), collections.Counter()]
for k, (total, stacks, maps) in enumerate(dumps):
    for b, c, t, fr in stacks:
        lab = site(fr, cache, dm); sites[k][lab] += b; blocks[k][lab] += c
tb, ta = (int(d[0].split()[1]) for d in dumps)
print(f"total {tb} -> {ta} bytes: {(ta - tb) / feeds:+.1f} B per feed")
change = {lab: sites[1][lab] - sites[0][lab] for lab in set(sites[0]) | set(sites[1])}
for lab in sorted(change, key=lambda l: -abs(change[l]))[:top]:
    print(f"{sites[0][lab]:10d} {sites[1][lab]:10d} {change[lab] / feeds:+9.1f} B/feed "
          f"{blocks[0][lab]:7d} {blocks[1][lab]:7d} blocks  {lab}")
