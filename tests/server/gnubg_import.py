# gnubg_import.py -- runs INSIDE GNU Backgammon's embedded Python 3:
#
#     HOME=$(mktemp -d) GNUBG_IMPORT_MAT=/path/a.mat[:/path/b.mat...] \
#         /usr/games/gnubg -t -q -r -p gnubg_import.py
#
# For every .mat file in GNUBG_IMPORT_MAT (separated by os.pathsep) it runs gnubg's
# `import mat FILE` and prints one line to stdout:
#
#     @@gnubg_import {"file": ..., "imported": true, "match_length": 3,
#                     "players": [left, right], "n_games": 2,
#                     "games": [{"winner": 0, "points": 2, "score_before": [0, 0],
#                                "resigned": false, "moves": 31, "passes": 1,
#                                "doubles": 1, "takes": 1, "drops": 0, "resigns": 0}, ...],
#                     "final_score": [left, right], "messages": [...], "warnings": [...]}
#
# Players are gnubg's: 0 = the left column of the .mat, 1 = the right column. `moves`
# counts checker plays including rolls with no legal move (`passes`). `messages` is
# every non-empty line gnubg printed while importing, board diagrams left out (captured at the file-descriptor
# level, since gnubg writes with C stdio, not through Python); `warnings` is the subset
# that reports a problem. gnubg does not fail on an illegal move: it prints
# `WARNING: Invalid move: "..." encountered` and carries on, so callers must check
# `warnings` (and compare move counts), not just `imported`.
#
# Exit status: 0 when every file was tried (each line says whether it imported and what
# gnubg complained about); 2, with a sentence on stderr, when the script itself cannot
# do its job: GNUBG_IMPORT_MAT unset, a setting gnubg refuses, an exception (gnubg
# alone exits 0 after a Python exception or an unknown command).
#
# Settings: Jacoby off (gammond's basis sessions count gammons with a centred cube),
# display off, confirmations off. gnubg is started with -r so no ~/.gnubgrc is read;
# HOME should point at a scratch directory because gnubg creates ~/.gnubg.
# (gnubg -p runs this file without __file__ and with sys.argv == [''], hence the
# environment variable.)

import ctypes
import json
import os
import sys
import tempfile

import gnubg

# The board diagram and IDs gnubg prints after loading a match: not messages.
BOARD_PREFIXES = ("|", "+", "v|", "^|", "GNU Backgammon", "Match ID")

PROBLEM_WORDS = ("warning", "invalid", "unrecognised", "unrecognized", "not a valid",
                 "error", "doesn't follow", "illegal", "garbage", "no such file", "cannot")

_libc = ctypes.CDLL(None)


def run_captured(command):
    """Runs a gnubg command with file descriptors 1 and 2 redirected to a temp file;
    returns the non-empty lines it printed."""
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


def summarize():
    m = gnubg.match(0, 0, 0, 0)
    if not m:
        return None
    info = m["match-info"]
    games = []
    for g in m["games"]:
        gi = g["info"]
        counts = {"moves": 0, "passes": 0, "doubles": 0, "takes": 0, "drops": 0, "resigns": 0}
        for rec in g["game"]:
            action = rec.get("action")
            if action == "move":
                counts["moves"] += 1
                if not rec.get("move"):
                    counts["passes"] += 1
            elif action == "double":
                counts["doubles"] += 1
            elif action == "take":
                counts["takes"] += 1
            elif action == "drop":
                counts["drops"] += 1
            elif action == "resign":
                counts["resigns"] += 1
        games.append({
            "winner": {"X": 0, "O": 1}.get(gi.get("winner")),
            "points": gi.get("points-won"),
            "score_before": [gi.get("score-X"), gi.get("score-O")],
            "resigned": bool(gi.get("resigned")),
            **counts,
        })
    final = None
    if games:
        final = list(games[-1]["score_before"])
        last = games[-1]
        if last["winner"] in (0, 1) and last["points"]:
            final[last["winner"]] += last["points"]
    return {
        "match_length": info.get("match-length"),
        "players": [info.get("X", {}).get("name"), info.get("O", {}).get("name")],
        "n_games": len(games),
        "games": games,
        "final_score": final,
    }


def fail(why):
    """Ends gnubg with exit status 2 and `why` on stderr: gnubg itself exits 0 after a
    Python exception or a command it did not understand, so callers could not tell."""
    sys.stdout.flush()
    sys.stderr.write("gnubg_import.py: %s\n" % why)
    sys.stderr.flush()
    _libc.fflush(None)
    os._exit(2)


def main():
    for setting in ("set confirm new off", "set confirm save off", "set display off",
                    "set jacoby off", "set player 0 human", "set player 1 human",
                    "set automatic roll off", "set automatic move off",
                    "set automatic game off", "set automatic bearoff off"):
        said = run_captured(setting)
        problems = [m for m in said if any(w in m.lower() for w in PROBLEM_WORDS + ("unknown",))]
        if problems:
            fail("gnubg refused '%s': %s" % (setting, " / ".join(problems)))
    paths = [p for p in os.environ.get("GNUBG_IMPORT_MAT", "").split(os.pathsep) if p]
    if not paths:
        fail("GNUBG_IMPORT_MAT is not set (the .mat files to import, separated by %r)"
             % os.pathsep)
    for path in paths:
        out = {"file": path}
        try:
            messages = run_captured('import mat "%s"' % path.replace('"', '\\"'))
            summary = summarize()
            out["imported"] = summary is not None
            if summary:
                out.update(summary)
        except Exception as e:  # noqa: BLE001 -- reported, the caller fails the test
            messages = ["exception: %r" % (e,)]
            out["imported"] = False
        out["messages"] = messages
        out["warnings"] = [m for m in messages
                           if any(w in m.lower() for w in PROBLEM_WORDS)]
        print("@@gnubg_import " + json.dumps(out))
        sys.stdout.flush()


try:
    main()
except Exception as e:  # noqa: BLE001 -- gnubg would print it and still exit 0
    fail("failed: %r" % (e,))
