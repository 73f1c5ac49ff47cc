#!/usr/bin/env python3
"""Fits a variant's win-rate model (engine/src/search/wdl.rs) to match PGNs of our engine.

    engine/scripts/wdl-fit.py VARIANT FILE.pgn...

Reads the PGNs `variant-engine match` writes: every move comment `{+0.35/9 41ms}` is the mover's
score in pawns, the `Result` tag the game's end. Each scored move gives one sample (score from
the mover's view, result from the mover's view). Games adjudicated by the ply limit are kept
(they are draws); mate scores are left out (the model gives them certainty anyway).

The model: P(win) = s((x - a) / b), P(loss) = s((-x - a) / b), P(draw) = the rest, s the
logistic function; a and b maximise the likelihood of the observed results (a coarse grid,
then a pattern search; two parameters need nothing more). Prints the row for
engine/wdl/model.tsv: variant, a, b, positions, games.

Standard library only, so it runs wherever the repository's tests run.
"""

import math
import re
import sys

COMMENT = re.compile(r"\{([-+]?\d+\.\d+)/\d+ \d+ms\}")
RESULT = re.compile(r'\[Result "([^"]+)"\]')
FEN = re.compile(r'\[FEN "[^"]*? ([wb]) ')
MOVE_TOKEN = re.compile(r"\{[^}]*\}|\d+\.(?:\.\.)?|\S+")


def samples(path):
    """Yields (score_cp, outcome) per scored move, outcome 1 win / 0.5 draw / 0 loss."""
    text = open(path, encoding="utf-8").read()
    games = 0
    for game in re.split(r"\n(?=\[Event )", text):
        result = RESULT.search(game)
        if not result or result.group(1) not in ("1-0", "0-1", "1/2-1/2"):
            continue
        games += 1
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result.group(1)]
        fen = FEN.search(game)
        mover_white = not (fen and fen.group(1) == "b")
        body = game[game.rfind("]") + 1 :]
        last_mover_white = None
        for token in MOVE_TOKEN.findall(body):
            if token.startswith("{"):
                m = COMMENT.fullmatch(token)
                if m and last_mover_white is not None:
                    cp = float(m.group(1)) * 100.0
                    yield cp, white if last_mover_white else 1.0 - white
            elif re.fullmatch(r"\d+\.(\.\.)?", token) or token in ("1-0", "0-1", "1/2-1/2", "*"):
                continue
            else:
                last_mover_white = mover_white
                mover_white = not mover_white
    samples.games += games


samples.games = 0


def log_likelihood(data, a, b):
    total = 0.0
    for x, outcome in data:
        win = 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, -(x - a) / b))))
        loss = 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, -(-x - a) / b))))
        draw = max(1e-9, 1.0 - win - loss)
        p = win if outcome == 1.0 else loss if outcome == 0.0 else draw
        total += math.log(max(p, 1e-12))
    return total


def fit(data):
    best = max(
        ((a, b) for a in range(0, 1001, 50) for b in range(20, 801, 40)),
        key=lambda ab: log_likelihood(data, *ab),
    )
    a, b = map(float, best)
    step = 25.0
    score = log_likelihood(data, a, b)
    while step > 0.5:
        moved = False
        for da, db in ((step, 0), (-step, 0), (0, step), (0, -step)):
            if b + db <= 1:
                continue
            s = log_likelihood(data, a + da, b + db)
            if s > score:
                a, b, score, moved = a + da, b + db, s, True
        if not moved:
            step /= 2
    return a, b


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    variant, paths = sys.argv[1], sys.argv[2:]
    data = [s for path in paths for s in samples(path)]
    if len(data) < 1000:
        sys.exit(f"only {len(data)} scored moves: too few for a fit")
    # Every 7th sample keeps the fit quick; neighbouring moves of a game say nearly the same.
    thinned = data[::7] if len(data) > 140_000 else data
    a, b = fit(thinned)
    print(f"{variant}\t{a:.1f}\t{b:.1f}\t{len(data)}\t{samples.games}")


if __name__ == "__main__":
    main()
