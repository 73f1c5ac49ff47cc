#!/bin/sh
# Search speed: depth reached and nodes/s in a fixed time on the Opulent start position and two
# Opulent middlegames (from engine/tests/data/opulent.tsv), with 1 and 2 threads.
# Usage: engine/scripts/search-speed.sh [seconds] [path to variant-engine]
# Prints one line per run: position, threads, the deepest completed iteration, the search's
# total nodes and nodes/s (wall clock), and nodes per CPU-second of the process (user time), which
# tells a busy machine from a slow engine.
set -eu
SECS=${1:-10}
ENGINE=${2:-target/release/variant-engine}
MS=$((SECS * 1000))
for FEN in \
    "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1" \
    "rw5bwr/c4k1nla/3p2pppp/pl7b/1P7P/8P1/1PPpP1q3/4K2P2/CLNB2B1LA/1R1Q3N1R w - - 0 20" \
    "cq2bbk2r/4l2n1w/2pp4pp/BrP1ppp3/N2Q2lp2/2P2P2La/4P1PWP1/PPL4P2/C6KNR/RW5B2 w - - 0 43"; do
    for THREADS in 1 2; do
        OUT=$( { /usr/bin/time -f "cpu %U" sh -c "printf 'setoption name UCI_Variant value opulent\nsetoption name Threads value $THREADS\nsetoption name Hash value 128\nposition fen $FEN\ngo movetime $MS\n' | $ENGINE" ; } 2>&1 )
        LAST=$(printf '%s\n' "$OUT" | grep '^info depth' | tail -1)
        DEPTH=$(echo "$LAST" | awk '{print $3}')
        SELDEPTH=$(echo "$LAST" | awk '{print $5}')
        NODES=$(echo "$LAST" | sed 's/.* nodes \([0-9]*\).*/\1/')
        NPS=$(echo "$LAST" | sed 's/.* nps \([0-9]*\).*/\1/')
        CPU=$(printf '%s\n' "$OUT" | grep '^cpu' | tail -1 | awk '{print $2}')
        CPUNPS=$(awk "BEGIN { printf \"%d\", $NODES / ($CPU + 0.001) }")
        echo "$(echo "$FEN" | cut -c1-20)... threads $THREADS depth $DEPTH seldepth $SELDEPTH nodes $NODES nps $NPS cpu ${CPU}s nodes/cpu-s $CPUNPS"
    done
done
