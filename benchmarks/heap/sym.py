"""Reads trk.c dumps and symbolises their frames with the toolchain's llvm-symbolizer."""
import sys, subprocess, collections, re
def load(path):
    stacks=[]; maps=[]; total=None
    for line in open(path):
        if line.startswith('TOTAL'): total=line.strip()
        elif line.startswith('S '):
            p=line.split(); stacks.append((int(p[1]),int(p[2]),int(p[3]),[int(x,16) for x in p[4:]]))
        elif line.startswith('M '):
            p=line[2:].split()
            if len(p)>=6 and p[5].startswith('/'):
                a,b=[int(x,16) for x in p[0].split('-')]; maps.append((a,b,int(p[2],16),p[5]))
    return total, stacks, maps
def bases(maps):
    base={}
    for a,b,off,f in maps:
        if f not in base or a<base[f]: base[f]=a
    return base
cache={}
def symbolize(addrs, maps):
    base=bases(maps); bymod=collections.defaultdict(set); where={}
    for x in addrs:
        if x in cache: continue
        for a,b,off,f in maps:
            if a<=x<b: bymod[f].add(x-base[f]); where[x]=(f,x-base[f]); break
        else: cache[x]='??'
    for f,offs in bymod.items():
        offs=sorted(offs)
        inp='\n'.join(hex(o-1) for o in offs)
        out=subprocess.run(['/opt/swift/usr/bin/llvm-symbolizer','--obj='+f,'--functions=linkage','--no-inlines','--no-demangle'],input=inp,capture_output=True,text=True).stdout
        blocks=out.strip().split('\n\n')
        names={}
        for o,blk in zip(offs,blocks):
            names[o]=blk.split('\n')[0]
        for x,(ff,o) in where.items():
            if ff==f: cache[x]=names.get(o,'?')
    return
def demangle(names):
    out=subprocess.run(['/opt/swift/usr/bin/swift-demangle','--simplified','--compact'],input='\n'.join(names),capture_output=True,text=True).stdout.split('\n')
    return out
# Frames that allocate for others (the runtime, the standard library's containers, malloc): a site is named by the
# first frame that is none of these.
SKIP=('StackAllocator','swift_slowAlloc','swift_allocObject','swift_task_create_common','TaskLocal7Storage','swift_task_alloc',
    'allocate(scale','_copyOrMoveAndResize','setValue(_:forKey','_allocateStringStorage','_StringGuts','_ContiguousArrayBuffer','ContiguousArray._','swift_taskGroup_initialize','sqlite3Malloc','??','malloc','swift_task_addCancellationHandler','_createNewBuffer','Array._','ManagedBuffer','_Deque','partial apply','swift_retain','_NativeDictionary','_NativeSet','specialized static _DictionaryStorage','specialized static _SetStorage','_SetStorage','String(','swift_initStackObject','thunk','reabstraction')
def site(frames, cache, dm):
    """The label of a stack: its first frame outside SKIP, and <the allocating frame>."""
    lab=None; alloc=dm.get(cache[frames[0]],cache[frames[0]])[:40] if frames else ''
    for x in frames:
        s=dm.get(cache[x],cache[x])
        if not any(k in s for k in SKIP): lab=s; break
    return (lab or '?')[:110]+'  <'+alloc+'>'
