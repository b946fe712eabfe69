"""Live heap by allocation site from a trk.c dump: python3 agg.py DUMP FEEDS [TOP]."""
import os, sys, collections; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sym import *
path=sys.argv[1]; feeds=int(sys.argv[2])
total,stacks,maps=load(path)
print(total, f"= {int(total.split()[1])/feeds:.0f} B per feed")
allad=set(x for s in stacks for x in s[3])
symbolize(allad,maps)
names=sorted(set(cache[x] for x in allad)); dm=dict(zip(names,demangle(names)))
SK=('StackAllocator','swift_slowAlloc','swift_allocObject','swift_task_create_common','TaskLocal7Storage','swift_task_alloc',
    'allocate(scale','_copyOrMoveAndResize','setValue(_:forKey','_allocateStringStorage','_StringGuts','_ContiguousArrayBuffer','ContiguousArray._','swift_taskGroup_initialize','sqlite3Malloc','??','malloc','swift_task_addCancellationHandler','_createNewBuffer','Array._','ManagedBuffer','_Deque','partial apply','swift_retain','_NativeDictionary','_NativeSet','specialized static _DictionaryStorage','specialized static _SetStorage','_SetStorage','String(','swift_initStackObject','thunk','reabstraction')
agg=collections.Counter(); cnt=collections.Counter()
for b,c,t,fr in stacks:
    lab=None; alloc=dm.get(cache[fr[0]],cache[fr[0]])[:40] if fr else ''
    for x in fr:
        s=dm.get(cache[x],cache[x])
        if not any(k in s for k in SK): lab=s; break
    lab=(lab or '?')[:110]+'  <'+alloc+'>'
    agg[lab]+=b; cnt[lab]+=c
for lab,b in agg.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 30):
    print(f"{b/1024:9.0f} KiB {b/feeds:7.0f} B/feed {cnt[lab]:8d} blocks  {lab}")
