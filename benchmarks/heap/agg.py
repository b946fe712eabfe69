"""Live heap by allocation site from a trk.c dump: python3 agg.py DUMP FEEDS [TOP]."""
import os, sys, collections; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sym import *
path=sys.argv[1]; feeds=int(sys.argv[2])
total,stacks,maps=load(path)
print(total, f"= {int(total.split()[1])/feeds:.0f} B per feed")
allad=set(x for s in stacks for x in s[3])
symbolize(allad,maps)
names=sorted(set(cache[x] for x in allad)); dm=dict(zip(names,demangle(names)))
agg=collections.Counter(); cnt=collections.Counter()
for b,c,t,fr in stacks:
    lab=site(fr,cache,dm)
    agg[lab]+=b; cnt[lab]+=c
for lab,b in agg.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 30):
    print(f"{b/1024:9.0f} KiB {b/feeds:7.0f} B/feed {cnt[lab]:8d} blocks  {lab}")
