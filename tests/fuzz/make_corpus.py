#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

The seeds are real inputs: the messages and commands of protocol/PROTOCOL.md, plays and
IDs from the recorded gnubg / nardy-oracle corpora in tests/engine/data, plus a few
near misses of each (truncated, wrong type, bad UTF-8, out-of-range numbers) so that
the fuzzers start from both sides of every check. Deterministic: a rerun writes the
same files. Run from the repository root when a decoder's input language changes:

    python3 tests/fuzz/make_corpus.py

The files are checked in; scripts/fuzz copies them to a scratch directory before
fuzzing, so fuzzing never changes them. Add a crashing input found by a fuzzer by hand
(corpus/<target>/crash-<what>), with the fix that makes it pass.
"""
import os
import sys

ROOT = os.getcwd()
DATA = os.path.join(ROOT, "tests/engine/data")
OUT = os.path.join(ROOT, "tests/fuzz/corpus")
if not os.path.isdir(DATA):
    sys.exit("make_corpus.py: run me from the repository root")


def write(target, name, content):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(content)


def data_lines(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if not l.startswith("#")]


# Rewrite the generated seeds; keep the inputs fuzzers found (crash-*, added by hand).
for target in ["json_decoder", "command_grammar", "notation", "position_id", "match_id"]:
    d = os.path.join(OUT, target)
    for name in os.listdir(d) if os.path.isdir(d) else []:
        if not name.startswith("crash-"):
            os.remove(os.path.join(d, name))

# --- command_grammar: every command of PROTOCOL.md, aliases, and refusals ----------
commands = {
    "join": "/join", "join_red": "/join red", "join_black": "/JOIN Black",
    "join_bad": "/join green", "leave": "/leave", "start": "/start",
    "option": "/option", "option_match_7": "/option match 7",
    "option_match_64": "/option match 64", "option_match_65": "/option match 65",
    "option_match_basis": "/option match basis", "option_match_off": "/options match off",
    "option_match_none": "/option match none", "option_match_x": "/option match 7x",
    "option_tutor": "/option tutor", "option_tutor_off": "/option tutor off",
    "option_variant_long": "/option variant long",
    "option_variant_std": "/option variant standard", "option_variant_bad": "/option variant nardy2",
    "option_bad": "/option colour red", "roll": "/roll", "roll_args": "/roll 6 5",
    "move": "/move 24/18 13/11", "move_bar": "/move bar/22 6/off", "move_repeat": "/move 8/2(2)",
    "move_hit": "/m 13/7*/1", "move_empty": "/move", "double": "/double", "take": "/take",
    "drop": "/drop", "refuse": "/refuse", "resign": "/resign", "resign_gammon": "/resign gammon",
    "resign_b": "/resign b", "resign_bad": "/resign all", "accept": "/accept",
    "reject": "/reject", "continue": "/continue", "stop": "/stop", "board": "/board",
    "who": "/who", "help": "/help", "help_move": "/help move", "help_option_match":
    "/help option match", "tables": "/tables", "export": "/export", "unknown": "/jion",
    "slash": "/", "blanks": " \t /roll \t", "chat": "hello there", "chat_utf8": "gut gespielt \u00e9\u00e8 \u2680\u2685",
    "empty": "", "crlf": "/who\r\n", "unknown_utf8": "/\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
    # Moderation (issue 13)
    "kick": "/kick Mallory",
    "invite": "/invite carol",
    "uninvite": "/uninvite carol",
    "option_private_on": "/option private on",
    "option_private_off": "/option private off",
    "ignore": "/ignore Bob",
    "ignore_list": "/ignore",
    "unignore": "/unignore bob",
    "ban": "/ban troll",
    "ban_hours": "/ban troll 0.5",
    "ban_bad": "/ban troll -1",
    "ban_exp": "/ban troll 1e3",
    "unban": "/unban troll",
    "broadcast": "/broadcast Restart at 18:00  UTC",
    "close": "/close t1",
}
for name, text in commands.items():
    write("command_grammar", name, text)

# --- json_decoder: PROTOCOL.md's client messages and near misses --------------------
messages = {
    "hello": '{"type":"hello","name":"alice"}',
    "hello_resume": '{"type":"hello","name":"alice","resume":"5f0c9a1e"}',
    "hello_resume_only": '{"type":"hello","resume":"5f0c9a1e","id":"h1"}',
    "hello_no_name": '{"type":"hello"}',
    "hello_name_number": '{"type":"hello","name":7}',
    "line_join": '{"type":"line","table":"t1","text":"/join","id":1}',
    "line_move": '{"type":"line","table":"t1","text":"/move 24/18 13/11","id":"m7"}',
    "line_tables": '{"type":"line","text":"/tables"}',
    "line_chat": '{"type":"line","table":"t1","text":"gl hf \\u00e9"}',
    "line_option": '{"type":"line","table":"t1","text":"/option match 7","id":-3}',
    "line_resign": '{"type":"line","table":"t1","text":"/resign gammon"}',
    "line_no_text": '{"type":"line","table":"t1"}',
    "line_control": '{"type":"line","text":"a\\u0007b"}',
    "line_surrogate": '{"type":"line","text":"\\ud800"}',
    "line_pair": '{"type":"line","text":"\\ud83c\\udfb2 /roll"}',
    "enter": '{"type":"enter","table":"t1"}',
    "enter_no_table": '{"type":"enter"}',
    "exit": '{"type":"exit","table":"t1","id":18446744073709551615}',
    "ping": '{"type":"ping"}',
    "ping_id": '{"type":"ping","id":"p-1"}',
    "ping_float_id": '{"type":"ping","id":1.5}',
    "ping_long_id": '{"type":"ping","id":"' + "x" * 65 + '"}',
    "unknown_type": '{"type":"shout","text":"hi"}',
    "no_type": '{"text":"hi"}',
    "array": '[{"type":"ping"}]',
    "string": '"ping"',
    "truncated": '{"type":"line","table":"t1","text":"/jo',
    "nested": '{"type":"ping","x":' + "[" * 17 + "]" * 17 + "}",
    "nested_ok": '{"type":"ping","x":' + "[" * 15 + "]" * 15 + "}",
    "trailing": '{"type":"ping"} {}',
    "null_fields": '{"type":"hello","name":null,"resume":"r","table":null}',
    "bad_utf8": b'{"type":"line","text":"\xc3\x28"}',
    "utf8": '{"type":"hello","name":"J\u00fcrgen"}',
    "whitespace": ' \n{ "type" : "ping" , "id" : 0 }\n',
}
for name, text in messages.items():
    write("json_decoder", name, text)

# --- notation: <position letter><die><die><play> (see notation.cpp) ---------------
# The same 16 positions as notation.cpp's table, by the labels they were taken from.
standard = ["opening-position", "mix:contact", "mix:bar", "mix:bearoff", "mix:prime",
            "require:hit", "require:partial_doubles", "require:higher_die_rule_binding",
            "require:no_move"]
nardy = [None, "first-turn", "middle", "bearoff", "require:block_rule", "require:higher_die",
         "require:first_turn_exception"]
letters = "abcdefghijklmnop"


def first_line(file, label):
    for line in data_lines(file):
        fields = line.split("\t")
        head = fields[0].split(" ")
        if head[3] == label:
            plays = [f.split(" ", 1)[1] for f in fields[1:]]
            return head[1], head[2], plays
    raise SystemExit("no line labelled " + label)


count = 0
for i, label in enumerate(standard + nardy):
    letter = letters[i]
    if label is None:  # long nardy starting position: hand-written first plays
        for dice, play in [("65", "24/13"), ("66", "24/18(2)"), ("44", "24/16(2)"),
                           ("21", "24/21"), ("33", "24/21 24/18")]:
            write("notation", "%s_%s" % (letter, dice), letter + dice + " " + play)
        continue
    file = "gnubg_plays.txt" if i < len(standard) else "nardy_plays.txt"
    d1, d2, plays = first_line(file, label)
    for k, play in enumerate(plays[:3]):
        write("notation", "%s_%s%s_%d" % (letter, d1, d2, k), letter + d1 + d2 + " " + play)
    if not plays:
        write("notation", "%s_%s%s_none" % (letter, d1, d2), letter + d1 + d2 + " 24/23")
# Standard opening plays and refusals from the starting position.
for name, text in {
    "a_31": "a31 8/5 6/5", "a_64_comma": "a64 24/18,13/9", "a_42_upper": "a42 8/4 6/4",
    "a_61_hit": "a61 13/7 8/7", "a_55": "a55 13/3(2)", "a_55_path": "a55 13/8/3(2)",
    "a_21_blocked": "a21 24/18", "a_65_off": "a65 6/off", "a_21_one_die": "a21 13/11",
    "a_66_three": "a66 24/18(3)", "a_31_garbage": "a31 8-5 6-5", "a_31_bad_repeat": "a31 8/5(9)",
    "a_31_too_many": "a31 8/5 8/5 6/5 6/5 6/5", "c_11_bar": "c11 bar/24", "empty": "a31",
    "d_61_off": "d61 6/off 1/off",
}.items():
    write("notation", name, text)

# --- position_id: real IDs (both variants) and the invalid ones --------------------
ids = {"start": "4HPwATDgc/ABMA"}
for k, line in enumerate(data_lines("position_ids.txt")[:25]):
    ids["gnubg_%02d" % k] = line.split("\t")[0]
seen = set()
for line in data_lines("nardy_plays.txt"):
    head = line.split("\t")[0].split(" ")
    if head[3] not in seen:
        seen.add(head[3])
        ids["nardy_" + head[3].replace(":", "_")] = head[0]
for k, line in enumerate(data_lines("position_ids_invalid.txt")):
    fields = line.split("\t")
    how = fields[2]
    key = "invalid_" + "".join(c if c.isalpha() else "_" for c in how).strip("_")
    if key not in ids:  # one of each kind (the digits of "point 7 held by ..." dropped)
        ids[key] = fields[0]
for name, text in ids.items():
    write("position_id", name, text)

# --- match_id: real IDs and the invalid ones ----------------------------------------
mids = {}
for k, line in enumerate(data_lines("match_ids.txt")[:30]):
    mids["gnubg_%02d" % k] = line.split("\t")[0]
for line in data_lines("match_ids_invalid.txt"):
    fields = line.split("\t")
    key = "invalid_" + "".join(c if c.isalnum() else "_" for c in fields[1])
    if key not in mids:
        mids[key] = fields[0]
mids["low_die_first"] = "cAkAAAAAAAAA"
for name, text in mids.items():
    write("match_id", name, text)

for target in sorted(os.listdir(OUT)):
    print("%-16s %d seeds" % (target, len(os.listdir(os.path.join(OUT, target)))))
