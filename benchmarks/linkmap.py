#!/usr/bin/env python3
"""Where the size of `monitor` comes from, read from the linker's map (gold's `-Map`).

usage: linkmap.py MAP [PATTERN]

Prints the bytes each static archive or module (`X.build`) puts in the file's code, constants, data and Swift
metadata, largest first (the unwind tables, which the linker merges, and the dynamic linking tables are not
attributed); then, for the archive members whose path contains PATTERN
(default FoundationICU), the chain of references that made the linker take each one, grouped by the object of the
build it starts from. gold records one reason per member, the first it met: a module named here is a reason, not
the only one.

    swift build -c release --static-swift-stdlib -Xlinker -no-pie --product monitor -Xlinker -Map=monitor.map
    python3 benchmarks/linkmap.py monitor.map
"""
import collections
import re
import sys

KEPT = re.compile(r"^(\.text|\.rodata|\.data|\.data\.rel\.ro|\.gcc_except_table|\.init_array|\.fini_array"
                  r"|\.tdata|\.got|\.init|\.fini|swift5_\w+)$")


def owner(path):
    """The archive (`libX.a`) or the module (`X`, from `X.build/`) an input file belongs to."""
    archive = re.search(r"(lib[\w+-]+\.a)\(", path)
    if archive:
        return archive.group(1)
    module = re.search(r"/([^/]+)\.build/", path)
    return module.group(1) if module else path.rsplit("/", 1)[-1]


def read(path):
    """(why, sizes): for each archive member, the (file, symbol) that pulled it in; bytes by owner."""
    why, sizes = {}, collections.Counter()
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    index = 1
    while index + 1 < len(lines) and not lines[index].startswith(("Discarded input sections", "Memory map")):
        member = re.match(r"^(/\S+)$", lines[index])
        reason = re.match(r"^\s+(\S+) \((.*)\)$", lines[index + 1])
        if member and reason:
            why[member.group(1)] = (reason.group(1), reason.group(2))
            index += 2
        else:
            index += 1
    output = None
    for line in lines[index:]:
        if not line.strip():
            continue
        if not line.startswith(" "):
            output = line.split()[0]
            continue
        entry = re.match(r"^ (\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if entry and output and KEPT.match(output):
            sizes[owner(entry.group(3).strip())] += int(entry.group(2), 16)
    return why, sizes


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    why, sizes = read(sys.argv[1])
    pattern = sys.argv[2] if len(sys.argv) > 2 else "FoundationICU"
    print(f"{sum(sizes.values()) / 1e6:.1f} MB of code, constants, data and Swift metadata, by input:")
    for name, size in sizes.most_common(40):
        print(f"  {size / 1e6:7.2f} MB  {name}")
    chains = collections.defaultdict(list)
    for member in why:
        if pattern not in member:
            continue
        chain, current = [f"{owner(member)}: {member.rsplit('/', 1)[-1]}"], member
        while current in why and len(chain) < 100:
            current, symbol = why[current]
            chain.append(f"{owner(current)}: {current.rsplit('/', 1)[-1]} ({symbol})")
        chains[chain[-1].split(" (")[0]].append(chain)
    print(f"\n{sum(map(len, chains.values()))} members matching {pattern!r}, by the object that started the chain:")
    for root, found in sorted(chains.items(), key=lambda item: -len(item[1])):
        print(f"\n  {len(found)} from {root}, for example:")
        for step in found[0]:
            print(f"    {step[:200]}")


if __name__ == "__main__":
    main()
