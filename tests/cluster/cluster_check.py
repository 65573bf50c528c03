#!/usr/bin/env python3
"""The checks of scripts/cluster-test (issue 16, Proof): what the cluster driver's
players were told (--driver, cluster_driver's JSON) against what the store holds (--db,
read with psql and with `gammond tables`, which rebuilds each table from its snapshot
and journal as a restart does). Prints each check and exits 1 when one fails."""

import argparse
import json
import statistics
import subprocess
import sys


def percentile(values, q):
    if not values:
        return None
    s = sorted(values)
    i = max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))
    return s[i]


def psql(db, sql):
    r = subprocess.run(["psql", "-At", "-F", "\t", db, "-c", sql], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--gammond", required=True)
    ap.add_argument("--killed", required=True)
    ap.add_argument("--kill-ms", type=int, required=True)
    ap.add_argument("--stale", required=True)
    ap.add_argument("--stop-ms", type=int, required=True)
    ap.add_argument("--cont-ms", type=int, required=True)
    ap.add_argument("--metrics", required=True)
    a = ap.parse_args()

    run = json.load(open(a.driver))
    tables = run["tables"]
    t = run["totals"]
    failures = []

    def check(ok, text):
        print(("ok     " if ok else "FAILED ") + text)
        if not ok:
            failures.append(text)

    print(f"driver: {len(tables)} tables, {t['acks']} acknowledged changes, {t['errors']} errors, "
          f"{t['moved']} redirects followed, {t['fenced']} closes 4001, {t['dropped']} drops, "
          f"{t['hello_refused']} hellos refused, {t['stalls']} stalls")
    ready = sum(1 for x in tables if x["ready"])
    check(ready == len(tables), f"{ready} of {len(tables)} tables set up and playing")

    # 0. Registered players (issue 26): every welcome, on whatever node, after `moved`,
    # the kill and the freeze, says registered with the rating the account had; their
    # tokens are never refused; every state of their tables shows both ratings.
    if run["options"].get("registered_every", 0) > 0:
        accounts = sum(1 for x in tables for c in x["clients"] if c.get("registered"))
        check(t["registered_welcomes"] >= accounts and t["welcomed_as_guest"] == 0,
              f"{accounts} registered players: {t['registered_welcomes']} welcomes as registered "
              f"({t['registered_moved_welcomes']} right after a moved), {t['welcomed_as_guest']} "
              f"as a guest")
        check(t["registered_moved_welcomes"] > 0,
              "registered players followed moved and were welcomed as registered on the other node")
        check(t["rating_changed"] == 0 and t["states_without_rating"] == 0,
              f"their ratings: {t['rating_changed']} welcomes with another rating, "
              f"{t['states_without_rating']} states of their tables without both ratings")
        check(t["registered_resume_refused"] == 0,
              f"{t['registered_resume_refused']} resume tokens of registered players refused "
              f"(bad_resume, name_registered)")

    # The store, rebuilt as a restart rebuilds it.
    r = subprocess.run([a.gammond, "tables", "--db", a.db], capture_output=True, text=True)
    stored = {}
    for line in r.stdout.splitlines():
        v = json.loads(line)
        stored[v["table"]] = v
    check(r.returncode == 0, f"gammond tables rebuilt {len(stored)} stored tables"
          + ("" if r.returncode == 0 else f" (exit {r.returncode}: {r.stderr.strip()[:200]})"))

    # 1. Every acknowledged change is in the store, seqs contiguous in ownership.
    # A table removed between matches (no match in progress: nothing to keep) and made
    # again starts its seqs again ("resets", a new incarnation); a reset in the middle of
    # a match is a lost table.
    resets = [(x["table"], r) for x in tables for r in x.get("resets", [])]
    lost = [f'{name} (seq {r["from_seq"]} {r["from_phase"]} -> seq {r["to_seq"]})'
            for name, r in resets if r["from_phase"] not in ("match_over", "waiting")]
    check(not lost, f"no table was lost during a match ({len(resets)} made again between matches) {lost[:5]}")
    not_rising, behind, missing = [], [], []
    for x in tables:
        last_inc = max([ack[7] for ack in x["acks"] if len(ack) > 7] or [0])
        seqs = [ack[0] for ack in x["acks"] if len(ack) <= 7 or ack[7] == last_inc]
        for inc in range(last_inc + 1):
            one = [ack[0] for ack in x["acks"] if len(ack) <= 7 or ack[7] == inc]
            if any(b <= p for p, b in zip(one, one[1:])):
                not_rising.append(x["table"])
        s = stored.get(x["table"])
        if not seqs:
            continue
        if s is None:
            missing.append(x["table"])
        elif s.get("seq", -1) < seqs[-1]:
            behind.append(f'{x["table"]} (stored {s.get("seq")}, acknowledged {seqs[-1]})')
    # The journal of each table's current game: its roll records numbered without a gap
    # or a repeat, and at least every play the players had acknowledged in that game
    # (more only when a play was done but its acknowledgement lost with a connection).
    gaps, short, unacked, games = [], [], 0, 0
    for x in tables:
        s = stored.get(x["table"])
        if s is None or "journal_game" not in s or not s.get("dice_commitment"):
            continue
        jg = s["journal_game"]
        games += 1
        match = s["dice_commitment"][:16]
        moves = sum(1 for ack in x["acks"] if len(ack) > 6 and ack[5] == match
                    and ack[6] == jg.get("game") and ack[3].startswith("/move"))
        rolls = sum(1 for ack in x["acks"] if len(ack) > 6 and ack[5] == match
                    and ack[6] == jg.get("game") and ack[3] == "/roll")
        if not jg.get("rolls_contiguous"):
            gaps.append(x["table"])
        if jg.get("plays", 0) < moves or jg.get("rolls", 0) < rolls:
            short.append(f'{x["table"]} (journal {jg.get("plays")} plays {jg.get("rolls")} rolls, '
                         f'acknowledged {moves} and {rolls})')
        unacked += max(0, jg.get("plays", 0) - moves)
    check(not gaps, f"{games - len(gaps)} of {games} current games: roll records k = 0, 1, 2, ... "
          f"contiguous in the journal {gaps[:5]}")
    check(not short, f"every acknowledged play and roll of the current games is in the journal "
          f"({unacked} plays stored whose acknowledgement was lost with a connection) {short[:3]}")
    check(not not_rising, f"acknowledged seqs rise at every table {not_rising[:5]}")
    check(t["conflicts"] == 0,
          f"no seq shown with two different positions ({t['conflicts']} conflicts"
          + "".join(f"; {c}" for x in tables for c in x["conflicts"][:1])[:400] + ")")
    check(not missing, f"every table with acknowledged changes is stored (missing: {missing[:5]})")
    check(not behind, f"no stored table is behind its last acknowledged seq {behind[:5]}")
    try:
        rows = psql(a.db, "SELECT table_name, id, node, epoch FROM table_records "
                          "ORDER BY table_name, id")
        owners = psql(a.db, "SELECT table_name, node, epoch FROM table_owners")
        back, by_node = [], {}
        last = {}
        for name, _id, node, epoch in rows:
            by_node[node] = by_node.get(node, 0) + 1
            e = int(epoch) if epoch else -1
            if name in last and e < last[name]:
                back.append(name)
            last[name] = max(e, last.get(name, -1))
        print(f"journal: {len(rows)} rows by node {by_node}; {len(owners)} owned tables "
              f"(by node: { {n: sum(1 for o in owners if o[1] == n) for n in sorted({o[1] for o in owners})} })")
        check(not back, f"the journal's epochs never go back at any table (stale writes accepted: {back[:5]})")
    except RuntimeError as e:
        check(False, f"journal rows with node and epoch readable ({e})")

    # 2. Every table of the killed node resumed on another node.
    killed, times, not_resumed = [], [], []
    for x in tables:
        before = [ack for ack in x["acks"] if ack[1] < a.kill_ms]
        if not before or before[-1][2] != a.killed:
            continue
        killed.append(x["table"])
        # The killed node's own acknowledgements that arrive after the kill were sent
        # before it (in flight in the sockets): the first move acknowledged by another
        # node is the table's resumption.
        after = [ack for ack in x["acks"] if ack[1] >= a.kill_ms and ack[2] != a.killed
                 and ack[3].split(" ")[0] in ("/roll", "/move", "/start")]
        if not after:
            not_resumed.append(x["table"])
            continue
        times.append(after[0][1] - a.kill_ms)
    check(killed and not not_resumed,
          f"{len(killed) - len(not_resumed)} of {len(killed)} tables of killed node {a.killed} resumed "
          f"on another node {not_resumed[:5]}")
    if times:
        print(f"       kill -> first acknowledged move: p50 {percentile(times, 0.5) / 1000:.2f} s, "
              f"p99 {percentile(times, 0.99) / 1000:.2f} s, max {max(times) / 1000:.2f} s "
              f"(mean {statistics.mean(times) / 1000:.2f} s)")

    # 3. Zero writes accepted from the stale node: nothing it acknowledged after another
    # node acknowledged a change of the same table during or after its pause.
    stale_acks, stale_tables = [], 0
    for x in tables:
        took_over = None
        owned = False
        for ack in x["acks"]:
            if ack[1] < a.stop_ms:
                owned = ack[2] == a.stale
                continue
            if ack[2] != a.stale and took_over is None:
                took_over = ack[1]
            elif ack[2] == a.stale and took_over is not None:
                stale_acks.append(f'{x["table"]} seq {ack[0]}')
        stale_tables += 1 if owned else 0
    check(not stale_acks, f"node {a.stale} (frozen past its lease, {stale_tables} tables) announced no "
          f"change after another node took its table over {stale_acks[:5]}")
    stale_metric = None
    for line in open(a.metrics, errors="replace"):
        if line.startswith("gammond_cluster_stale_writes_total"):
            stale_metric = line.split()[-1]
    check(stale_metric is not None,
          f"node {a.stale}'s gammond_cluster_stale_writes_total (writes it tried and the store refused): {stale_metric}")

    # 4. The position each table's players last saw is the one the store rebuilds.
    differ, compared = [], 0
    for x in tables:
        last = x["last"]
        s = stored.get(x["table"])
        if last is None or s is None:
            continue
        compared += 1
        keys = ("position_id", "match_id", "phase", "dice", "board")
        if any(s.get(k) != last.get(k) for k in keys):
            differ.append(f'{x["table"]}: saw {[last.get(k) for k in keys[:3]]} seq {last.get("seq")}, '
                          f'store {[s.get(k) for k in keys[:3]]} seq {s.get("seq")}')
    replayed = [v for v in stored.values() if "journal_agrees" in v]
    disagree = [f'{v["table"]}: {v.get("journal_problem") or v.get("journal_position_id")} vs {v["position_id"]}'
                for v in replayed if not v["journal_agrees"]]
    check(not disagree, f"{len(replayed) - len(disagree)} of {len(replayed)} tables in play: the journal's "
          f"rolls and plays made again through the engine reach the stored position {disagree[:3]}")
    check(compared == len(tables) and not differ,
          f"{compared - len(differ)} of {len(tables)} tables rebuilt from the store show the position "
          f"their players last saw {differ[:3]}")

    print("cluster-check: " + ("all checks passed" if not failures else f"{len(failures)} check(s) FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
