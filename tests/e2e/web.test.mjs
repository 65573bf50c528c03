// Browser end-to-end test of the gammond web client, in real headless Chromium.
//
//   node web.test.mjs <path/to/gammond> <build-dir>
//
// Starts gammond (port 0, a temporary database, reproducible dice), then three
// browser contexts: alice (desktop) and bob (a phone-sized screen) sit down at a
// table, set "/option match 3", start, and play by clicking until the match is over,
// with a double and a take along the way; carol watches. The test checks what the
// pages show: the starting position, the same board for players and spectator, no
// controls for the spectator, the cube value and owner after the take, errors in
// words, the seat kept over a reload, and the final score. Screenshots go to
// <build-dir>/e2e/. Exits non-zero (never skips) when anything is missing or wrong.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const [gammond, buildDir] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TIME_LIMIT_MS = 170_000;
const started = Date.now();

let server = null;
let browser = null;
const pages = {}; // name -> page, for screenshots when the test fails
let checks = 0;

function log(...args) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s]`, ...args);
}

/** Fails the test with a sentence. */
function fail(message) {
  throw new Error(message);
}

function check(condition, message) {
  checks += 1;
  if (!condition) fail(message);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- prerequisites

if (!gammond || !buildDir) {
  console.error('usage: node web.test.mjs <path/to/gammond> <build-dir>');
  process.exit(2);
}
for (const [what, file] of [['gammond', gammond], ['Chromium (Debian package chromium)', CHROMIUM]]) {
  if (!existsSync(file)) {
    console.error(`FAILED: ${what} not found at ${file}: run scripts/setup and build gammond`);
    process.exit(1);
  }
}
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  console.error(`FAILED: playwright-core is not installed in tests/e2e (${e.message}): run scripts/setup (npm ci in tests/e2e)`);
  process.exit(1);
}

const outDir = path.join(path.resolve(buildDir), 'e2e');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const tmp = mkdtempSync(path.join(tmpdir(), 'gammond-e2e-'));

// ---------------------------------------------------------------- the server

async function startServer() {
  const portFile = path.join(tmp, 'port');
  const args = [
    '--port', '0', '--port-file', portFile, '--db', path.join(tmp, 'e2e.db'),
    '--static-dir', path.join(repo, 'clients/web'), '--dice-seed', '7',
    '--commands-per-second', '200', '--command-burst', '400',
  ];
  const logFile = path.join(outDir, 'gammond.log');
  writeFileSync(logFile, '');
  server = spawn(gammond, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  server.stdout.on('data', (d) => chunks.push(d));
  server.stderr.on('data', (d) => chunks.push(d));
  server.on('exit', () => writeFileSync(logFile, Buffer.concat(chunks)));
  for (const until = Date.now() + 30000; Date.now() < until; ) {
    if (server.exitCode !== null) fail(`gammond exited at start (code ${server.exitCode}): ${Buffer.concat(chunks)}`);
    if (existsSync(portFile)) {
      const port = Number(readFileSync(portFile, 'utf8').trim());
      if (port > 0) return `http://127.0.0.1:${port}`;
    }
    await sleep(50);
  }
  fail('gammond did not write its port file within 30 s');
  return null;
}

async function stopServer() {
  if (!server || server.exitCode !== null) return;
  server.kill('SIGTERM');
  for (let i = 0; i < 60 && server.exitCode === null; i++) await sleep(50);
  if (server.exitCode === null) server.kill('SIGKILL');
}

// ---------------------------------------------------------------- page helpers

async function login(page, base, name) {
  await page.goto(base);
  await page.fill('#login-name', name);
  await page.click('#login-form button[type="submit"]');
  await page.waitForSelector('#lobby:not([hidden])');
}

async function shot(page, name) {
  const file = path.join(outDir, name);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

/** The board as drawn: place -> checkers (+ red, − black), from the SVG alone. */
async function readBoard(page) {
  return page.evaluate(() => {
    const count = (g, side) => {
      const label = g.querySelector(`text.count.${side}`);
      return label ? Number(label.textContent) : g.querySelectorAll(`circle.checker.${side}`).length;
    };
    const out = {};
    for (const g of document.querySelectorAll('#board .point')) {
      out[g.dataset.place] = count(g, 'red') - count(g, 'black');
    }
    const bar = document.querySelector('#board .barplace');
    out.bar = { red: count(bar, 'red'), black: count(bar, 'black') };
    out.off = {};
    for (const side of ['red', 'black']) {
      out.off[side] = Number(document.querySelector(`#board .tray.${side} .tray-count`)?.textContent ?? 0);
    }
    return out;
  });
}

function checkFifteen(board, who) {
  let red = board.bar.red + board.off.red;
  let black = board.bar.black + board.off.black;
  for (let b = 1; b <= 24; b++) {
    if (board[b] > 0) red += board[b];
    else black -= board[b];
  }
  check(red === 15 && black === 15, `${who}: the board shows ${red} red and ${black} black checkers, not 15 each`);
}

const seqOf = (page) => page.$eval('#board', (b) => Number(b.dataset.seq ?? -1));

async function waitSeqAfter(page, seq) {
  await page.waitForFunction((s) => Number(document.querySelector('#board')?.dataset.seq ?? -1) > s, seq, {
    timeout: 10_000,
  });
}

const visible = async (page, selector) => (await page.locator(selector).count()) > 0 && page.locator(selector).first().isVisible();

async function dialogKind(page) {
  return page.$eval('#dialog', (d) => (d.hidden ? '' : d.dataset.kind));
}

/** Clicks a command button and waits for the state it causes. */
async function command(page, selector) {
  const seq = await seqOf(page);
  await page.click(selector);
  await waitSeqAfter(page, seq);
}

/** Own (mover) number of a board place, for choosing which checker to move. */
function ownNumber(side, place) {
  if (place === 'bar') return 25;
  if (place === 'off') return 0;
  const b = Number(place);
  return side === 'black' ? b : 25 - b;
}

const placeSelector = (place, side) =>
  place === 'bar' ? '#board .barplace' : place === 'off' ? `#board .tray.${side}` : `#board .point[data-place="${place}"]`;

/**
 * Plays one whole play by clicking (or dragging when `drag`): the checker farthest
 * from home first, to the farthest destination offered, until the play is sent.
 */
async function playByClicking(page, side, { drag = false, undoOnce = false, long = false, seq = null } = {}) {
  if (seq === null) seq = await seqOf(page);
  const own = (place) => (long ? longOwn(side, place) : ownNumber(side, place));
  let steps = 0;
  let undone = !undoOnce;
  for (;;) {
    const sources = await page.$$eval('#board .source', (els) => els.map((e) => e.dataset.place));
    if (sources.length === 0) fail(`${side}: no checker is offered to move in phase move`);
    const listed = await page.evaluate(() => {
      const st = window.gammond.states.get(window.gammond.table);
      return { froms: st.legal_moves.flatMap((p) => p.map((m) => String(m.from))),
        firsts: st.legal_moves.map((p) => String(p[0].from)), plays: st.legal.length,
        made: window.gammond.input?.steps.length ?? -1 };
    });
    if (listed.made === 0) {
      // Issue 11.11: the board offers what state.legal_moves lists, nothing else: every
      // source starts a listed move, and the first move of every listed play is offered.
      check(listed.firsts.length === listed.plays, `${side}: legal_moves has one list per legal play`);
      check(sources.every((s) => listed.froms.includes(s)), `${side}: every source is a listed move's start (${sources})`);
      check(listed.firsts.every((f) => sources.includes(f)), `${side}: each play's first move is offered (${sources})`);
    }
    sources.sort((a, b) => own(b) - own(a));
    const from = sources[0];
    let to;
    if (drag) {
      await page.click(placeSelector(from, side)); // see the destinations
      to = await chooseTarget(page, side, from, own);
      await page.click(placeSelector(from, side)); // still selected: drag it now
      const a = await page.locator(placeSelector(from, side)).boundingBox();
      const b = await page.locator(placeSelector(to, side)).boundingBox();
      await page.mouse.move(a.x + a.width / 2, a.y + a.height / 3);
      await page.mouse.down();
      await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
      await page.mouse.up();
      drag = false;
    } else {
      await page.click(placeSelector(from, side));
      to = await chooseTarget(page, side, from, own);
      await page.click(`${placeSelector(to, side)}`);
    }
    steps += 1;
    if (!undone) {
      // Undo the first step: the board must be as before, then play on.
      const before = await page.evaluate(() => window.gammond.input?.steps.length ?? -1);
      check(before === 1, `${side}: one step made before undo (got ${before})`);
      await page.click('#controls button[data-cmd="undo"]');
      const after = await page.evaluate(() => window.gammond.input?.steps.length ?? -1);
      check(after === 0, `${side}: undo takes the step back`);
      undone = true;
      continue;
    }
    const sent = await page.evaluate(
      (s) => window.gammond.sentMove || Number(document.querySelector('#board').dataset.seq) > s, seq);
    if (sent) break;
    if (steps > 8) fail(`${side}: a play took more than 8 steps without being sent`);
  }
  await waitSeqAfter(page, seq);
  return steps;
}

/** Long nardy's own numbering of a board place (RULES.md, Long backgammon). */
function longOwn(side, place) {
  if (place === 'off') return 0;
  const b = Number(place);
  return side === 'black' ? 25 - b : ((36 - b) % 24) + 1;
}

async function chooseTarget(page, side, from, own) {
  const targets = await page.$$eval('#board .target', (els) => els.map((e) => e.dataset.place));
  if (targets.length === 0) fail(`${side}: the checker on ${from} is offered but has no destination`);
  targets.sort((a, b) => own(a) - own(b));
  return targets[0];
}

// ---------------------------------------------------------------- the test

async function run() {
  const base = await startServer();
  log(`gammond at ${base}`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const desktop = { viewport: { width: 1280, height: 820 } };
  const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
  const alice = await (await browser.newContext(desktop)).newPage();
  const bob = await (await browser.newContext(phone)).newPage();
  const carol = await (await browser.newContext(desktop)).newPage();
  const pageErrors = [];
  // Issue 11 item 9: any error Chromium logs in a page's console (an invalid pattern
  // attribute, a failed load, a script error) fails the test, so none can come back.
  const consoleErrors = [];
  Object.assign(pages, { alice, bob, carol });
  for (const [n, p] of [['alice', alice], ['bob', bob], ['carol', carol]]) {
    p.on('pageerror', (e) => pageErrors.push(`${n}: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${n}: ${m.text()}`);
    });
    p.setDefaultTimeout(10_000);
  }

  // The lobby: alice creates the table and sits down; bob sees it in his lobby.
  await login(alice, base, 'alice');
  await alice.fill('#create-name', 'e2e');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await login(bob, base, 'bob');
  await bob.waitForSelector('#tables tr[data-table="e2e"]');
  const row = await bob.$eval('#tables tr[data-table="e2e"]', (tr) => tr.textContent);
  check(row.includes('alice'), `the lobby lists alice at table e2e (row: ${row})`);
  await bob.click('#tables tr[data-table="e2e"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');

  // Options by typing, as in a chat; an error is shown in words next to the input.
  await alice.fill('#line', '/frobnicate');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#error').textContent.length > 5);
  log(`error shown: "${await alice.textContent('#error')}"`);
  await alice.fill('#line', '/option match 3');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 3'));
  await alice.fill('#line', '/option tutor on');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelectorAll('#board text.tutor').length === 24);
  await command(alice, '#controls button[data-cmd="start"]');

  // carol sees the table in the lobby, with its players and options, and watches.
  await login(carol, base, 'carol');
  await carol.waitForFunction(() => /alice.*bob.*match to 3/.test(document.querySelector('#tables tr[data-table="e2e"]')?.textContent ?? '')
    || /bob.*alice.*match to 3/.test(document.querySelector('#tables tr[data-table="e2e"]')?.textContent ?? ''));
  await shot(carol, 'web-lobby.png');
  await carol.click('#tables tr[data-table="e2e"] button[data-cmd="enter"]');
  await carol.waitForSelector('#table:not([hidden]) #board .point');
  await carol.waitForFunction(() => document.querySelector('#board').dataset.phase === 'opening');

  // The starting position as drawn (R1.1), the same on every page.
  const start = { 24: -2, 13: -5, 8: -3, 6: -5, 1: 2, 12: 5, 17: 3, 19: 5 };
  for (const [n, p] of [['alice', alice], ['bob', bob], ['carol', carol]]) {
    const board = await readBoard(p);
    for (let b = 1; b <= 24; b++) {
      check(board[b] === (start[b] ?? 0), `${n}: point ${b} shows ${board[b]} at the start, not ${start[b] ?? 0}`);
    }
    checkFifteen(board, n);
  }
  const aliceSide = await alice.$eval('#strip-bottom', (s) => s.dataset.side);
  const bobSide = aliceSide === 'red' ? 'black' : 'red';
  check(await bob.$eval('#strip-bottom', (s) => s.dataset.side) === bobSide, 'bob sees his side at the bottom');
  log(`alice plays ${aliceSide}, bob ${bobSide}`);

  const players = [
    { name: 'alice', page: alice, side: aliceSide },
    { name: 'bob', page: bob, side: bobSide },
  ];
  let plays = 0;
  let doubled = false;
  let taken = false;
  let reloaded = false;
  let dragged = false;
  let undone = false;
  let midShot = false;
  let game2Plays = 0;
  let resigned = false;
  let dropped = false;
  const passesSeen = { alice: 0, bob: 0 };

  // Play until the match is over: whoever the page says must act, acts.
  while (Date.now() - started < TIME_LIMIT_MS) {
    if ((await dialogKind(alice)) === 'match-over') break;
    let acted = false;
    for (const pl of players) {
      const { page, side, name } = pl;
      const kind = await dialogKind(page);
      const phase = await page.$eval('#board', (b) => b.dataset.phase);
      const game = await page.evaluate(() => window.gammond.states.get('e2e')?.game_number ?? 0);
      if (kind === 'match-over') continue;
      if (kind === 'cube') {
        await shot(page, 'web-cube-offer.png');
        check(await page.$eval('#dialog .dialog-cube', (d) => d.textContent) === '2', 'the cube offer shows 2');
        await command(page, '#dialog button[data-cmd="take"]');
        taken = true;
        acted = true;
      } else if (kind === 'resign') {
        await command(page, '#dialog button[data-cmd="accept"]');
        acted = true;
      } else if (phase === 'opening') {
        if (name === 'alice') {
          await command(page, '#controls button[data-cmd="roll"]');
          acted = true;
        }
      } else if (await visible(page, '#controls button[data-cmd="roll"]')) {
        if (!doubled && plays >= 4 && (await visible(page, '#controls button[data-cmd="double"]'))) {
          await command(page, '#controls button[data-cmd="double"]');
          doubled = true;
          log(`${name} doubles`);
        } else if (game >= 2 && game2Plays >= 6 && !resigned && (await trailing(page, side))) {
          await command(page, '#controls button[data-cmd="resign"]');
          resigned = true;
          log(`${name} resigns game ${game}`);
        } else {
          await command(page, '#controls button[data-cmd="roll"]');
        }
        acted = true;
      } else if (phase === 'move' && (await page.locator('#board .source').count()) > 0) {
        if (name === 'alice' && plays >= 10 && !midShot) {
          midShot = true;
          const sources = await page.$$eval('#board .source', (els) => els.map((e) => e.dataset.place));
          sources.sort((a, b) => ownNumber(side, b) - ownNumber(side, a));
          await page.click(placeSelector(sources[0], side));
          check((await page.locator('#board .target').count()) > 0, 'a picked checker shows where it may go');
          await midGameChecks(alice, bob, carol);
        }
        const forced = await page.$eval('#banner', (b) => (b.hidden ? '' : b.textContent));
        const legal = await page.evaluate(() => window.gammond.states.get('e2e').legal.length);
        if (legal === 1) check(forced.startsWith('forced play'), `${name}: a forced play is shown (banner: "${forced}")`);
        await playByClicking(page, side, { drag: !dragged, undoOnce: dragged && !undone });
        if (dragged) undone = true;
        dragged = true;
        plays += 1;
        if (game >= 2) game2Plays += 1;
        acted = true;
        if (plays === 18 && !dropped) {
          // A network drop: the socket closes, the page reconnects with its token.
          dropped = true;
          await alice.evaluate(() => window.gammond.conn.ws.close());
          await alice.waitForFunction(() => document.querySelector('#status').dataset.status === 'closed');
          await alice.waitForFunction(() => document.querySelector('#status').dataset.status === 'open');
          await alice.waitForFunction(() => document.querySelector('#strip-bottom .you') !== null);
          log('alice lost the connection, came back and is still seated');
        }
        if (plays === 14 && !reloaded) {
          reloaded = true;
          await bob.reload();
          await bob.waitForSelector('#table:not([hidden]) #board .point');
          await bob.waitForFunction(() => document.querySelector('#strip-bottom .you') !== null);
          log('bob reloaded the page and is still seated');
        }
      }
      const passes = await page.locator('#log li.passed').count();
      if (passes > passesSeen[name]) {
        passesSeen[name] = passes;
        const banner = await page.$eval('#banner', (b) => (b.hidden ? '' : b.textContent));
        check(banner.startsWith('no legal move: pass'), `${name}: a pass is shown over the board (banner: "${banner}")`);
        log(`${name} saw a pass: ${banner}`);
      }
      if (taken && doubled && !pl.cubeChecked) {
        await checkCube(alice, bob, carol);
        for (const q of players) q.cubeChecked = true;
      }
    }
    if (!acted) await sleep(25);
  }
  check((await dialogKind(alice)) === 'match-over', `the match is over within ${TIME_LIMIT_MS / 1000} s (plays: ${plays})`);
  check(doubled && taken, 'the match had a double and a take');
  log(`match over after ${plays} plays`);

  // The end as every page shows it.
  for (const [n, p] of [['alice', alice], ['bob', bob], ['carol', carol]]) {
    await p.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'match-over');
    const title = await p.textContent('#dialog h3');
    const final = await p.textContent('#dialog .final-score');
    const m = /red (\d+) – black (\d+)/.exec(final);
    check(m, `${n}: the final score is shown (${final})`);
    const [red, black] = [Number(m[1]), Number(m[2])];
    check(Math.max(red, black) >= 3 && Math.min(red, black) < 3, `${n}: a match to 3 ends ${red}–${black}`);
    const winner = red > black ? 'red' : 'black';
    const winnerName = winner === aliceSide ? 'alice' : 'bob';
    check(title.includes(`${winnerName} (${winner}) wins the match`), `${n}: the dialog names the winner (${title})`);
    for (const side of ['red', 'black']) {
      const shown = await p.$eval(`.strip[data-side="${side}"] .score`, (s) => Number(s.dataset.score));
      check(shown === (side === 'red' ? red : black), `${n}: ${side}'s strip shows score ${shown}`);
    }
    const logText = await p.textContent('#log');
    check(logText.includes('doubles to 2') && logText.includes('takes'), `${n}: the log tells the double and the take`);
  }
  await shot(alice, 'web-match-over.png');

  await longNardy(alice, bob, aliceSide, bobSide);
  check(pageErrors.length === 0, `no script errors in the pages: ${pageErrors.join('; ')}`);
  check(consoleErrors.length === 0, `no errors in the pages' consoles: ${consoleErrors.join('; ')}`);
}

/** Centre of a board point on a page, as a fraction of the board's box (0..1). */
async function pointCentre(page, b) {
  const box = await page.locator('#board').boundingBox();
  const p = await page.locator(`#board .point[data-place="${b}"] .tri`).boundingBox();
  return { x: (p.x + p.width / 2 - box.x) / box.width, y: (p.y + p.height / 2 - box.y) / box.height };
}

/**
 * Long nardy at a second table: the starting position (black on 1, red on 13) and
 * one play by clicking, both sides moving counter-clockwise on every page.
 */
async function longNardy(alice, bob, aliceSide, bobSide) {
  await alice.click('#to-lobby');
  await alice.fill('#create-name', 'long');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await bob.click('#to-lobby');
  await bob.click('#tables tr[data-table="long"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option variant long');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('long'));
  await alice.fill('#line', '/option match basis');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('basis'));
  await command(alice, '#controls button[data-cmd="start"]');
  const bySide = { [aliceSide]: alice, [bobSide]: bob };
  for (const [side, page] of Object.entries(bySide)) {
    await page.waitForFunction(() => document.querySelector('#board').dataset.phase === 'opening');
    const board = await readBoard(page);
    check(board[1] === -15 && board[13] === 15, `${side}: long nardy starts with black on 1 and red on 13`);
    checkFifteen(board, side);
    // Each side sees its own head at the top right, the opponent's at the bottom left.
    const own = await pointCentre(page, side === 'black' ? 1 : 13);
    const theirs = await pointCentre(page, side === 'black' ? 13 : 1);
    check(own.x > 0.75 && own.y < 0.5, `${side}: its head is drawn at the top right (${JSON.stringify(own)})`);
    check(theirs.x < 0.25 && theirs.y > 0.5, `${side}: the other head at the bottom left (${JSON.stringify(theirs)})`);
  }
  await command(alice, '#controls button[data-cmd="roll"]');
  const moverSide = await alice.evaluate(() => window.gammond.states.get('long').turn);
  const mover = bySide[moverSide];
  const watcher = bySide[moverSide === 'red' ? 'black' : 'red'];
  const head = moverSide === 'black' ? 1 : 13;
  await mover.waitForSelector(`#board .point.source[data-place="${head}"]`);
  await mover.click(`#board .point[data-place="${head}"]`);
  const targets = await mover.$$eval('#board .target', (els) => els.map((e) => Number(e.dataset.place)));
  check(targets.length > 0, `${moverSide}: the head offers destinations`);
  const from = await pointCentre(mover, head);
  const fromThere = await pointCentre(watcher, head);
  for (const t of targets) {
    // Counter-clockwise: leftwards along the top for the mover, rightwards along
    // the bottom as the other side sees it.
    const here = await pointCentre(mover, t);
    const there = await pointCentre(watcher, t);
    check(here.y < 0.5 && here.x < from.x, `${moverSide}: ${head} -> ${t} goes left along the top`);
    check(there.y > 0.5 && there.x > fromThere.x, `${moverSide}: ${head} -> ${t} goes right along the bottom for the other side`);
  }
  await shot(mover, 'web-long.png');
  const seq = await seqOf(mover);
  await mover.click(`#board .point[data-place="${targets[0]}"]`);
  const sent = await mover.evaluate(
    (s) => window.gammond.sentMove || Number(document.querySelector('#board').dataset.seq) > s, seq);
  if (!sent) await playByClicking(mover, moverSide, { long: true, seq });
  await waitSeqAfter(mover, seq);
  const after = await readBoard(watcher);
  checkFifteen(after, 'long nardy after one play');
  check(after[head] !== (moverSide === 'black' ? -15 : 15), `the play left ${moverSide}'s head on every page`);
  log(`long nardy: ${moverSide} played from the head counter-clockwise`);

  // Basis session: the side on roll resigns, the other accepts, both are asked
  // "continue?" in a dialog; one stops and the session ends.
  const roller = watcher;
  await roller.waitForSelector('#controls button[data-cmd="resign"]');
  await command(roller, '#controls button[data-cmd="resign"]');
  await mover.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'resign');
  await command(mover, '#dialog button[data-cmd="accept"]');
  for (const page of [alice, bob]) {
    await page.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'continue');
    check((await page.textContent('#dialog .question')) === 'Continue?', 'the basis session asks "Continue?"');
  }
  await shot(alice, 'web-continue.png');
  await command(alice, '#dialog button[data-cmd="stop"]');
  for (const page of [alice, bob]) {
    await page.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'match-over');
  }
  log('basis: continue? asked in a dialog, the session stopped');
}

/** True when `side` has fewer points than the other, from the strips. */
async function trailing(page, side) {
  const scores = await page.$$eval('.strip', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.side, Number(e.querySelector('.score').dataset.score)])));
  return scores[side] < scores[side === 'red' ? 'black' : 'red'];
}

/** Mid-game: screenshots, the same board on all pages, no controls for the spectator. */
async function midGameChecks(alice, bob, carol) {
  // Each page draws the last state when it arrives: read the three boards until they
  // agree, under one generous deadline (no fixed pause; issue 11.10).
  const named = [['alice', alice], ['bob', bob], ['carol', carol]];
  let read = [];
  let boards = [];
  for (const until = Date.now() + 30000; ; await sleep(25)) {
    read = [];
    for (const [, p] of named) read.push(await readBoard(p));
    boards = read.map((b) => JSON.stringify(b));
    if ((boards[0] === boards[1] && boards[1] === boards[2]) || Date.now() > until) break;
  }
  read.forEach((board, i) => checkFifteen(board, named[i][0]));
  check(boards[0] === boards[1] && boards[1] === boards[2], `players and spectator see the same board:\n${boards.join('\n')}`);
  check((await carol.locator('#controls button').count()) === 0, 'the spectator has no buttons');
  check((await carol.locator('#board .source').count()) === 0, 'the spectator cannot pick checkers');
  const pips = await carol.$$eval('.strip .pips', (els) => els.map((e) => e.textContent));
  check(pips.length === 2 && pips.every((t) => /pips \d+/.test(t)), `both pip counts are shown (${pips})`);
  await shot(alice, 'web-table.png');
  await shot(bob, 'web-phone.png');
  await shot(carol, 'web-spectator.png');
}

/** After the take: every page shows the cube at 2 on the taker's side. */
async function checkCube(...pages) {
  for (const p of pages) {
    await p.waitForFunction(() => document.querySelector('#cube')?.dataset.value === '2');
    const cube = await p.$eval('#cube', (c) => ({ value: c.textContent, owner: c.dataset.owner }));
    const st = await p.evaluate(() => window.gammond.states.get('e2e').cube);
    check(cube.value === '2' && cube.owner === st.owner && st.owner !== 'center', `the cube shows 2 owned by ${st.owner} (${JSON.stringify(cube)})`);
  }
  log('the cube shows 2 on every page');
}

const watchdog = setTimeout(() => {
  console.error(`FAILED: the test ran past ${TIME_LIMIT_MS / 1000 + 20} s`);
  stopServer().finally(() => process.exit(1));
}, TIME_LIMIT_MS + 20_000);

let status = 0;
try {
  await run();
  log(`all ${checks} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`web e2e: ${checks} passed, 0 failed`);
} catch (e) {
  status = 1;
  console.error(`FAILED: ${e.stack ?? e}`);
  console.error(`(gammond's log: ${path.join(outDir, 'gammond.log')})`);
  for (const [n, p] of Object.entries(pages)) {
    try {
      await p.screenshot({ path: path.join(outDir, `failed-${n}.png`) });
      const st = await p.evaluate(() => {
        const g = window.gammond;
        const s = g.states.get(g.table);
        return { phase: s?.phase, turn: s?.turn, legal: s?.legal, dice: s?.dice, seq: s?.seq,
          steps: g.input?.steps, sentMove: g.sentMove, selected: g.selected, error: document.querySelector('#error').textContent };
      });
      console.error(`${n}: ${JSON.stringify(st)} (screenshot failed-${n}.png)`);
    } catch (err) {
      console.error(`${n}: no screenshot (${err.message})`);
    }
  }
  console.log(`web e2e: ${checks} passed, 1 failed`);
} finally {
  clearTimeout(watchdog);
  if (browser) await browser.close().catch(() => {});
  await stopServer();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(status);
