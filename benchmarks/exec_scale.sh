#!/usr/bin/env bash
# Exec sources at scale (BENCHMARKS.md, "Exec: memory per item" and "Exec: one item in 100,000 groups"): the peak
# RSS and CPU of `monitor run --once` with an exec program writing N small items, on a fresh state and then on the
# state that run filled; and of one item in 100,000 groups. Everything runs in a temporary directory, removed at
# the end; /usr/bin/time (GNU time) measures.
#
#   benchmarks/exec_scale.sh [MONITOR] [N …]     default .build/release/monitor, N = 100000 1000000
set -euo pipefail
MONITOR=$(realpath "${1:-.build/release/monitor}")
shift || true
SIZES=${*:-100000 1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat > items.py <<'PY'
import sys
out = sys.stdout
for i in range(int(sys.argv[1])):
    out.write('{"item":{"id":"i%07d","title":"Item %d","date":"2025-09-21T18:00:00Z","groups":["a"]}}\n' % (i, i))
PY
cat > groups.py <<'PY'
import json
groups = ["g%06d" % i for i in range(100000)]
print(json.dumps({"item": {"id": "big", "title": "Big", "date": "2025-09-21T18:00:00Z", "groups": groups}}))
PY
measure() { # LABEL CONFIG STATE
    /usr/bin/time -f "$1: peak %M KB, CPU %U s user + %S s system, %e s wall" -o time.txt \
        "$MONITOR" run --once --config "$2" --state "$3" > /dev/null || echo "$1: monitor exited $?"
    cat time.txt
}
for n in $SIZES; do
    printf 'settings: {max_body: 256 MiB, timeout: 600s}\nfeeds:\n  - {name: many, type: exec, retention: replace, command: [python3, %s/items.py, "%s"]}\n' \
        "$WORK" "$n" > items.yaml
    measure "$n items, fresh state " items.yaml "state-$n"
    measure "$n items, filled state" items.yaml "state-$n"
done
printf 'feeds:\n  - {name: big, type: exec, retention: replace, command: [python3, %s/groups.py]}\n' "$WORK" > groups.yaml
measure "1 item in 100,000 groups" groups.yaml state-groups
