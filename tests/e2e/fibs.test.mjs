// Browser end-to-end test of a FIBS client beside the web client (issue 32), in real
// headless Chromium.
//
//   node fibs.test.mjs <path/to/gammond> <build-dir>
//
// gammond listens on --fibs-port too. A scripted FIBS (CLIP) client registers alice
// through FIBS's guest login; bob signs in in the browser and appears in alice's who-list
// (CLIP 7). alice's `tell` reaches bob's page as a private line; bob's `/tell` reaches
// alice as CLIP 12. alice invites bob to a 1-point match: bob's page shows the
// invitation, bob goes to the table by its address and sits down, the match starts, and
// bob's board and alice's board: line show the same game. Screenshots go to
// <build-dir>/e2e/fibs/. Exits non-zero (never skips) when anything is wrong.

import net from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { harness, sleep } from './harness.mjs';

const h = await harness('fibs', { timeLimitMs: 120_000 });
const { log, check, login, shot } = h;

/** A FIBS connection: lines in, `wait(regex)` for the next line (or prompt) matching. */
function clip(port) {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  let waiters = [];
  const settle = () => {
    waiters = waiters.filter((w) => {
      const m = w.re.exec(text);
      if (!m) return true;
      text = text.slice(m.index + m[0].length);
      w.resolve(m[0]);
      return false;
    });
  };
  socket.setEncoding('utf8');
  socket.on('data', (d) => { text += d; settle(); });
  return {
    send: (line) => socket.write(`${line}\r\n`),
    wait: (re, ms = 15_000) => new Promise((resolve, reject) => {
      const w = { re, resolve };
      waiters.push(w);
      settle();
      setTimeout(() => reject(new Error(`no FIBS line matching ${re} in ${ms} ms; unread: ${text.slice(-500)}`)), ms);
    }),
    end: () => socket.end(),
  };
}

/** Types `line` into the chat/command field of `page` and sends it. */
async function say(page, line) {
  await page.fill('#line', line);
  await page.press('#line', 'Enter');
}

const hasLog = (page, text) => page.waitForFunction(
  (t) => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes(t)), text, { timeout: 15_000 });

await h.main(async () => {
  const portFile = path.join(mkdtempSync(path.join(tmpdir(), 'gammond-fibs-')), 'fibs-port');
  const base = await h.startServer(['--fibs-port', '0', '--fibs-port-file', portFile,
    '--fibs-who-interval', '1', '--lobby-chat-interval', '0']);
  const fibsPort = Number(readFileSync(portFile, 'utf8').trim());
  log(`gammond at ${base}, FIBS on port ${fibsPort}`);

  // alice registers through FIBS's guest login
  const alice = clip(fibsPort);
  h.atEnd(() => alice.end());
  await alice.wait(/login: /);
  alice.send('guest');
  await alice.wait(/> /);
  alice.send('name alice');
  await alice.wait(/Please give your password: /);
  alice.send('alices-password');
  await alice.wait(/Please retype your password: /);
  alice.send('alices-password');
  await alice.wait(/You are registered\./);
  await alice.wait(/^6\r$/m);

  // bob signs in in the browser: alice's who-list says so
  const bob = await h.newPage('bob');
  await login(bob, base, 'bob');
  await alice.wait(/^7 bob bob logs in\./m);
  check(true, "bob's sign-in reaches the FIBS who-list");

  // private messages both ways
  alice.send('tell bob hello from FIBS');
  await hasLog(bob, 'alice → bob: hello from FIBS');
  check(await bob.isVisible('#log li.chat.private'), "alice's tell is a private line in bob's log");
  await say(bob, '/tell alice hi back');
  await alice.wait(/^12 bob hi back/m);
  await hasLog(bob, 'bob → alice: hi back');
  await shot(bob, 'bob-private-messages.png');

  // alice invites bob; bob sits down at the table; the match starts for both
  alice.send('invite bob 1');
  await alice.wait(/\*\* You invited bob to a 1 point match\./);
  await hasLog(bob, 'alice invites you to table fibs-');
  const table = await bob.evaluate(() => [...document.querySelectorAll('#log li')].map((li) => li.textContent)
    .join('\n').match(/fibs-[0-9a-f]{8}/)?.[0]);
  check(Boolean(table), `bob's page names the table he is invited to (${table})`);
  await bob.goto(`${base}/table/${table}`);
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await say(bob, '/join');
  await alice.wait(/\*\* Player bob has joined you for a 1 point match\./);
  const board = await alice.wait(/board:You:bob:1:[^\r\n]*/);
  const st = await bob.waitForFunction(() => {
    const s = window.gammond.states.get(window.gammond.table);
    return s && s.phase !== 'waiting' && s.phase !== 'opening' ? s : null;
  }, null, { timeout: 15_000 }).then((handle) => handle.jsonValue());
  const fields = board.split(':');
  check(fields.length === 53, `alice's board: line has FIBS's 53 fields (${board})`);
  check(fields[2] === 'bob' && st.players.red && st.players.black, 'both sit at the same table');
  const aliceSide = st.players.red === 'alice' ? 'red' : 'black';
  check(fields[41] === (aliceSide === 'red' ? '-1' : '1'), `alice's colour on FIBS is her side in the browser (${aliceSide})`);
  await sleep(300);
  await shot(bob, 'bob-plays-a-fibs-player.png');
});
