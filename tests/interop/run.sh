#!/usr/bin/env bash
# Interop check: builds the release server, starts it on a free loopback port, waits until it
# reports SERVING, runs interop.py (Python grpcio client generated from proto/), then stops the
# server with SIGTERM and expects a clean exit 0. Exits non-zero on any failure.
# interop.py also decodes the google.rpc error details with grpcio-status.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

packages=(grpcio grpcio-tools grpcio-reflection grpcio-health-checking grpcio-status)
python3 -m pip install --quiet --disable-pip-version-check "${packages[@]}" 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${packages[@]}"

cargo build --release --locked --bin variant-service
bin="${CARGO_TARGET_DIR:-$root/target}/release/variant-service"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
# One search slot and no queue, so that interop.py can provoke a SEARCH_BUSY refusal.
"$bin" --listen "127.0.0.1:$port" --max-searches 1 --search-queue 0 >"$log" 2>&1 &
pid=$!
cleanup() {
    if kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
    rm -f "$log"
}
trap cleanup EXIT

ready=0
for _ in $(seq 1 100); do
    if "$bin" healthcheck --addr "http://127.0.0.1:$port" 2>/dev/null; then ready=1; break; fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
done
if [ "$ready" != 1 ]; then
    echo "interop: server did not become SERVING on port $port" >&2
    cat "$log" >&2
    exit 1
fi

if ! python3 tests/interop/interop.py --addr "127.0.0.1:$port"; then
    echo "--- server log" >&2
    cat "$log" >&2
    exit 1
fi

kill -TERM "$pid"
if wait "$pid"; then
    echo "interop: server drained and exited 0 on SIGTERM"
else
    status=$?
    echo "interop: server exited $status on SIGTERM" >&2
    cat "$log" >&2
    exit 1
fi
