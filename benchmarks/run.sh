#!/usr/bin/env bash
# The benchmarks of BENCHMARKS.md: builds the release binaries, runs figures 1-5 against the local stand-in and
# figure 6 against ../shared/tools/realdata-server.py (127.0.0.1 only), prints a table and writes
# benchmarks/results.json.
#
#   benchmarks/run.sh              every figure at its full size (about 10 minutes after the build)
#   benchmarks/run.sh --quick      every figure at a tiny size on the debug build: checks that nothing is broken,
#                                  judges no timing (CI runs this)
#   benchmarks/run.sh --only 1,3   only these figures
#   benchmarks/run.sh --static     link the Swift runtime and Foundation statically, as `make install` does
#                                  (--static-swift-stdlib)
#   BENCHMARK_TOOLS=python         measure with Python even where /usr/bin/time and hyperfine are installed
#
# It fails (non-zero) only when something breaks: a command fails, the stand-in does not answer, a report or a
# JSON field is missing. Every process it starts is stopped when it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LIB=(python3 "$ROOT/benchmarks/lib.py")

QUICK=0
CONFIG=release
LINK=()
ONLY="1 2 3 4 5 6"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) QUICK=1 CONFIG=debug ;;
        --release) CONFIG=release ;;
        --static) LINK=(--static-swift-stdlib) ;; # as `make install` links monitor
        --only)
            ONLY=${2//,/ }
            shift
            ;;
        -h | --help)
            sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "benchmarks: unknown option $1 (see --help)" >&2
            exit 64
            ;;
    esac
    shift
done

if [ $QUICK = 1 ]; then
    # Tiny sizes: every figure runs, in about a minute.
    F1_SIZES="200" F1_LATENCY_MS=50 F1_KS="1 4" F1_RUNS=1
    F2_REPOS=5
    F3_EVENTS=300 F3_RUNS=1
    F4_ITEMS=300 F4_RUNS=5 F4_WARMUP=1
    F5_SIZES="20 50" F5_ROUNDS=3 F5_INTERVAL=1 F5_NEW_EVERY=2s
    F6_RUNS=1
else
    F1_SIZES="100 5000" F1_LATENCY_MS=200 F1_KS="1 2 4 8" F1_RUNS=3
    F2_REPOS=50
    F3_EVENTS=20000 F3_RUNS=5
    F4_ITEMS=10000 F4_RUNS=30 F4_WARMUP=3
    F5_SIZES="1000 10000" F5_ROUNDS=10 F5_INTERVAL=5 F5_NEW_EVERY=60s
    F6_RUNS=11
fi

log() { printf 'benchmarks: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

command -v python3 >/dev/null || die "python3 is needed"

# Tools: /usr/bin/time for peak memory (figure 3), hyperfine for start-up times (figure 4). Installed with apt-get
# when missing and we are root (the full run only); otherwise the harness measures with Python instead.
install_missing() {
    local missing=()
    [ -x /usr/bin/time ] || missing+=(time)
    command -v hyperfine >/dev/null || missing+=(hyperfine)
    [ ${#missing[@]} -gt 0 ] || return 0
    if [ $QUICK = 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing ${missing[*]} with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } \
            || log "could not install ${missing[*]}: measuring with Python instead"
    else
        log "${missing[*]} not installed: measuring with Python instead"
    fi
}
install_missing

# MARK: - Build

PRODUCTS=(monitor monitor-standin monitor-bench)
log "building ${PRODUCTS[*]} ($CONFIG${LINK[*]:+, ${LINK[*]}})"
BUILD_LOG=$(mktemp "${TMPDIR:-/tmp}/monitor-bench-build.XXXXXX")
for product in "${PRODUCTS[@]}"; do
    if ! swift build -c "$CONFIG" ${LINK[@]+"${LINK[@]}"} --product "$product" >"$BUILD_LOG" 2>&1; then
        tail -n 30 "$BUILD_LOG" >&2
        rm -f "$BUILD_LOG"
        die "swift build -c $CONFIG ${LINK[*]} --product $product failed"
    fi
done
rm -f "$BUILD_LOG"
BIN=$(swift build -c "$CONFIG" --show-bin-path)
for product in "${PRODUCTS[@]}"; do
    [ -x "$BIN/$product" ] || die "$BIN/$product was not built"
done

# MARK: - Processes

WORK=$(mktemp -d "${TMPDIR:-/tmp}/monitor-bench.XXXXXX")
PIDS=()
cleanup() {
    local status=$?
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ $status != 0 ] && [ -d "$WORK" ]; then
        log "failed; the logs of the stand-in and the monitor:"
        tail -n 20 "$WORK"/*.err 2>/dev/null >&2 || true
    fi
    rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export NO_COLOR=1
unset MONITOR_CONFIG GITHUB_TOKEN

# Starts the stand-in with ARGS (it stops by itself after 30 minutes at most); sets STANDIN (its URL) and
# STANDIN_PID.
start_standin() {
    local name=$1
    shift
    "$BIN/monitor-standin" --port 0 --lifetime 30m "$@" >"$WORK/standin-$name.out" 2>"$WORK/standin-$name.err" &
    STANDIN_PID=$!
    PIDS+=("$STANDIN_PID")
    STANDIN=$("${LIB[@]}" listen "$WORK/standin-$name.out" 120)
}

stop_standin() {
    kill -TERM "$STANDIN_PID" 2>/dev/null || true
    wait "$STANDIN_PID" 2>/dev/null || true
}

# Starts ../shared/tools/realdata-server.py (the real captures of ../shared/realdata, replayed on 127.0.0.1): sets
# REALDATA (its URL) and REALDATA_PID, and writes CONFIG, one `eonet` feed `planet` of concurrency 2 on it. Returns 1, starting nothing, when
# ../shared/realdata is absent.
start_realdata() {
    local config=$1 server=$ROOT/../shared/tools/realdata-server.py
    [ -f "$server" ] && [ -d "$ROOT/../shared/realdata" ] || return 1
    python3 "$server" --port 0 >"$WORK/realdata.out" 2>"$WORK/realdata.err" &
    REALDATA_PID=$!
    PIDS+=("$REALDATA_PID")
    REALDATA=$("${LIB[@]}" listen "$WORK/realdata.out" 120)
    printf 'feeds:\n  - name: planet\n    type: eonet\n    api: "%s/api/v3"\n    concurrency: 2\n' "$REALDATA" >"$config"
}

stop_realdata() {
    kill -TERM "$REALDATA_PID" 2>/dev/null || true
    wait "$REALDATA_PID" 2>/dev/null || true
}

reset() { "${LIB[@]}" http POST "$STANDIN/_reset" >/dev/null; }
stats() { "${LIB[@]}" http GET "$STANDIN/_stats" >"$1"; }
field() { "${LIB[@]}" field "$@"; }

# `monitor run --once --format json` with CONFIG and STATE, timed; the reports go to $WORK/reports.out and their
# sums to $WORK/reports.json (failing on a failed feed or one not of EXPECTED status, when given).
run_once() {
    local config=$1 state=$2 expected=${3:-}
    "${LIB[@]}" timed "$WORK/reports.out" "$BIN/monitor" run --once --format json --config "$config" \
        --state "$state" >"$WORK/timed.json" 2>>"$WORK/monitor.err"
    "${LIB[@]}" reports "$WORK/reports.out" $expected >"$WORK/reports.json"
}

# MARK: - Figures

# 1. Refresh against the limit: EONET, 13 categories, latency L, concurrency k.
figure1() {
    local events k run
    for events in $F1_SIZES; do
        log "figure 1: EONET refresh, $events events, L = ${F1_LATENCY_MS} ms, k = $F1_KS"
        start_standin fig1 --eonet-events "$events" --latency "${F1_LATENCY_MS}ms"
        for k in $F1_KS; do
            cat >"$WORK/fig1.yaml" <<EOF
settings:
  concurrency: $k
feeds:
  - name: planet
    type: eonet
    api: $STANDIN/api/v3
    concurrency: $k
EOF
            for run in $(seq "$F1_RUNS"); do
                rm -rf "$WORK/state1"
                reset
                run_once "$WORK/fig1.yaml" "$WORK/state1" ok
                stats "$WORK/stats.json"
                [ "$(field "$WORK/reports.json" items)" = "$events" ] || die "figure 1: not every event was counted"
                [ "$(field "$WORK/stats.json" maxInFlight)" -le "$k" ] || die "figure 1: more than $k requests in flight"
                "${LIB[@]}" sample events="$events" k="$k" latency="$(python3 -c "print($F1_LATENCY_MS / 1000)")" \
                    categories=13 run="$run" +@"$WORK/timed.json" stats@"$WORK/stats.json" \
                    reports@"$WORK/reports.json" >>"$WORK/fig1.jsonl"
            done
        done
        stop_standin
    done
}

# 2. An unchanged feed: a second run over N unchanged GitHub repositories. (Figures 2 and 5 measure the events
# alone, `details: false`, as they did before GitHub's fill-in; its own row says what the fill-in spends.)
figure2() {
    log "figure 2: $F2_REPOS unchanged GitHub repositories"
    start_standin fig2 --github-repos "$F2_REPOS"
    {
        echo "feeds:"
        for i in $(seq -f "%04g" "$F2_REPOS"); do
            printf '  - {name: repo-%s, type: github, repo: standin/repo-%s, api: "%s", details: false}\n' \
                "$i" "$i" "$STANDIN"
        done
    } >"$WORK/fig2.yaml"
    rm -rf "$WORK/state2"
    reset
    run_once "$WORK/fig2.yaml" "$WORK/state2" ok
    stats "$WORK/stats.json"
    "${LIB[@]}" sample run=first repositories="$F2_REPOS" stats@"$WORK/stats.json" reports@"$WORK/reports.json" \
        >>"$WORK/fig2.jsonl"
    reset
    run_once "$WORK/fig2.yaml" "$WORK/state2" not_modified
    stats "$WORK/stats.json"
    "${LIB[@]}" sample run=second repositories="$F2_REPOS" stats@"$WORK/stats.json" reports@"$WORK/reports.json" \
        >>"$WORK/fig2.jsonl"
    stop_standin
}

# 3. Throughput: decoding and counting one EONET response, against python3 on the same file.
figure3() {
    log "figure 3: decoding $F3_EVENTS EONET events, monitor-bench against python3"
    start_standin fig3 --eonet-events "$F3_EVENTS"
    "${LIB[@]}" http GET "$STANDIN/api/v3/events?status=all&days=36500" "$WORK/events.json"
    stop_standin
    local run tool
    for run in $(seq "$F3_RUNS"); do
        for tool in monitor-bench python3; do
            local command=("$BIN/monitor-bench" decode "$WORK/events.json")
            [ $tool = python3 ] && command=(python3 "$ROOT/benchmarks/count_categories.py" "$WORK/events.json")
            if [ -x /usr/bin/time ] && [ "${BENCHMARK_TOOLS:-}" != python ]; then
                "${LIB[@]}" timed "$WORK/decode.out" /usr/bin/time -f '%M' -o "$WORK/time.txt" "${command[@]}" \
                    >"$WORK/timed.json"
                rss=$(tail -n 1 "$WORK/time.txt")
                meter=/usr/bin/time
            else
                "${LIB[@]}" timed "$WORK/decode.out" "${command[@]}" >"$WORK/timed.json"
                rss=$(field "$WORK/timed.json" maxRSSKB)
                meter=wait4
            fi
            [ "$(field "$WORK/decode.out" events)" -gt 0 ] || die "figure 3: $tool counted no events"
            "${LIB[@]}" sample tool=$tool run="$run" wall="$(field "$WORK/timed.json" wall)" maxRSSKB="$rss" \
                meter=$meter output@"$WORK/decode.out" >>"$WORK/fig3.jsonl"
        done
    done
}

# 4. Start-up: `monitor status` and `monitor events` on a state of N items.
figure4() {
    log "figure 4: start-up on a state of $F4_ITEMS items"
    start_standin fig4 --eonet-events "$F4_ITEMS"
    cat >"$WORK/fig4.yaml" <<EOF
feeds:
  - name: planet
    type: eonet
    api: $STANDIN/api/v3
EOF
    rm -rf "$WORK/state4"
    run_once "$WORK/fig4.yaml" "$WORK/state4" ok
    [ "$(field "$WORK/reports.json" items)" = "$F4_ITEMS" ] || die "figure 4: the state does not hold every item"
    stop_standin
    local status=("$BIN/monitor" status --config "$WORK/fig4.yaml" --state "$WORK/state4")
    local events=("$BIN/monitor" events planet --state "$WORK/state4")
    local screen=("$BIN/monitor" events planet --limit 20 --state "$WORK/state4")
    # Both work offline, and print what they should.
    "${status[@]}" >"$WORK/status.txt" || die "figure 4: monitor status failed"
    grep -q planet "$WORK/status.txt" || die "figure 4: monitor status does not list the feed"
    "${events[@]}" >"$WORK/events.txt" || die "figure 4: monitor events failed"
    [ "$(wc -l <"$WORK/events.txt")" -ge "$F4_ITEMS" ] || die "figure 4: monitor events does not list every item"
    if command -v hyperfine >/dev/null && [ "${BENCHMARK_TOOLS:-}" != python ]; then
        hyperfine -N --style none --warmup "$F4_WARMUP" --runs "$F4_RUNS" --export-json "$WORK/hyperfine.json" \
            "${status[*]}" "${events[*]}" "${screen[*]}" >/dev/null 2>"$WORK/hyperfine.err" \
            || die "figure 4: hyperfine failed"
        "${LIB[@]}" hyperfine "$WORK/hyperfine.json" >"$WORK/hyperfine.jsonl"
        sed -n 1p "$WORK/hyperfine.jsonl" >"$WORK/status.json"
        sed -n 2p "$WORK/hyperfine.jsonl" >"$WORK/events.json"
        sed -n 3p "$WORK/hyperfine.jsonl" >"$WORK/screen.json"
        tool=hyperfine
    else
        "${LIB[@]}" repeat "$WORK/status.json" "$F4_RUNS" "$F4_WARMUP" "${status[@]}"
        "${LIB[@]}" repeat "$WORK/events.json" "$F4_RUNS" "$F4_WARMUP" "${events[@]}"
        "${LIB[@]}" repeat "$WORK/screen.json" "$F4_RUNS" "$F4_WARMUP" "${screen[@]}"
        tool=python
    fi
    "${LIB[@]}" sample command="monitor status" items="$F4_ITEMS" tool=$tool +@"$WORK/status.json" >>"$WORK/fig4.jsonl"
    "${LIB[@]}" sample command="monitor events planet" items="$F4_ITEMS" tool=$tool +@"$WORK/events.json" \
        >>"$WORK/fig4.jsonl"
    "${LIB[@]}" sample command="monitor events planet --limit 20" items="$F4_ITEMS" tool=$tool \
        +@"$WORK/screen.json" >>"$WORK/fig4.jsonl"
    figure4_real
    figure4_version
}

# Times COMMAND… (output discarded) as figure 4 does, and adds its row, labelled LABEL, to figure 4.
figure4_time() {
    local label=$1 items=$2
    shift 2
    if command -v hyperfine >/dev/null && [ "${BENCHMARK_TOOLS:-}" != python ]; then
        hyperfine -N --style none --warmup "$F4_WARMUP" --runs "$F4_RUNS" --export-json "$WORK/hyperfine.json" \
            "$*" >/dev/null 2>"$WORK/hyperfine.err" || die "figure 4: hyperfine failed on $*"
        "${LIB[@]}" hyperfine "$WORK/hyperfine.json" >"$WORK/timed4.json"
        tool=hyperfine
    else
        "${LIB[@]}" repeat "$WORK/timed4.json" "$F4_RUNS" "$F4_WARMUP" "$@"
        tool=python
    fi
    "${LIB[@]}" sample command="$label" items="$items" tool=$tool +@"$WORK/timed4.json" >>"$WORK/fig4.jsonl"
}

# 4, on the real capture: `status` and `events planet --limit 20` on the state one `run --once` of EONET's real
# September 2025 answer made (../shared/realdata, replayed by ../shared/tools/realdata-server.py).
figure4_real() {
    if ! start_realdata "$WORK/real4.yaml"; then
        log "figure 4: ../shared/realdata is absent: no start-up on the real capture's state"
        return 0
    fi
    log "figure 4: start-up on the real capture's state"
    rm -rf "$WORK/real4"
    run_once "$WORK/real4.yaml" "$WORK/real4" ok
    stop_realdata
    local items
    items=$(field "$WORK/reports.json" items)
    [ "$items" -gt 0 ] || die "figure 4: the real capture stored no item"
    "$BIN/monitor" status --config "$WORK/real4.yaml" --state "$WORK/real4" | grep -q planet \
        || die "figure 4: monitor status does not list the real capture's feed"
    figure4_time "monitor status (real capture)" "$items" \
        "$BIN/monitor" status --config "$WORK/real4.yaml" --state "$WORK/real4"
    figure4_time "monitor events planet --limit 20 (real capture)" "$items" \
        "$BIN/monitor" events planet --limit 20 --state "$WORK/real4"
}

# 4, `monitor --version` against its reference: benchmarks/hello.swift, linked statically as `make install` links
# monitor.
figure4_version() {
    log "figure 4: monitor --version against a static hello world that imports Foundation"
    swiftc -O -static-stdlib "$ROOT/benchmarks/hello.swift" -o "$WORK/hello" >"$WORK/hello.err" 2>&1 \
        || { tail -n 20 "$WORK/hello.err" >&2; die "figure 4: the hello world did not build"; }
    [ "$("$WORK/hello")" = "hello, world" ] || die "figure 4: the hello world does not say hello"
    [ "$("$BIN/monitor" --version)" != "" ] || die "figure 4: monitor --version printed nothing"
    figure4_time "hello world (static, imports Foundation)" 0 "$WORK/hello"
    figure4_time "monitor --version" 0 "$BIN/monitor" --version
}

# 5. Scale: N GitHub feeds. First `run --once` twice (a fresh state, then the filled one: peak memory and CPU time of
# the whole process), then the long-running `monitor run`: CPU per poll and RSS by round.
figure5() {
    local feeds
    for feeds in $F5_SIZES; do figure5_size "$feeds"; done
}

figure5_size() {
    local feeds=$1
    log "figure 5: $feeds GitHub feeds every ${F5_INTERVAL}s, $F5_ROUNDS rounds"
    # A rate limit no round reaches: 10,000 feeds spend 10,000 units on their first poll.
    start_standin fig5 --poll-interval 1 --github-new-every "$F5_NEW_EVERY" --rate-limit 100000000
    {
        echo "settings:"
        echo "  interval: ${F5_INTERVAL}s"
        echo "feeds:"
        for i in $(seq -f "%05g" "$feeds"); do
            printf '  - {name: repo-%s, type: github, repo: standin/repo-%s, api: "%s", details: false}\n' \
                "$i" "$i" "$STANDIN"
        done
    } >"$WORK/fig5.yaml"
    rm -rf "$WORK/state5"
    reset
    local run
    for run in fresh filled; do
        run_once "$WORK/fig5.yaml" "$WORK/state5"
        [ "$(field "$WORK/reports.json" feeds)" = "$feeds" ] || die "figure 5: run --once did not report every feed"
        "${LIB[@]}" sample feeds="$feeds" run=$run +@"$WORK/timed.json" reports@"$WORK/reports.json" \
            >>"$WORK/fig5once.jsonl"
    done
    rm -rf "$WORK/state5"
    reset
    "$BIN/monitor" run --format json --config "$WORK/fig5.yaml" --state "$WORK/state5" \
        >"$WORK/fig5.out" 2>"$WORK/monitor5.err" </dev/null &
    local monitor=$!
    PIDS+=("$monitor")
    # Bounded: 4 intervals a round plus 20 ms a poll, and two minutes.
    "${LIB[@]}" watch "$monitor" "$WORK/fig5.out" "$feeds" "$F5_ROUNDS" \
        "$((F5_ROUNDS * F5_INTERVAL * 4 + feeds * F5_ROUNDS / 50 + 120))" >"$WORK/watch.json"
    kill -TERM "$monitor"
    local status=0
    wait "$monitor" || status=$?
    [ $status = 0 ] || die "figure 5: monitor run exited with $status on SIGTERM"
    stats "$WORK/stats.json"
    "${LIB[@]}" reports "$WORK/fig5.out" >/dev/null
    "${LIB[@]}" sample feeds="$feeds" interval="${F5_INTERVAL}s" newEvery="$F5_NEW_EVERY" \
        samples@"$WORK/watch.json" stats@"$WORK/stats.json" >>"$WORK/fig5.jsonl"
    stop_standin
}

# 6. A refresh of EONET's real capture (../shared/realdata, replayed by ../shared/tools/realdata-server.py): the same
# 14 answers downloaded by curl two at a time, refreshed by eonet_refresh.py, and by `monitor run --once` on a fresh
# state then on the state it filled, alternately, F6_RUNS times each.
figure6() {
    if ! command -v curl >/dev/null; then
        log "figure 6: skipped: curl (the download reference) is not installed"
        return 0
    fi
    if ! start_realdata "$WORK/fig6.yaml"; then
        log "figure 6: skipped: ../shared/realdata and ../shared/tools/realdata-server.py (the real captures) are absent"
        return 0
    fi
    log "figure 6: a refresh of EONET's real capture: curl, eonet_refresh.py, monitor fresh and filled, $F6_RUNS runs"
    local api=$REALDATA/api/v3
    # The URLs monitor asks for (the eonet source's defaults: status=all, days=360), for curl.
    "${LIB[@]}" http GET "$api/categories" "$WORK/categories.json"
    "${LIB[@]}" curlconfig "$api" "$WORK/categories.json" >"$WORK/curl.cfg"
    local download=(curl -sS --no-progress-meter --fail -Z --parallel-max 2 -K "$WORK/curl.cfg")
    # The server builds each answer at its first request: once before timing.
    "${download[@]}" || die "figure 6: curl could not download the answers"
    local run state
    for run in $(seq "$F6_RUNS"); do
        "${LIB[@]}" timed "$WORK/curl.out" "${download[@]}" >"$WORK/timed.json"
        "${LIB[@]}" sample tool=curl run="$run" +@"$WORK/timed.json" >>"$WORK/fig6.jsonl"
        rm -f "$WORK/eonet6.sqlite"
        "${LIB[@]}" timed "$WORK/python.out" python3 "$ROOT/benchmarks/eonet_refresh.py" "$api" "$WORK/eonet6.sqlite" \
            >"$WORK/timed.json"
        "${LIB[@]}" sample tool=python3 run="$run" +@"$WORK/timed.json" output@"$WORK/python.out" >>"$WORK/fig6.jsonl"
        rm -rf "$WORK/state6"
        for state in fresh filled; do
            run_once "$WORK/fig6.yaml" "$WORK/state6" ok
            "${LIB[@]}" sample tool=monitor state=$state run="$run" +@"$WORK/timed.json" \
                reports@"$WORK/reports.json" >>"$WORK/fig6.jsonl"
        done
    done
    stop_realdata
}

started=$(date +%s)
for figure in $ONLY; do
    case $figure in
        1) figure1 ;;
        2) figure2 ;;
        3) figure3 ;;
        4) figure4 ;;
        5) figure5 ;;
        6) figure6 ;;
        *) die "no figure $figure" ;;
    esac
done

echo
"${LIB[@]}" report "$WORK" "$ROOT/benchmarks/results.json" "$CONFIG${LINK[*]:+ ${LINK[*]}}" "$QUICK"
echo
log "done in $(($(date +%s) - started)) s; figures in benchmarks/results.json"
