#!/usr/bin/env bash
# Loopback cluster test: 3 variant-service replicas on 127.0.0.1 behind nginx
# (deploy/nginx/loopback.conf.template, grpc_pass), driven by `variant-loadgen`.
#
#   bash deploy/cluster-test.sh [--report FILE] [--keep]
#
#   phase 1  throughput through nginx for 1, 2 and 3 replicas (plus 1 replica without nginx
#            as the proxy-overhead baseline), a LegalMoves/ApplyMove/BestMove mix
#   phase 2  graceful restart: SIGTERM one replica mid-run, it must exit 0, restart it on the
#            same port; the load generator must see ZERO non-OK calls
#   phase 3  hard kill: SIGKILL one replica mid-run; at most CONCURRENCY calls may fail (only
#            calls in flight on it), then a follow-up run must see zero failures
#
# Everything runs on loopback, no root needed except to apt-get nginx when it is missing.
# Every process started here is killed on exit; the scratch directory is removed unless
# --keep is given. The whole run takes about 1.5 minutes after the release build.
# Exit status: 0 when every assertion holds, 1 when one fails, 2 on a setup error.
#
# Tunables (environment): CLUSTER_CONCURRENCY (8), CLUSTER_PHASE1_SECS (5),
# CLUSTER_PHASE2_SECS (12, at least 10), CLUSTER_PHASE3_SECS (8), CLUSTER_FOLLOWUP_SECS (4),
# CLUSTER_MIX (legal_moves=70,apply_move=20,best_move=10), CLUSTER_MOVETIME_MS (20).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"

report=""
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --report) report="${2:?--report needs a file}"; shift 2 ;;
        --report=*) report="${1#--report=}"; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
# The report path is relative to the caller's directory, not the repository root.
if [ -n "$report" ] && [ "${report#/}" = "$report" ]; then
    report="$OLDPWD/$report"
fi

replicas=3
concurrency="${CLUSTER_CONCURRENCY:-8}"
phase1_secs="${CLUSTER_PHASE1_SECS:-5}"
phase2_secs="${CLUSTER_PHASE2_SECS:-12}"
phase3_secs="${CLUSTER_PHASE3_SECS:-8}"
followup_secs="${CLUSTER_FOLLOWUP_SECS:-4}"
mix="${CLUSTER_MIX:-legal_moves=70,apply_move=20,best_move=10}"
movetime_ms="${CLUSTER_MOVETIME_MS:-20}"
# Phase 2 must outlast the restart plus nginx's fail_timeout (5 s, see start_nginx): a peer
# that refused a connect gets calls again only after that.
[ "$phase2_secs" -ge 10 ] || { echo "CLUSTER_PHASE2_SECS must be at least 10" >&2; exit 2; }
# Generous: a call only misses it when something is wrong, and then we want to see it.
deadline_ms=5000

log() { printf '[cluster-test %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

# ---------------------------------------------------------------------------- cleanup
tmp="$(mktemp -d "${TMPDIR:-/tmp}/cluster-test.XXXXXX")"
declare -a replica_pid=()   # index = replica number; empty when not running
declare -a extra_pids=()    # nginx instances and background load generators
cleanup() {
    local rc=$? pid
    trap - EXIT INT TERM
    # bash reports every SIGKILLed background job ("Killed ...") on stderr: mute it here.
    exec 3>&2 2> /dev/null
    # SIGKILL: graceful shutdown is tested explicitly above; here we only must not leak.
    for pid in "${replica_pid[@]}" "${extra_pids[@]}"; do
        [ -n "$pid" ] || continue
        # Background load runs are subshells: their load generator is a child process.
        pkill -KILL -P "$pid" 2> /dev/null || true
        kill -KILL "$pid" 2> /dev/null || true
    done
    for pid in "${replica_pid[@]}" "${extra_pids[@]}"; do
        [ -n "$pid" ] && wait "$pid" 2> /dev/null || true
    done
    exec 2>&3 3>&-
    if [ "$keep" = 1 ] || [ "$rc" -ne 0 ]; then
        log "scratch directory kept: $tmp"
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------- setup
log "building the release binaries (reused when up to date)"
cargo build --release --locked -q -p variant-service -p variant-loadgen
release="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release"
bin="$release/variant-service"
[ -x "$bin" ] || die "no binary at $bin"
loadgen=("$release/variant-loadgen")
# CLUSTER_LOADGEN="cmd args": another load generator with the same CLI (for debugging this script).
if [ -n "${CLUSTER_LOADGEN:-}" ]; then
    read -r -a loadgen <<< "$CLUSTER_LOADGEN"
fi
"${loadgen[@]}" --help > /dev/null 2>&1 || die "'${loadgen[*]} --help' fails"

if ! command -v nginx > /dev/null; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
        die "nginx is missing and cannot be installed here (not root or no apt-get)"
    fi
    log "installing nginx from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq > /dev/null
    # nginx-light exists up to Debian 12; Debian 13 ships only `nginx`.
    apt-get install -y -qq --no-install-recommends nginx-light > /dev/null 2>&1 \
        || apt-get install -y -qq --no-install-recommends nginx > /dev/null
fi
log "$(nginx -v 2>&1), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Free loopback ports: bind port 0 for all of them at once (so they are distinct), then
# release them. Another process could grab one in between; startup then fails loudly.
read -r -a ports < <(python3 - "$((replicas + 1))" << 'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
)
lb_port="${ports[$replicas]}"
declare -a replica_port=("${ports[@]:0:$replicas}")
log "replicas on ${replica_port[*]}, nginx on $lb_port, scratch $tmp"

# ---------------------------------------------------------------------------- replicas
start_replica() { # index
    local i="$1"
    # Two search slots (the deploy default); 10 s drain is far longer than a 20 ms search.
    VARIANT_LISTEN="127.0.0.1:${replica_port[$i]}" VARIANT_MAX_SEARCHES=2 \
        VARIANT_SEARCH_THREADS=1 VARIANT_SEARCH_QUEUE=16 VARIANT_SHUTDOWN_GRACE_SECS=10 \
        RUST_LOG=info "$bin" >> "$tmp/replica$i.log" 2>&1 &
    replica_pid[i]=$!
}

# Polls the health check until SERVING; fails if the process died or after 30 s.
wait_healthy() { # addr-port [pid-to-watch]
    local port="$1" pid="${2:-}" tries=300
    until "$bin" healthcheck --addr "http://127.0.0.1:$port" > /dev/null 2>&1; do
        if [ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null; then
            die "process $pid for port $port exited before becoming healthy (see $tmp)"
        fi
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || die "port $port not SERVING after 30 s"
        sleep 0.1
    done
}

# ---------------------------------------------------------------------------- nginx
nginx_pid=""
nginx_dir=""
start_nginx() { # name port...
    local name="$1" servers="" p
    shift
    nginx_dir="$tmp/nginx-$name"
    mkdir -p "$nginx_dir/tmp"
    # Same peer parameters as deploy/nginx/nginx.conf: after one failed connect a replica is
    # skipped for 5 s, then probed again by one call (which nginx retries elsewhere on failure).
    for p in "$@"; do
        servers+="        server 127.0.0.1:$p max_fails=1 fail_timeout=5s;"$'\n'
    done
    # Plain text substitution (not envsubst: it would eat nginx's $variables).
    python3 - "$repo/deploy/nginx/loopback.conf.template" "$nginx_dir/nginx.conf" \
        "127.0.0.1:$lb_port" "${servers%$'\n'}" << 'EOF'
import sys
tpl, out, listen, servers = sys.argv[1:]
text = open(tpl, encoding="utf-8").read()
assert text.count("__LISTEN__") == 1 and text.count("__UPSTREAM_SERVERS__") == 1
open(out, "w", encoding="utf-8").write(
    text.replace("__LISTEN__", listen).replace("__UPSTREAM_SERVERS__", servers))
EOF
    nginx -t -q -p "$nginx_dir" -c "$nginx_dir/nginx.conf" -e stderr
    nginx -p "$nginx_dir" -c "$nginx_dir/nginx.conf" -e stderr 2>> "$nginx_dir/error.log" &
    nginx_pid=$!
    extra_pids+=("$nginx_pid")
    # A health check through nginx proves the listener and at least one upstream work.
    wait_healthy "$lb_port" "$nginx_pid"
}

stop_nginx() {
    # QUIT = graceful: finish open requests, then exit. The port is free again afterwards.
    kill -QUIT "$nginx_pid"
    wait "$nginx_pid" || true
    nginx_pid=""
}

# Calls in the access log served by 127.0.0.1:PORT from line FROM on (1-based). A retried
# call lists every upstream it tried ("a, b"); only the last one served it.
served_by() { # port from-line
    tail -n "+$2" "$nginx_dir/access.log" |
        awk -F'\t' -v up="127.0.0.1:$1" '{ n = split($5, a, ", "); if (a[n] == up) c++ } END { print c + 0 }'
}
log_lines() { if [ -f "$nginx_dir/access.log" ]; then wc -l < "$nginx_dir/access.log"; else echo 0; fi; }

# Waits until 127.0.0.1:PORT has served at least N calls since line FROM: "mid-run" means
# load is demonstrably flowing through that replica, not a guessed sleep.
wait_served() { # port from-line n
    local tries=200
    until [ "$(served_by "$1" "$2")" -ge "$3" ]; do
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || die "replica on port $1 served fewer than $3 calls in 20 s"
        sleep 0.1
    done
}

# ---------------------------------------------------------------------------- load
# Runs the load generator; its LOADGEN_JSON line is kept as $tmp/NAME.json.
run_load() { # name target-port secs
    local name="$1" port="$2" secs="$3" rc=0
    # timeout: the load generator bounds itself (duration + deadline), this is a backstop.
    timeout --kill-after=5 "$((secs + 30))" \
        "${loadgen[@]}" --target "http://127.0.0.1:$port" --rpc mix --mix "$mix" \
        --concurrency "$concurrency" --duration "$secs" --movetime-ms "$movetime_ms" \
        --deadline-ms "$deadline_ms" > "$tmp/$name.out" 2>&1 || rc=$?
    sed -n 's/^LOADGEN_JSON //p' "$tmp/$name.out" | tail -n 1 > "$tmp/$name.json"
    if [ ! -s "$tmp/$name.json" ]; then
        cat "$tmp/$name.out" >&2
        die "load generator run '$name' (exit $rc) printed no LOADGEN_JSON line"
    fi
    echo "$rc" > "$tmp/$name.rc"
}

# One field of a run's summary, from its LOADGEN_JSON line (keys of tools/loadgen/src/lib.rs):
#   ok, failed (non-OK calls plus calls abandoned at the end of the run), rps, p50, p99,
#   codes (the non-OK status counts as text, "-" when there are none).
# A missing key raises: a changed loadgen format must fail this script, not read as 0.
field() { # name field
    python3 - "$tmp/$1.json" "$2" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
codes = {k: int(v) for k, v in d["codes"].items()}
if int(d["not_finished"]):
    codes["not_finished"] = int(d["not_finished"])
bad = {k: v for k, v in sorted(codes.items()) if k != "OK" and v}
print({
    "ok": codes.get("OK", 0),
    "failed": sum(bad.values()),
    "rps": f'{float(d["throughput_rps"]):.0f}',
    "p50": f'{float(d["latency_ms"]["p50"]):.2f}',
    "p99": f'{float(d["latency_ms"]["p99"]):.2f}',
    "codes": ", ".join(f"{k}={v}" for k, v in bad.items()) or "-",
}[sys.argv[2]])
EOF
}

failures=0
declare -a results=()
assert() { # description condition-command...
    local what="$1"
    shift
    if "$@"; then
        results+=("| PASS | $what |")
        log "PASS: $what"
    else
        results+=("| **FAIL** | $what |")
        log "FAIL: $what"
        failures=$((failures + 1))
    fi
}

# ---------------------------------------------------------------------------- start
for i in $(seq 0 $((replicas - 1))); do start_replica "$i"; done
for i in $(seq 0 $((replicas - 1))); do wait_healthy "${replica_port[$i]}" "${replica_pid[$i]}"; done
log "$replicas replicas SERVING"

# ---------------------------------------------------------------------------- phase 1
declare -a throughput_rows=()
throughput_row() { # label name
    throughput_rows+=("| $1 | $(field "$2" rps) | $(field "$2" p50) | $(field "$2" p99) | $(field "$2" ok) | $(field "$2" codes) |")
}

log "phase 1: 1 replica direct (no nginx), ${phase1_secs}s"
run_load p1-direct "${replica_port[0]}" "$phase1_secs"
throughput_row "1 replica, direct (no nginx)" p1-direct
for n in $(seq 1 "$replicas"); do
    log "phase 1: $n replica(s) behind nginx, ${phase1_secs}s"
    start_nginx "p1-$n" "${replica_port[@]:0:$n}"
    run_load "p1-$n" "$lb_port" "$phase1_secs"
    stop_nginx
    throughput_row "$n replica(s) via nginx" "p1-$n"
    assert "phase 1, $n replica(s): every call OK" [ "$(field "p1-$n" failed)" -eq 0 ]
done

# ---------------------------------------------------------------------------- phase 2
victim=1
victim_port="${replica_port[$victim]}"
start_nginx cluster "${replica_port[@]}"

log "phase 2: graceful restart of the replica on $victim_port under load, ${phase2_secs}s"
from="$(( $(log_lines) + 1 ))"
run_load p2 "$lb_port" "$phase2_secs" &
load_pid=$!
extra_pids+=("$load_pid")
wait_served "$victim_port" "$from" 50
t0="$(date +%s.%N)"
kill -TERM "${replica_pid[$victim]}"
# Bounded: the replica must exit within its 10 s grace period (plus slack), not hang the test.
tries=150
while kill -0 "${replica_pid[$victim]}" 2> /dev/null && [ "$tries" -gt 0 ]; do
    tries=$((tries - 1))
    sleep 0.1
done
kill -0 "${replica_pid[$victim]}" 2> /dev/null && die "replica on $victim_port still running 15 s after SIGTERM"
term_rc=0
wait "${replica_pid[$victim]}" || term_rc=$?
t1="$(date +%s.%N)"
replica_pid[victim]=""
start_replica "$victim"
wait_healthy "$victim_port" "${replica_pid[$victim]}"
t2="$(date +%s.%N)"
restart_line="$(( $(log_lines) + 1 ))"
wait "$load_pid" || true
[ -s "$tmp/p2.json" ] || die "phase 2 load run failed (see $tmp/p2.out)"
served_after_restart="$(served_by "$victim_port" "$restart_line")"
# Calls nginx sent to the stopped replica, found its port closed and retried elsewhere:
# evidence that the retry path was exercised, not just that the timing was lucky.
retried_connects="$(grep -c 'connect() failed' "$nginx_dir/error.log" || true)"
drain_s="$(python3 -c "print(f'{$t1 - $t0:.2f}')")"
restart_s="$(python3 -c "print(f'{$t2 - $t1:.2f}')")"
log "phase 2: exit $term_rc after ${drain_s}s, SERVING again ${restart_s}s later," \
    "$served_after_restart calls after restart, $retried_connects refused connect(s) retried by nginx"
assert "phase 2: SIGTERM'd replica exited 0 (exit $term_rc, drained in ${drain_s}s)" [ "$term_rc" -eq 0 ]
assert "phase 2: zero failed calls across the graceful restart ($(field p2 ok) OK; non-OK: $(field p2 codes))" \
    [ "$(field p2 failed)" -eq 0 ]
assert "phase 2: load generator exited 0" [ "$(cat "$tmp/p2.rc")" -eq 0 ]
assert "phase 2: restarted replica served calls again ($served_after_restart)" [ "$served_after_restart" -gt 0 ]

# ---------------------------------------------------------------------------- phase 3
log "phase 3: SIGKILL the replica on $victim_port under load, ${phase3_secs}s"
from="$(( $(log_lines) + 1 ))"
run_load p3 "$lb_port" "$phase3_secs" &
load_pid=$!
extra_pids+=("$load_pid")
wait_served "$victim_port" "$from" 50
kill -KILL "${replica_pid[$victim]}"
# (stderr muted: bash would print "Killed" and the whole command line of the job)
{ wait "${replica_pid[$victim]}" || true; } 2> /dev/null
replica_pid[victim]=""
wait "$load_pid" || true
[ -s "$tmp/p3.json" ] || die "phase 3 load run failed (see $tmp/p3.out)"
p3_failed="$(field p3 failed)"
# Bound: each of the CONCURRENCY client workers has at most one call in flight, so at most
# CONCURRENCY calls were running on the killed replica. nginx does not retry those (already
# sent, and a POST: see the template). A call that picked an idle upstream connection in the
# instant before nginx saw it close fails too, but the first failure marks the peer down
# (max_fails=1) and later calls get connect refused, which nginx retries on another replica:
# so each worker loses at most the one call it had in flight at the kill.
assert "phase 3: failed calls on SIGKILL <= concurrency ($p3_failed <= $concurrency; non-OK: $(field p3 codes))" \
    [ "$p3_failed" -le "$concurrency" ]
assert "phase 3: calls kept succeeding ($(field p3 ok) OK)" [ "$(field p3 ok)" -gt 0 ]

log "phase 3: follow-up run with the replica still dead, ${followup_secs}s"
run_load p3-after "$lb_port" "$followup_secs"
assert "phase 3: follow-up run after the kill has zero failed calls ($(field p3-after ok) OK; non-OK: $(field p3-after codes))" \
    [ "$(field p3-after failed)" -eq 0 ]
stop_nginx

# ---------------------------------------------------------------------------- report
{
    echo "### Loopback cluster test ($(date -u +%Y-%m-%dT%H:%MZ))"
    echo
    echo "$(nginx -v 2>&1 | sed 's/^nginx version: //'), $(nproc) cores (load generator, nginx and replicas share them)," \
        "concurrency $concurrency, mix \`$mix\`, BestMove movetime ${movetime_ms} ms," \
        "each replica \`VARIANT_MAX_SEARCHES=2\`."
    echo
    echo "Phase 1, throughput (${phase1_secs} s per row):"
    echo
    echo "| setup | req/s | p50 ms | p99 ms | OK | non-OK |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${throughput_rows[@]}"
    echo
    echo "Phases 2 and 3, failover (3 replicas via nginx):"
    echo
    echo "| run | req/s | p99 ms | OK | non-OK |"
    echo "|---|---|---|---|---|"
    echo "| graceful restart (SIGTERM, drain ${drain_s} s, SERVING again after ${restart_s} s; nginx retried $retried_connects refused connect(s)), ${phase2_secs} s | $(field p2 rps) | $(field p2 p99) | $(field p2 ok) | $(field p2 codes) |"
    echo "| hard kill (SIGKILL), ${phase3_secs} s | $(field p3 rps) | $(field p3 p99) | $(field p3 ok) | $(field p3 codes) |"
    echo "| after the kill, 2 replicas left, ${followup_secs} s | $(field p3-after rps) | $(field p3-after p99) | $(field p3-after ok) | $(field p3-after codes) |"
    echo
    echo "| result | assertion |"
    echo "|---|---|"
    printf '%s\n' "${results[@]}"
} > "$tmp/report.md"
echo
cat "$tmp/report.md"
if [ -n "$report" ]; then
    cp "$tmp/report.md" "$report"
    log "report written to $report"
fi

if [ "$failures" -gt 0 ]; then
    log "$failures assertion(s) FAILED"
    exit 1
fi
log "all assertions passed"
