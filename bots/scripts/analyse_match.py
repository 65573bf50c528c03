# analyse_match.py -- gammond's match analysis; runs INSIDE GNU Backgammon's embedded
# Python 3 (gnubg 1.07), started by bg::bots::analysis_queue as
#
#     HOME=<scratch> GAMMOND_ANALYSIS_MAT=match.mat GAMMOND_ANALYSIS_OUT=result.json \
#     GAMMOND_ANALYSIS_PLIES=2 gnubg -t -q -r -p analyse_match.py
#
# It runs `import mat`, `analyse match` at GAMMOND_ANALYSIS_PLIES plies (chequer play and
# cube decisions, cubeful, pruning nets, one thread), then writes one JSON object to
# GAMMOND_ANALYSIS_OUT:
#
#   {"players": [P0, P1], "decisions": [D, ...], "games": n, "match_length": n}
#
# Players are gnubg's: 0 = the left column of the .mat (gammond's red), 1 = the right
# (black). Equities are gnubg's normalised equities (EMG in match play: "equity" scaled so
# that winning the cube's value is +1), from the deciding player's side; error rates are
# milli-equity (mEMG) lost per decision, as gnubg's `show statistics match` prints them:
#
#   P = {"error_rate": overall error per unforced move and close cube decision,
#        "snowie_error_rate": overall error per move of both players (Snowie's measure),
#        "rating": gnubg's words for error_rate ("Awful!" .. "Supernatural"),
#        "checker": {"moves", "unforced", "error_total", "error_rate", "rating",
#                    "doubtful", "errors", "blunders"},
#        "cube": {"decisions", "close", "doubles", "takes", "drops", "missed_doubles",
#                 "wrong_doubles", "wrong_takes", "wrong_drops", "error_total",
#                 "error_rate", "rating", "doubtful", "errors", "blunders"},
#        "luck": {"total", "rate"}}
#   D = {"game": 1.., "player": 0|1, "kind": "move"|"no_double"|"double"|"take"|"drop",
#        "dice": [d1, d2] (moves), "position_id", "match_id" (the position before the
#        decision, from gnubg's navigation), "played", "best" (gnubg notation for moves;
#        "double"/"no double"/"take"/"drop" for the cube), "equity" (the decider's equity
#        with the best choice), "equity_lost" (>= 0), "skill": null|"doubtful"|"bad"|
#        "very bad" (gnubg's marks: doubtful >= 0.03, bad ("error") >= 0.06, very bad
#        ("blunder") >= 0.12 EMG)}
#
# A "no_double" decision is listed only where rolling was a mistake (a missed double).
# Cube errors follow gnubg's analysis.c: no double ND, double/take DT (both converted
# from match winning chances with gnubg.mwc2eq in match play), double/pass DP = +1; the
# best is max(ND, min(DT, DP)).
#
# Exit status: 0 with the result written; 2 with {"error": sentence} written (and the
# sentence on stderr) when gnubg refused a setting, could not import the file, or the
# script failed. gnubg alone exits 0 after a Python exception, so the caller must read
# the result. (gnubg -p runs this file with sys.argv == [''], hence the environment.)

import ctypes
import json
import os
import sys
import tempfile
import traceback

import gnubg

# gnubg's ratingtype (analysis.h), the order gnubg.errorrating() returns.
RATINGS = ("Awful!", "Beginner", "Casual player", "Intermediate", "Advanced", "Expert",
           "World class", "Supernatural")
PROBLEM_WORDS = ("warning", "invalid", "unrecognised", "unrecognized", "not a valid",
                 "error", "doesn't follow", "illegal", "garbage", "no such file", "cannot",
                 "unknown")
BOARD_PREFIXES = ("|", "+", "v|", "^|", "GNU Backgammon", "Match ID", "Position ID")

_libc = ctypes.CDLL(None)
OUT = os.environ.get("GAMMOND_ANALYSIS_OUT", "")


def write_result(obj):
    tmp = OUT + ".part"
    with open(tmp, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    os.replace(tmp, OUT)


def fail(why):
    """Writes {"error": why} and ends gnubg with exit status 2."""
    sys.stdout.flush()
    sys.stderr.write("analyse_match.py: %s\n" % why)
    sys.stderr.flush()
    if OUT:
        try:
            write_result({"error": why})
        except OSError:
            pass
    _libc.fflush(None)
    os._exit(2)


def run_captured(command):
    """Runs a gnubg command with file descriptors 1 and 2 redirected; returns the
    non-empty lines it printed (gnubg prints with C stdio, not through Python)."""
    sys.stdout.flush()
    sys.stderr.flush()
    _libc.fflush(None)
    with tempfile.TemporaryFile() as capture:
        saved = (os.dup(1), os.dup(2))
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            gnubg.command(command)
        finally:
            _libc.fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        capture.seek(0)
        text = capture.read().decode("utf-8", "replace")
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith(BOARD_PREFIXES)]


def problems_in(lines):
    return [m for m in lines if any(w in m.lower() for w in PROBLEM_WORDS)]


def setting(command):
    said = problems_in(run_captured(command))
    if said:
        fail("gnubg refused '%s': %s" % (command, " / ".join(said)))


def rating(error_per_decision):
    index = gnubg.errorrating(error_per_decision)
    return RATINGS[index] if 0 <= index < len(RATINGS) else None


def per_mille(total, count):
    return round(1000.0 * total / count, 1) if count else 0.0


def cube_equities(analysis, ci):
    """(ND, DT, DP) of a cube decision in normalised equity, from the doubler's side,
    or None when gnubg did not analyse it."""
    nd = analysis.get("nd-cubeful-eq")
    dt = analysis.get("dt-cubeful-eq")
    if nd is None or dt is None or ci is None:
        return None
    if ci["matchto"]:
        nd = gnubg.mwc2eq(nd, ci)
        dt = gnubg.mwc2eq(dt, ci)
    return nd, dt, 1.0


def cubeinfo_now():
    try:
        return gnubg.cubeinfo()
    except Exception:  # noqa: BLE001 -- e.g. after the match is over
        return None


def decisions_of(match):
    """Walks every record with gnubg's navigation (so that the Position ID and Match ID
    before each decision are gnubg's own) and lists the decisions."""
    out = []
    gnubg.navigate()
    for gi, game in enumerate(match["games"]):
        if gi > 0:
            gnubg.navigate(game=1)
        pending_cube = None  # (ND, DT, DP) of the last double, for its take or drop
        for ri, rec in enumerate(game["game"]):
            if ri > 0:
                gnubg.navigate(next=1)
            action = rec.get("action")
            player = {"X": 0, "O": 1}.get(rec.get("player"))
            if player is None:
                continue
            analysis = rec.get("analysis") or {}
            base = {"game": gi + 1, "player": player, "position_id": gnubg.positionid(),
                    "match_id": gnubg.matchid()}
            if action == "move":
                ci = cubeinfo_now()
                cube = cube_equities(analysis, ci)
                if cube:
                    nd, dt, dp = cube
                    best = max(nd, min(dt, dp))
                    lost = best - nd
                    if lost > 0.0005:
                        out.append(dict(base, kind="no_double", played="no double",
                                        best="double", equity=best, equity_lost=lost,
                                        skill=analysis.get("cube-skill")))
                played = rec.get("move")
                if not played:
                    continue  # no legal play: not a decision
                board = gnubg.positionfromid(rec["board"]) if rec.get("board") else gnubg.board()
                moves = analysis.get("moves") or []
                imove = analysis.get("imove")
                entry = dict(base, kind="move", dice=list(rec.get("dice") or []),
                             played=gnubg.movetupletostring(played, board), best=None,
                             equity=None, equity_lost=None, skill=analysis.get("skill"))
                if moves:
                    entry["best"] = gnubg.movetupletostring(moves[0]["move"], board)
                    entry["equity"] = moves[0]["score"]
                    if imove is not None and 0 <= imove < len(moves):
                        entry["equity_lost"] = max(0.0, moves[0]["score"] - moves[imove]["score"])
                out.append(entry)
            elif action == "double":
                cube = cube_equities(analysis, cubeinfo_now())
                pending_cube = cube
                entry = dict(base, kind="double", played="double", best=None, equity=None,
                             equity_lost=None, skill=analysis.get("skill"))
                if cube:
                    nd, dt, dp = cube
                    best = max(nd, min(dt, dp))
                    entry.update(best="double" if min(dt, dp) >= nd else "no double",
                                 equity=best, equity_lost=max(0.0, best - min(dt, dp)))
                out.append(entry)
            elif action in ("take", "drop"):
                entry = dict(base, kind=action, played=action, best=None, equity=None,
                             equity_lost=None, skill=analysis.get("skill"))
                if pending_cube:
                    nd, dt, dp = pending_cube
                    take, drop = -dt, -dp  # the taker's side
                    entry.update(best="take" if take >= drop else "drop",
                                 equity=max(take, drop),
                                 equity_lost=max(0.0, (drop - take) if action == "take"
                                                 else (take - drop)))
                out.append(entry)
    return out


def marks(decisions, player, kinds):
    counts = {"doubtful": 0, "errors": 0, "blunders": 0}
    key = {"doubtful": "doubtful", "bad": "errors", "very bad": "blunders"}
    for d in decisions:
        if d["player"] == player and d["kind"] in kinds and d.get("skill") in key:
            counts[key[d["skill"]]] += 1
    return counts


def player_summary(stats, both_moves, decisions, player):
    moves = stats["moves"]
    cube = stats["cube"]
    dice = stats.get("dice", {})
    checker_error = moves.get("error-skill", 0.0)
    cube_error = cube.get("error-skill", 0.0)
    unforced = moves.get("unforced-moves", 0)
    close = cube.get("close-cube", 0)
    total = checker_error + cube_error
    overall_rate = total / (unforced + close) if unforced + close else 0.0
    checker = dict(moves=moves.get("total-moves", 0), unforced=unforced,
                   error_total=checker_error, error_rate=per_mille(checker_error, unforced),
                   rating=rating(checker_error / unforced) if unforced else None,
                   **marks(decisions, player, ("move",)))
    cube_summary = dict(decisions=cube.get("total-cube", 0), close=close,
                        doubles=cube.get("n-doubles", 0), takes=cube.get("n-takes", 0),
                        drops=cube.get("n-drops", 0),
                        missed_doubles=cube.get("missed-double-below-cp", 0)
                        + cube.get("missed-double-above-cp", 0),
                        wrong_doubles=cube.get("wrong-double-below-dp", 0)
                        + cube.get("wrong-double-above-tg", 0),
                        wrong_takes=cube.get("wrong-take", 0),
                        wrong_drops=cube.get("wrong-drop", 0),
                        error_total=cube_error, error_rate=per_mille(cube_error, close),
                        rating=rating(cube_error / close) if close else None,
                        **marks(decisions, player, ("no_double", "double", "take", "drop")))
    luck = dice.get("luck", 0.0)
    return dict(error_rate=per_mille(total, unforced + close),
                snowie_error_rate=per_mille(total, both_moves),
                rating=rating(overall_rate) if unforced + close else None,
                checker=checker, cube=cube_summary,
                luck=dict(total=luck, rate=per_mille(luck, moves.get("total-moves", 0))))


def main():
    mat = os.environ.get("GAMMOND_ANALYSIS_MAT", "")
    if not OUT:
        fail("GAMMOND_ANALYSIS_OUT is not set")
    if not mat:
        fail("GAMMOND_ANALYSIS_MAT is not set")
    plies = int(os.environ.get("GAMMOND_ANALYSIS_PLIES", "2"))
    if not 0 <= plies <= 4:
        fail("GAMMOND_ANALYSIS_PLIES must be 0 to 4")
    for command in ("set confirm new off", "set confirm save off", "set display off",
                    "set jacoby off", "set player 0 human", "set player 1 human",
                    "set automatic roll off", "set automatic move off",
                    "set automatic game off", "set automatic bearoff off", "set threads 1",
                    "set analysis moves on", "set analysis cube on",
                    "set analysis luck on",
                    "set analysis chequerplay evaluation plies %d" % plies,
                    "set analysis chequerplay evaluation cubeful on",
                    "set analysis chequerplay evaluation prune on",
                    "set analysis cubedecision evaluation plies %d" % plies,
                    "set analysis cubedecision evaluation cubeful on",
                    "set analysis cubedecision evaluation prune on"):
        setting(command)
    said = problems_in(run_captured('import mat "%s"' % mat.replace('"', '\\"')))
    if said:
        fail("gnubg could not import the match: " + " / ".join(said[:5]))
    if not gnubg.match(0, 0, 0, 0):
        fail("gnubg could not import the match (nothing loaded)")
    said = problems_in(run_captured("analyse match"))
    if said:
        fail("gnubg could not analyse the match: " + " / ".join(said[:5]))
    match = gnubg.match(analysis=1, boards=1, statistics=1, verbose=1)
    stats = match.get("stats")
    if not stats or "X" not in stats or "O" not in stats:
        fail("gnubg produced no statistics for the match")
    decisions = decisions_of(match)
    both_moves = stats["X"]["moves"].get("total-moves", 0) + stats["O"]["moves"].get(
        "total-moves", 0)
    write_result({
        "match_length": match["match-info"].get("match-length"),
        "games": len(match["games"]),
        "players": [player_summary(stats[key], both_moves, decisions, i)
                    for i, key in enumerate(("X", "O"))],
        "decisions": decisions,
    })


try:
    main()
except SystemExit:
    raise
except Exception:  # noqa: BLE001 -- gnubg would print it and still exit 0
    fail("failed: " + traceback.format_exc(limit=3).replace("\n", " | "))
_libc.fflush(None)
os._exit(0)
