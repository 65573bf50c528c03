// Unit tests of the web client's connection (clients/web/net.js) in a cluster
// (PROTOCOL.md "Cluster"), run with Node.js (node --test) against a scripted WebSocket:
// `moved` + close 4000 is followed at once to the node's path (after `retry_ms` when the
// owner is being taken over), the message is sent again after the welcome (once: not
// when the page sent the same itself), and 4001 or a drop goes back to the plain /ws
// after 0.2-1 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Every socket the client opened, newest last. */
const sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    sockets.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() {}
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen();
  }
  receive(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
  closed(code, reason) {
    this.readyState = 3;
    this.onclose({ code, reason });
  }
}
globalThis.WebSocket = FakeSocket;
globalThis.location = { protocol: 'https:', host: 'bg.example.org' };

const source = readFileSync(fileURLToPath(new URL('../../clients/web/net.js', import.meta.url)), 'utf8');
const { Connection } = await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);

/** A connection whose hello is sent on every open, as app.js does. */
function connection() {
  const received = [];
  const statuses = [];
  const conn = new Connection({
    onOpen: () => conn.send({ type: 'hello', name: 'alice', resume: 'token' }),
    onMessage: (m) => received.push(m),
    onStatus: (s, why) => statuses.push([s, why]),
  });
  return { conn, received, statuses };
}

const waitFor = async (condition, ms = 3000) => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('moved + 4000: straight to the node path, hello with the token, then the message again', async () => {
  sockets.length = 0;
  const { conn, received } = connection();
  conn.connect();
  const first = sockets.at(-1);
  assert.equal(first.url, 'wss://bg.example.org/ws');
  first.open();
  first.receive({ type: 'welcome', name: 'alice', resume: 'token' });
  const join = { type: 'line', table: 'main', text: '/join' };
  const id = conn.send(join);
  first.receive({ type: 'moved', table: 'main', node: 'b', path: '/n/b/ws', re: { ...join, id } });
  first.closed(4000, 'moved');
  assert.equal(sockets.length, 2, 'reconnected at once, without a delay');
  const second = sockets.at(-1);
  assert.equal(second.url, 'wss://bg.example.org/n/b/ws');
  second.open();
  assert.equal(second.sent[0].type, 'hello');
  assert.equal(second.sent[0].resume, 'token');
  assert.equal(second.sent.length, 1, 'nothing but hello before the welcome');
  second.receive({ type: 'welcome', name: 'alice', resume: 'token2' });
  assert.equal(second.sent.length, 2);
  assert.equal(second.sent[1].type, 'line');
  assert.equal(second.sent[1].text, '/join');
  assert.equal(second.sent[1].table, 'main');
  assert.notEqual(second.sent[1].id, id, 'a fresh id');
  assert.ok(!received.some((m) => m.type === 'moved'), 'moved is the connection\'s business');
  conn.stop();
});

test('4001 node fenced: back to the plain /ws after 0.2-1 s, with the token', async () => {
  sockets.length = 0;
  const { conn } = connection();
  conn.connect();
  const first = sockets.at(-1);
  first.open();
  first.receive({ type: 'moved', table: 'main', node: 'b', path: '/n/b/ws' });
  first.closed(4000, 'moved');
  const onB = sockets.at(-1);
  assert.equal(onB.url, 'wss://bg.example.org/n/b/ws');
  onB.open();
  onB.receive({ type: 'welcome', name: 'alice', resume: 'token' });
  assert.equal(onB.sent.length, 1, 'a hello redirected has nothing to send again');
  const closedAt = Date.now();
  onB.closed(4001, 'node fenced');
  assert.equal(sockets.length, 2, 'not at once');
  await waitFor(() => sockets.length === 3);
  const waited = Date.now() - closedAt;
  assert.ok(waited >= 190 && waited < 1500, `waited ${waited} ms`);
  const back = sockets.at(-1);
  assert.equal(back.url, 'wss://bg.example.org/ws');
  back.open();
  assert.equal(back.sent[0].resume, 'token');
  conn.stop();
});

test('a drop without a close code also returns to /ws after a short random delay', async () => {
  sockets.length = 0;
  const { conn } = connection();
  conn.connect();
  const first = sockets.at(-1);
  first.open();
  first.closed(1006, '');
  await waitFor(() => sockets.length === 2);
  assert.equal(sockets.at(-1).url, 'wss://bg.example.org/ws');
  conn.stop();
});

test('moved with retry_ms (a node being taken over): waits that long, then the plain /ws', async () => {
  sockets.length = 0;
  const { conn } = connection();
  conn.connect();
  const first = sockets.at(-1);
  first.open();
  first.receive({ type: 'welcome', name: 'alice', resume: 'token' });
  const enter = { type: 'enter', table: 'main' };
  const id = conn.send(enter);
  first.receive({ type: 'moved', table: 'main', node: 'a', path: '/ws', retry_ms: 400, re: { ...enter, id } });
  const closedAt = Date.now();
  first.closed(4000, 'moved');
  assert.equal(sockets.length, 1, 'not at once: the owner is down and not yet replaced');
  await waitFor(() => sockets.length === 2);
  const waited = Date.now() - closedAt;
  assert.ok(waited >= 390 && waited < 1200, `waited ${waited} ms`);
  const again = sockets.at(-1);
  assert.equal(again.url, 'wss://bg.example.org/ws');
  again.open();
  again.receive({ type: 'welcome', name: 'alice', resume: 'token2' });
  assert.equal(again.sent.at(-1).type, 'enter', 'the message goes again after the welcome');
  conn.stop();
});

test('the message a moved answered goes once, not again when the page sent it itself on the welcome', async () => {
  sockets.length = 0;
  let onWelcome = () => {};
  const conn = new Connection({
    onOpen: () => conn.send({ type: 'hello', name: 'alice', resume: 'token' }),
    onMessage: (m) => { if (m.type === 'welcome') onWelcome(); },
    onStatus: () => {},
  });
  conn.connect();
  const first = sockets.at(-1);
  first.open();
  first.receive({ type: 'welcome', name: 'alice', resume: 'token' });
  const enter = { type: 'enter', table: 'main' };
  const id = conn.send(enter);
  // The server echoes the message with its keys in its own order.
  first.receive({ type: 'moved', table: 'main', node: 'b', path: '/n/b/ws', re: { id, table: 'main', type: 'enter' } });
  first.closed(4000, 'moved');
  const second = sockets.at(-1);
  second.open();
  // The page enters the table in its address on every welcome (app.js onWelcome).
  onWelcome = () => conn.send({ type: 'enter', table: 'main' });
  second.receive({ type: 'welcome', name: 'alice', resume: 'token2' });
  const enters = second.sent.filter((m) => m.type === 'enter');
  assert.equal(enters.length, 1, `enter sent ${enters.length} times`);
  // A different message is sent again as before.
  onWelcome = () => {};
  const join = { type: 'line', table: 'main', text: '/join' };
  const id2 = conn.send(join);
  second.receive({ type: 'moved', table: 'main', node: 'c', path: '/n/c/ws', re: { ...join, id: id2 } });
  second.closed(4000, 'moved');
  const third = sockets.at(-1);
  third.open();
  onWelcome = () => conn.send({ type: 'enter', table: 'main' });
  third.receive({ type: 'welcome', name: 'alice', resume: 'token3' });
  assert.deepEqual(third.sent.slice(1).map((m) => m.type), ['enter', 'line']);
  conn.stop();
});
