#!/usr/bin/env python3
"""Black-box interop check of variant-service with Python grpcio (a client nobody here wrote).

Generates a client from proto/ with grpc_tools.protoc into a temporary directory, then runs the
public RPCs against a running server. Exits non-zero on the first failure.

Usage: interop.py --addr 127.0.0.1:50051 [--proto-root proto]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

SERVICE = "chessvariants.engine.v1.GameEngine"
DOMAIN = "chessvariants.engine.v1"
PROTO = "chessvariants/engine/v1/engine.proto"
TIMEOUT = 60.0


def generate(proto_root, out_dir):
    """Compiles the .proto with grpcio-tools and makes the modules importable."""
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_root}",
         f"--python_out={out_dir}", f"--grpc_python_out={out_dir}", PROTO],
        check=True,
    )
    sys.path.insert(0, out_dir)
    from chessvariants.engine.v1 import engine_pb2, engine_pb2_grpc  # noqa: E402
    return engine_pb2, engine_pb2_grpc


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok   {what}")


def run(addr, pb, pb_grpc):
    channel = grpc.insecure_channel(addr)
    grpc.channel_ready_future(channel).result(timeout=10)
    stub = pb_grpc.GameEngineStub(channel)

    health = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT)
    check(health.status == health_pb2.HealthCheckResponse.SERVING, "health is SERVING")

    variants = stub.ListVariants(pb.ListVariantsRequest(), timeout=TIMEOUT).variants
    names = [v.name for v in variants]
    check("chess" in names, f"ListVariants lists chess ({', '.join(names)})")
    for v in variants:
        legal = stub.LegalMoves(
            pb.LegalMovesRequest(position=pb.Position(variant=v.name)), timeout=TIMEOUT)
        check(len(legal.moves) > 0 and legal.status.ongoing,
              f"LegalMoves {v.name}: {len(legal.moves)} moves, ongoing")

    start = pb.Position(variant="chess")
    legal = stub.LegalMoves(pb.LegalMovesRequest(position=start), timeout=TIMEOUT)
    ucis = {m.uci for m in legal.moves}
    check(len(legal.moves) == 20 and "e2e4" in ucis, "LegalMoves chess start: 20 moves incl. e2e4")

    applied = stub.ApplyMove(pb.ApplyMoveRequest(position=start, move="e4"), timeout=TIMEOUT)
    check(list(applied.position.moves) == ["e2e4"], "ApplyMove SAN e4 -> moves [e2e4]")
    check(applied.move.uci == "e2e4" and applied.move.to == "e4", "ApplyMove describes the move")
    check(" b " in applied.fen and applied.status.ongoing, f"ApplyMove FEN {applied.fen}")

    best = stub.BestMove(
        pb.BestMoveRequest(position=start, limits=pb.Limits(depth=4)), timeout=TIMEOUT)
    check(best.move.uci in ucis, f"BestMove depth 4 -> legal move {best.move.uci}")
    check(best.depth == 4 and best.nodes > 0, f"BestMove reports depth {best.depth}")

    updates = list(stub.Analyze(
        pb.AnalyzeRequest(position=start, limits=pb.Limits(depth=3)), timeout=TIMEOUT))
    check(len(updates) >= 2 and updates[-1].WhichOneof("update") == "result",
          f"Analyze streamed {len(updates) - 1} updates then the result")

    perft = stub.Perft(pb.PerftRequest(position=start, depth=3), timeout=TIMEOUT)
    check(perft.nodes == 8902, f"Perft chess depth 3 = {perft.nodes}")

    try:
        stub.LegalMoves(pb.LegalMovesRequest(
            position=pb.Position(variant="chess", fen="not a fen")), timeout=TIMEOUT)
        raise AssertionError("a bad FEN was accepted")
    except grpc.RpcError as err:
        check(err.code() == grpc.StatusCode.INVALID_ARGUMENT and "FEN" in err.details(),
              f"bad FEN -> {err.code().name}: {err.details()}")

    check_error_details(stub, pb)
    check_clock_game(stub, pb)
    check_levels_and_seeds(stub, pb)
    check_records(stub, pb)

    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = reflection.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=TIMEOUT)
    services = [s.name for r in responses for s in r.list_services_response.service]
    check(SERVICE in services, f"reflection (v1alpha) lists {', '.join(services)}")


def error_details(err):
    """The google.rpc details of a failed call, by type name (ErrorInfo, BadRequest, RetryInfo)."""
    status = rpc_status.from_call(err)
    if status is None:
        raise AssertionError(f"no grpc-status-details-bin on {err.code().name}: {err.details()}")
    found = {}
    for detail in status.details:
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest,
                     error_details_pb2.RetryInfo):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                found[kind.__name__] = message
    return found


def refused(call, code):
    """Runs `call`, which must fail with `code`; returns the error."""
    try:
        call()
    except grpc.RpcError as err:
        if err.code() != code:
            raise AssertionError(f"expected {code.name}, got {err.code().name}: {err.details()}")
        return err
    raise AssertionError(f"expected {code.name}, the call was accepted")


def check_error_details(stub, pb):
    """Every refusal carries ErrorInfo (reason, domain) and BadRequest naming the field."""
    mated = ["f2f3", "e7e5", "g2g4", "d8h4"]
    cases = [
        ("UNKNOWN_VARIANT", "position.variant",
         pb.ApplyMoveRequest(position=pb.Position(variant="xiangqi"), move="e2e4")),
        ("INVALID_FEN", "position.fen",
         pb.ApplyMoveRequest(position=pb.Position(variant="chess", fen="hello"), move="e2e4")),
        ("UNPARSABLE_MOVE", "move",
         pb.ApplyMoveRequest(position=pb.Position(variant="chess"), move="zz9!")),
        ("ILLEGAL_MOVE", "position.moves[1]",
         pb.ApplyMoveRequest(position=pb.Position(variant="chess", moves=["e2e4", "e2e4"]),
                             move="e7e5")),
        ("GAME_OVER", "move",
         pb.ApplyMoveRequest(position=pb.Position(variant="chess", moves=mated), move="a2a3")),
        ("GAME_OVER", "position.moves[8]",
         pb.ApplyMoveRequest(position=pb.Position(
             variant="chess", moves=["g1f3", "g8f6", "f3g1", "f6g8"] * 2 + ["e2e4"]),
             move="e7e5")),
        ("AMBIGUOUS_MOVE", "move",
         pb.ApplyMoveRequest(position=pb.Position(
             variant="chess", fen="4k3/8/8/8/8/8/4K3/R6R w - - 0 1"), move="Rd1")),
        ("ILLEGAL_MOVE", "move",
         pb.ApplyMoveRequest(position=pb.Position(
             variant="chess", fen="4k3/8/8/8/8/8/4K3/R6R w - - 0 1"), move="e2e4")),
        ("TOO_MANY_MOVES", "position.moves",
         pb.ApplyMoveRequest(position=pb.Position(
             variant="chess", moves=["g1f3", "g8f6", "f3g1", "f6g8"] * 251), move="e2e4")),
    ]
    for reason, field, request in cases:
        err = refused(lambda: stub.ApplyMove(request, timeout=TIMEOUT),
                      grpc.StatusCode.INVALID_ARGUMENT)
        details = error_details(err)
        info, bad = details.get("ErrorInfo"), details.get("BadRequest")
        check(info is not None and info.reason == reason and info.domain == DOMAIN
              and bad is not None and bad.field_violations[0].field == field,
              f"{reason} on {field}: {err.details()}")
    for field, limits in [("limits.level", pb.Limits(level=9)),
                          ("limits.search_moves[0]", pb.Limits(search_moves=["e2e5"]))]:
        err = refused(lambda: stub.BestMove(pb.BestMoveRequest(
            position=pb.Position(variant="chess"), limits=limits), timeout=TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT)
        details = error_details(err)
        check(details["BadRequest"].field_violations[0].field == field,
              f"{details['ErrorInfo'].reason} on {field}: {err.details()}")
    err = refused(lambda: stub.BestMove(pb.BestMoveRequest(
        position=pb.Position(variant="chess"), limits=pb.Limits(depth=999)), timeout=TIMEOUT),
        grpc.StatusCode.INVALID_ARGUMENT)
    details = error_details(err)
    check(details["ErrorInfo"].reason == "LIMIT_OUT_OF_RANGE"
          and details["BadRequest"].field_violations[0].field == "limits.depth",
          f"LIMIT_OUT_OF_RANGE on limits.depth: {err.details()}")

    # Huge inputs: a default grpcio client receives the whole, short message.
    for what, position in [
        ("1 MB variant name", pb.Position(variant="v" * 1_000_000)),
        ("1 MB FEN", pb.Position(variant="chess",
                                 fen="8/8/8/8/8/8/8/K6k " + "w" * 1_000_000 + " - - 0 1")),
    ]:
        err = refused(lambda: stub.LegalMoves(pb.LegalMovesRequest(position=position),
                                              timeout=TIMEOUT),
                      grpc.StatusCode.INVALID_ARGUMENT)
        message = err.details()
        check(len(message) < 400 and "(1000000 characters)" in message,
              f"{what}: {len(message)}-character message: {message[:60]}...")

    # SEARCH_BUSY with RetryInfo: the server runs one slot and no queue (run.sh).
    hold = stub.Analyze(pb.AnalyzeRequest(position=pb.Position(variant="chess"),
                                          limits=pb.Limits(movetime_ms=10_000)), timeout=TIMEOUT)
    next(hold)
    err = refused(lambda: stub.BestMove(pb.BestMoveRequest(
        position=pb.Position(variant="chess"), limits=pb.Limits(depth=2)), timeout=TIMEOUT),
        grpc.StatusCode.RESOURCE_EXHAUSTED)
    details = error_details(err)
    retry = details.get("RetryInfo")
    trailer = dict(err.trailing_metadata() or ()).get("retry-after-ms")
    check(details["ErrorInfo"].reason == "SEARCH_BUSY" and retry is not None
          and retry.retry_delay.ToMilliseconds() == int(trailer),
          f"SEARCH_BUSY with RetryInfo {retry.retry_delay.ToMilliseconds()} ms "
          f"= retry-after-ms {trailer}")
    hold.cancel()


def best_move(stub, request):
    """BestMove as a well-behaved client calls it: a SEARCH_BUSY refusal (the one slot may still
    be freeing after an earlier cancelled call) is retried after a short wait."""
    for _ in range(100):
        try:
            return stub.BestMove(request, timeout=TIMEOUT)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            time.sleep(0.05)
    raise AssertionError("the search slot stayed busy for 5 s")


def check_clock_game(stub, pb):
    """A whole clock game between level 8 and level 4 through BestMove with `clock`: no flag
    falls, and level 8's thinking time follows its clock (it uses a share of what is left)."""
    base_ms, inc_ms = 4_000, 40
    clock = {"white": base_ms, "black": base_ms}
    moves, used = [], {"white": [], "black": []}
    levels = {"white": 8, "black": 4}
    status = None
    for ply in range(400):
        side = "white" if ply % 2 == 0 else "black"
        limits = pb.Limits(level=levels[side], clock=pb.Clock(
            white_ms=clock["white"], black_ms=clock["black"],
            white_increment_ms=inc_ms, black_increment_ms=inc_ms))
        started = time.monotonic()
        best = best_move(stub, pb.BestMoveRequest(
            position=pb.Position(variant="chess", moves=moves), limits=limits))
        spent = int((time.monotonic() - started) * 1000)
        if not best.HasField("move"):
            status = best.status
            break
        if spent > clock[side]:
            raise AssertionError(f"{side} flagged at ply {ply}: {spent} ms of {clock[side]} ms")
        used[side].append((clock[side], spent))
        clock[side] += inc_ms - spent
        moves.append(best.move.uci)
        status = best.status
    check(len(moves) >= 20, f"clock game: {len(moves)} plies, ended {pb.Termination.Name(status.reason)}"
          f", clocks left {clock['white']} / {clock['black']} ms")
    early = [spent for left, spent in used["white"][:10]]
    check(max(early) < base_ms / 4 and sum(early) > 10,
          f"level 8 follows its clock: first moves took {early} ms of {base_ms} ms")


def check_levels_and_seeds(stub, pb):
    """Level 2 without a seed varies from game to game; with the same seed it repeats."""
    def game(seed):
        moves = []
        for _ in range(12):
            limits = pb.Limits(level=2, seed=seed) if seed is not None else pb.Limits(level=2)
            best = best_move(stub, pb.BestMoveRequest(
                position=pb.Position(variant="chess", moves=moves), limits=limits))
            if not best.HasField("move"):
                # Two weak players can end a game inside 12 plies (a quick mate): the
                # game so far is the game.
                break
            moves.append(best.move.uci)
        return moves
    check(game(11) == game(11), "level 2 with seed 11 plays the same game twice")
    check(game(None) != game(None), "level 2 without a seed plays two different games")
    levels = stub.ListVariants(pb.ListVariantsRequest(), timeout=TIMEOUT).variants[0].levels
    check([l.level for l in levels] == list(range(1, 9)), "ListVariants lists levels 1..8")


def check_records(stub, pb):
    """ReplayGame and ValidateFen answer as a game backend needs."""
    replay = stub.ReplayGame(pb.ReplayGameRequest(
        position=pb.Position(variant="chess", moves=["f3", "e5", "g4", "Qh4"]), fens=True),
        timeout=TIMEOUT)
    check([m.san for m in replay.moves] == ["f3", "e5", "g4", "Qh4#"] and len(replay.fens) == 4
          and '[Result "0-1"]' in replay.pgn,
          f"ReplayGame: SAN, FENs and PGN ({replay.pgn.splitlines()[-1]})")
    report = stub.ValidateFen(pb.ValidateFenRequest(
        variant="chess", fen="4k3/8/8/8/8/8/8/P3K3 x KQ - 0 1"), timeout=TIMEOUT)
    fields = [p.field for p in report.problems]
    check(not report.valid and len(fields) >= 2 and "side" in fields,
          f"ValidateFen lists every problem: {fields}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--addr", default="127.0.0.1:50051")
    parser.add_argument("--proto-root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out_dir:
        pb, pb_grpc = generate(args.proto_root, out_dir)
        try:
            run(args.addr, pb, pb_grpc)
        except (AssertionError, grpc.RpcError) as err:
            print(f"FAIL {err}", file=sys.stderr)
            return 1
    print("interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
