#!/usr/bin/env bash
# Per-call CPU and throughput of LegalMoves / ApplyMove beside Echo, on loopback.
#
#   deploy/load-cost.sh [--rounds N] [--concurrency C] [--duration S] [--ceiling] [SERVER_BIN...]
#
# For every server binary (default: target/release/variant-service) and every round, each RPC
# form runs against a fresh server: Echo, LegalMoves full (lean and full read), LegalMoves
# text-only (lean and full read), ApplyMove. Client: target/release/variant-loadgen.
# The server's CPU comes from /proc/<pid>/stat, the client's from /usr/bin/time, so the
# per-call figures hold up when other tenants share the cores (the measured throughput does
# not: it is printed too, per run). Columns:
#   server-only  Echo's server CPU per call / this RPC's: the throughput ratio of a server whose
#                clients run elsewhere;
#   cpu-total    the same with the client's CPU added: the ratio when both share these cores;
#   measured     closed-loop throughput / Echo's, same round (noisy on a shared machine).
#
# --ceiling also builds, in a throw-away worktree, a server whose LegalMoves answers come
# from a cache after the first call of each request (no engine work at all), and measures it
# beside the others: what LegalMoves would cost if the engine's part were free.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=2 conc=8 dur=3 ceiling=0 servers=()
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --concurrency) conc=$2; shift 2 ;;
        --duration) dur=$2; shift 2 ;;
        --ceiling) ceiling=1; shift ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) servers+=("$1"); shift ;;
    esac
done
command -v python3 > /dev/null || { echo "load-cost: needs python3" >&2; exit 1; }
if [[ ! -x /usr/bin/time && $(id -u) == 0 ]] && command -v apt-get > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time > /dev/null 2>&1 ||
        { apt-get update -qq > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time > /dev/null; }
fi
[[ -x /usr/bin/time ]] || { echo "load-cost: needs /usr/bin/time (apt install time)" >&2; exit 1; }

work=""
results=$(mktemp)
trap 'rm -f "$results"; [[ -n $work ]] && { git worktree remove --force "$work/tree" > /dev/null 2>&1; rm -rf "$work"; }; true' EXIT

cargo build --release --locked --quiet -p variant-service -p variant-loadgen
client=target/release/variant-loadgen
# The health check is a subcommand of the server binary.
probe=target/release/variant-service
((${#servers[@]})) || servers=("$probe")

if ((ceiling)); then
    work=$(mktemp -d)
    git worktree add --detach "$work/tree" HEAD > /dev/null
    python3 - "$work/tree/service/api.rs" << 'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
old = """        let pos = self.game(request.position)?.position;
        Ok(Response::new(convert::legal_moves_response(&pos, detail)))"""
new = """        static CACHE: std::sync::OnceLock<
            std::sync::Mutex<std::collections::HashMap<String, pb::LegalMovesResponse>>,
        > = std::sync::OnceLock::new();
        let key = format!("{:?}|{}", request.position, request.detail);
        let cache = CACHE.get_or_init(Default::default);
        if let Some(hit) = cache.lock().expect("cache").get(&key) {
            return Ok(Response::new(hit.clone()));
        }
        let pos = self.game(request.position)?.position;
        let answer = convert::legal_moves_response(&pos, detail);
        cache.lock().expect("cache").insert(key, answer.clone());
        Ok(Response::new(answer))"""
if text.count(old) != 1:
    sys.exit("load-cost: the LegalMoves handler changed; update the --ceiling patch")
open(path, "w").write(text.replace(old, new))
EOF
    CARGO_TARGET_DIR="$PWD/target/ceiling" cargo build --release --locked --quiet \
        --manifest-path "$work/tree/Cargo.toml"
    cp target/ceiling/release/variant-service "$work/variant-service-ceiling"
    servers+=("$work/variant-service-ceiling")
fi

forms=(
    "echo|--rpc echo"
    "full|--rpc legal_moves"
    "full,full-read|--rpc legal_moves --decode full"
    "uci|--rpc legal_moves --legal-detail uci"
    "uci,full-read|--rpc legal_moves --legal-detail uci --decode full"
    "apply|--rpc apply_move"
)
port=$((51000 + RANDOM % 4000))
for ((round = 1; round <= rounds; round++)); do
    for server in "${servers[@]}"; do
        for form in "${forms[@]}"; do
            name=${form%%|*}
            read -r -a args <<< "${form#*|}"
            port=$((port + 1))
            RUST_LOG=warn "$server" --listen "127.0.0.1:$port" > /dev/null 2>&1 &
            pid=$!
            up=0
            for _ in $(seq 50); do
                if "$probe" healthcheck --addr "http://127.0.0.1:$port" > /dev/null 2>&1; then
                    up=1
                    break
                fi
                sleep 0.1
            done
            if ((!up)) || ! kill -0 "$pid" 2> /dev/null; then
                echo "load-cost: $server did not come up on 127.0.0.1:$port" >&2
                kill "$pid" 2> /dev/null || true
                exit 1
            fi
            before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
            out=$({ /usr/bin/time -f "CLIENT_CPU %U %S" "$client" \
                --target "http://127.0.0.1:$port" --concurrency "$conc" --duration "$dur" \
                --seed 1 "${args[@]}"; } 2>&1)
            after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
            kill "$pid"; wait "$pid" 2> /dev/null || true
            json=$(grep '^LOADGEN_JSON ' <<< "$out" | sed 's/^LOADGEN_JSON //')
            cpu=$(grep '^CLIENT_CPU ' <<< "$out" | awk '{print $2 + $3}')
            echo "$round|$server|$name|$((after - before))|$cpu|$(getconf CLK_TCK)|$json" >> "$results"
        done
    done
done

python3 - "$results" << 'EOF'
import json, statistics, sys
from collections import defaultdict
runs = {}
for line in open(sys.argv[1]):
    rnd, server, name, ticks, cpu, hz, js = line.rstrip("\n").split("|", 6)
    j = json.loads(js)
    n = j["requests"]
    bad = n - j["codes"].get("OK", 0) + j.get("legal_moves_wrong", 0)
    runs[(rnd, server, name)] = (int(ticks) / int(hz) * 1e6 / n, float(cpu) * 1e6 / n,
                                 j["throughput_rps"], j["latency_ms"]["p50"],
                                 j["latency_ms"]["p99"], bad)
rows = defaultdict(list)
for (rnd, server, name), (s, c, rps, p50, p99, bad) in runs.items():
    es, ec, erps, *_ = runs[(rnd, server, "echo")]
    rows[(server, name)].append((s, c, es / s, (es + ec) / (s + c), rps / erps, rps, p50, p99, bad))
med = lambda v, i: statistics.median(x[i] for x in v)
print(f"{'server':<28} {'rpc':<14} {'srv us':>7} {'cli us':>7} {'srv-only':>9} {'cpu-total':>9} "
      f"{'measured':>9} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7}  not OK or wrong")
for (server, name), v in sorted(rows.items()):
    print(f"{server.split('/')[-1]:<28} {name:<14} {med(v,0):7.1f} {med(v,1):7.1f} "
          f"{100*med(v,2):8.0f}% {100*med(v,3):8.0f}% {100*med(v,4):8.0f}% {med(v,5):7.0f} "
          f"{med(v,6):7.3f} {med(v,7):7.3f}  {sum(x[8] for x in v)}"
          f"   (measured per run: {' '.join(f'{100*x[4]:.0f}%' for x in v)})")
failed = sum(x[8] for v in rows.values() for x in v)
if failed:
    sys.exit(f"load-cost: {failed} calls failed or were answered wrongly")
EOF
