"""Sums trk.c's malloc_info dumps: python3 arenas.py malloc-*.xml.

One line a dump: VmRSS, the arenas' memory (glibc's system_mem), what of it is free (fast bins, other bins and the
top chunk), what is in use (the rest: live blocks with their headers), mmapped blocks, and how many arenas."""
import re, sys
for path in sys.argv[1:]:
    text = open(path).read()
    rss = re.search(r"VmRSS (\d+) kB", text)
    after = re.search(r"VmRSS after (\d+) kB", text)
    total = text[text.rindex("</heap>"):]
    def size(kind, body=total):
        m = re.search(rf'<(?:total|system) type="{kind}" (?:count="\d+" )?size="(\d+)"', body)
        return int(m.group(1)) if m else 0
    system, fast, rest, mmap = size("current"), size("fast"), size("rest"), size("mmap")
    arenas = len(re.findall(r"<heap nr=", text))
    mib = lambda b: b / 1048576
    line = (f"{path}: RSS {int(rss.group(1)) / 1024:.1f} MiB; arenas {mib(system):.1f} MiB, free {mib(fast + rest):.1f}, "
            f"in use {mib(system - fast - rest):.1f}; mmapped {mib(mmap):.1f}; {arenas} arenas")
    sqlite = re.search(r"sqlite3_memory_used (\d+) bytes", text)
    if sqlite: line += f"; SQLite {mib(int(sqlite.group(1))):.1f} MiB"
    if after: line += f"; after malloc_trim(0) RSS {int(after.group(1)) / 1024:.1f} MiB"
    print(line)
