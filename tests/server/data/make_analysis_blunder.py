# make_analysis_blunder.py -- how analysis_blunder.mat was made (runs INSIDE GNU
# Backgammon 1.07's embedded Python):
#
#     HOME=$(mktemp -d) OUT=$PWD/analysis_blunder.mat SEED=3 BLUNDER_AT=6 \
#         /usr/games/gnubg -t -q -r -p make_analysis_blunder.py
#
# A 2-point match between two gnubg "human" players driven from here, seeded dice
# (`set rng mersenne`, `set seed SEED`). Game 1: after the opening play, player 1
# doubles and player 0 drops (a wrong pass: at 0-0 in a 2-point match gnubg says take).
# Game 2 (the Crawford game, no cube): both sides play gnubg's best 0-ply play, except
# player 0's play number BLUNDER_AT (from 0), which is the worst legal play gnubg lists.
# The file is then exported with `export match mat`. The same seed gives the same file
# except the EventDate line.

import os
import sys

import gnubg


def c(command):
    gnubg.command(command)


for setting in ("set confirm new off", "set display off", "set player 0 human",
                "set player 1 human", "set automatic roll off", "set automatic move off",
                "set automatic game off", "set automatic bearoff off", "set rng mersenne",
                "set seed %s" % os.environ.get("SEED", "3"),
                "set evaluation chequerplay evaluation plies 0"):
    c(setting)
c("new match 2")
blunder_at = int(os.environ.get("BLUNDER_AT", "6"))
plays = {0: 0, 1: 0}
game = 1
while True:
    pi = gnubg.posinfo()
    if pi["gamestate"] != 1:
        info = gnubg.match(analysis=0, boards=0)["games"][-1]["info"]
        score = [info["score-X"], info["score-O"]]
        score[{"X": 0, "O": 1}[info["winner"]]] += info["points-won"]
        if max(score) >= 2:
            break
        c("new game")
        game += 1
        continue
    if pi["dice"][0] == 0:
        if game == 1 and plays[0] + plays[1] == 1:
            c("double")
            c("drop")
            continue
        c("roll")
        continue
    turn = pi["turn"]
    hint = gnubg.hint(1000)
    moves = hint["hint"] if hint else []
    if not moves:
        c("move")
    else:
        worst = game == 2 and turn == 0 and plays[0] == blunder_at
        play = moves[-1] if worst else moves[0]
        if worst:
            sys.stderr.write("blunder: %s instead of %s\n" % (play["move"], moves[0]["move"]))
        c("move " + play["move"])
    plays[turn] += 1
c('export match mat "%s"' % os.environ["OUT"])
