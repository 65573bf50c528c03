#!/usr/bin/env python3
"""Plays a short game against a running gammond and checks it is recorded.

Standard library only (a minimal WebSocket client, RFC 6455), so it runs on any host
with Python 3 and needs nothing inside the container image.

    play_game.py play  --port 18080 --out DIR
        alice and bob play a 1-point match at table docker-test to the end (one play
        each, then /resign + /accept) and fetch GET /matches/<id>.mat; then start a
        3-point match at table docker-live and leave it in progress. Saves what they
        saw in DIR (match_id, match.mat, live.json).
    play_game.py check --port 18080 --out DIR
        after a restart on the same database: the same .mat is served, and a spectator
        finds docker-live at the same position, phase, score and Match ID.

Exit status 0 when every check holds; otherwise a message on stderr and status 1.
"""

import argparse
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.error
import urllib.request

HOST = "127.0.0.1"
TABLE = "docker-test"      # a 1-point match, finished: its record must survive
LIVE = "docker-live"       # a 3-point match left in progress: the table must survive
TIMEOUT = 15.0


class Failure(Exception):
    pass


class WebSocket:
    """A blocking WebSocket client: text frames out (masked), frames in."""

    def __init__(self, host, port, path="/ws"):
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise Failure(f"WebSocket upgrade refused: {status.decode(errors='replace')}")

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            raise Failure("the server closed the connection")
        return data

    def _take(self, n):
        while len(self.buffer) < n:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, message):
        self._send_frame(0x1, json.dumps(message).encode())

    def receive(self):
        """The next text message as a dict (answers pings, joins fragments)."""
        parts = []
        while True:
            b0, b1 = self._take(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._take(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._take(8))[0]
            mask = self._take(4) if b1 & 0x80 else None
            payload = self._take(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:  # pong
                continue
            if opcode == 0x8:
                raise Failure(f"the server closed the WebSocket: {payload[2:].decode(errors='replace')}")
            parts.append(payload)
            if b0 & 0x80:
                return json.loads(b"".join(parts))

    def close(self):
        """A clean close: our close frame, then wait for the server's (or EOF)."""
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
            while True:
                self.receive()
        except (Failure, OSError, ValueError):
            pass
        finally:
            self.sock.close()


class Player:
    def __init__(self, port, name):
        self.name = name
        self.ws = WebSocket(HOST, port)
        self.next_id = 0
        self.ws.send({"type": "hello", "name": name})
        welcome = self.wait(lambda m: m.get("type") in ("welcome", "error"))
        if welcome["type"] != "welcome":
            raise Failure(f"hello as {name} refused: {welcome}")

    def wait(self, predicate):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = self.ws.receive()
            if predicate(message):
                return message
        raise Failure(f"{self.name}: no expected message within {TIMEOUT} s")

    def request(self, message):
        """Sends `message` with an id; returns the reply (state, info, tables, ...)."""
        self.next_id += 1
        ident = f"{self.name}-{self.next_id}"
        self.ws.send(dict(message, id=ident))
        reply = self.wait(lambda m: m.get("re") == ident)
        if reply.get("type") == "error":
            raise Failure(f"{self.name} {message}: {reply.get('code')}: {reply.get('message')}")
        return reply

    def line(self, text, table):
        print(f"  {self.name}: {text}", flush=True)
        return self.request({"type": "line", "table": table, "text": text})


def http_get(port, path):
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=TIMEOUT) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def play_until(table, players, state, stop):
    """Plays at `table` until stop(state, plays); one play each, then resign + accept."""
    by_name = {p.name: p for p in players}
    by_side = {side: by_name[state["players"][side]] for side in ("red", "black")}
    plays = 0
    for _ in range(40):
        phase = state["phase"]
        if stop(state, plays):
            return state
        if phase == "opening":
            state = players[0].line("/roll", table)
        elif phase == "roll":  # one play is enough: then the side on roll resigns
            state = by_side[state["turn"]].line("/resign" if plays else "/roll", table)
        elif phase == "move":
            state = by_side[state["turn"]].line("/move " + state["legal"][0], table)
            plays += 1
        elif phase == "resign_offered":
            state = by_side[state["to_act"]].line("/accept", table)
        elif phase == "cube_offered":
            state = by_side[state["to_act"]].line("/take", table)
        else:
            raise Failure(f"{table}: unexpected phase {phase}")
    raise Failure(f"{table}: no end after 40 commands (phase {state['phase']})")


def play(port, out):
    alice, bob = Player(port, "alice"), Player(port, "bob")
    print(f"  table {TABLE}: a 1-point match, played to the end")
    alice.line("/join", TABLE)
    bob.line("/join", TABLE)
    alice.line("/option match 1", TABLE)
    state = alice.line("/start", TABLE)
    state = play_until(TABLE, [alice, bob], state, lambda s, _: s["phase"] == "match_over")
    match_id = state.get("last_match_id")
    if not match_id:
        raise Failure(f"no last_match_id in the final state: {state}")
    print(f"  match over: {state.get('last_result')}, score {state.get('score')}, "
          f"match id {match_id}")
    status, body = http_get(port, f"/matches/{match_id}.mat")
    if status != 200 or b"point match" not in body:
        raise Failure(f"GET /matches/{match_id}.mat: HTTP {status}: {body[:200]!r}")
    print(f"  GET /matches/{match_id}.mat: HTTP 200, {len(body)} bytes")

    print(f"  table {LIVE}: a 3-point match, left in progress")
    alice.line("/join", LIVE)
    bob.line("/join", LIVE)
    alice.line("/option match 3", LIVE)
    state = alice.line("/start", LIVE)
    state = play_until(LIVE, [alice, bob], state, lambda s, plays: plays >= 2)
    live = {k: state.get(k) for k in ("phase", "turn", "board", "score", "game_number",
                                      "match_length", "position_id", "match_id")}
    print(f"  {LIVE}: phase {live['phase']}, position {live['position_id']}, "
          f"match id {live['match_id']}")

    with open(os.path.join(out, "match_id"), "w") as f:
        f.write(str(match_id))
    with open(os.path.join(out, "match.mat"), "wb") as f:
        f.write(body)
    with open(os.path.join(out, "live.json"), "w") as f:
        json.dump(live, f)
    alice.ws.close()  # players leave: their seats are kept while the match is on
    bob.ws.close()


def check(port, out):
    with open(os.path.join(out, "match_id")) as f:
        match_id = f.read().strip()
    with open(os.path.join(out, "match.mat"), "rb") as f:
        before = f.read()
    with open(os.path.join(out, "live.json")) as f:
        live = json.load(f)
    status, body = http_get(port, f"/matches/{match_id}.mat")
    if status != 200:
        raise Failure(f"after the restart GET /matches/{match_id}.mat: HTTP {status}")
    if body != before:
        raise Failure(f"after the restart /matches/{match_id}.mat differs from before")
    print(f"  GET /matches/{match_id}.mat after the restart: HTTP 200, same {len(body)} bytes")

    carol = Player(port, "carol")  # a spectator looks at the match in progress
    carol.ws.send({"type": "enter", "table": LIVE, "id": "e"})
    state = carol.wait(lambda m: m.get("type") in ("state", "error") and m.get("table", LIVE) == LIVE)
    if state["type"] != "state":
        raise Failure(f"after the restart entering {LIVE} failed: {state}")
    now = {k: state.get(k) for k in live}
    if now != live:
        raise Failure(f"after the restart {LIVE} differs:\n before {live}\n after  {now}")
    print(f"  {LIVE} after the restart: phase {now['phase']}, same position "
          f"{now['position_id']}, players {state.get('players')}")
    carol.ws.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["play", "check"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True, help="directory for match_id and match.mat")
    args = parser.parse_args()
    try:
        (play if args.mode == "play" else check)(args.port, args.out)
    except (Failure, OSError, ValueError, KeyError, IndexError) as e:
        print(f"play_game.py {args.mode}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
