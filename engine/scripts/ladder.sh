#!/usr/bin/env bash
# Measures the Elo ladder of the playing levels (engine/src/search/levels.rs) for one variant:
# level L against level L+1 for L = 1..7, GAMES games each, every engine held to NODES nodes per
# move on top of its level's own caps (so level 8 plays with NODES nodes).
#
#   engine/scripts/ladder.sh BIN VARIANT [GAMES] [NODES] [OUTDIR]
#
# Resumable: a step whose summary exists in OUTDIR is not played again. At the end it prints
# the variant's rows for engine/levels/ladder.tsv (Elo of L+1 over L from the pentanomial
# estimate, its 95% half-width, games).
set -euo pipefail
bin=${1:?engine binary}
variant=${2:?variant}
games=${3:-100}
nodes=${4:-100000}
out=${5:-ladder-$variant}
mkdir -p "$out"
for low in 1 2 3 4 5 6 7; do
  high=$((low + 1))
  summary="$out/$low-$high.summary"
  [[ -s $summary ]] && continue
  "$bin" match --variant "$variant" --games "$games" --nodes "$nodes" --plies 4 --seed "$low" \
    --concurrency 1 --resign 4,1500 --draw 80,8,10 --max-plies 400 \
    --a name="L$high" cmd="$bin" option.Level="$high" option.Hash=16 \
    --b name="L$low" cmd="$bin" option.Level="$low" option.Hash=16 \
    --results "$out/$low-$high.tsv" > "$out/$low-$high.log" 2>&1
  sed -n '/^== match/,$p' "$out/$low-$high.log" > "$summary"
done
for low in 1 2 3 4 5 6 7; do
  # "Elo (pentanomial, per pair): +123.4 ± 56.7 (...)"
  elo='' margin=''
  read -r elo margin < <(sed -n 's/^Elo (pentanomial, per pair): *\([-+0-9.]*\) ± \([0-9.]*\).*/\1 \2/p' "$out/$low-$((low + 1)).summary") || true
  played=$(sed -n 's/^games \([0-9]*\) .*/\1/p' "$out/$low-$((low + 1)).summary")
  if [[ -z ${elo:-} || -z ${margin:-} || -z $played ]]; then
    echo "ladder: no Elo line in $out/$low-$((low + 1)).summary (match summary format changed?)" >&2
    exit 1
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$variant" "$low" "${elo#+}" "$margin" "$played"
done
