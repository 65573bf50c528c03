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
// <build-dir>/e2e/web/. Exits non-zero (never skips) when anything is missing or wrong.

import { harness, ownNumber, placeSelector, sleep } from './harness.mjs';

const h = await harness('web', { timeLimitMs: 170_000 });
const { log, fail, check, login, shot, readBoard, checkFifteen, seqOf, waitSeqAfter, visible, dialogKind, command,
  playByClicking, started } = h;
const TIME_LIMIT_MS = h.timeLimitMs;

// ---------------------------------------------------------------- the test

async function run() {
  const base = await h.startServer();
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob', h.phone);
  const carol = await h.newPage('carol');

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
  let spectatorForced = 0; // forced plays the spectator's page showed too
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
          await h.resign(page);
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
        if (legal === 1) {
          check(forced.startsWith('forced play'), `${name}: a forced play is shown (banner: "${forced}")`);
          // Issue 15: the spectator's state lists a forced play too, and its page shows it.
          const seq = await page.evaluate(() => window.gammond.states.get('e2e').seq);
          await carol.waitForFunction((s) => (window.gammond.states.get('e2e')?.seq ?? 0) >= s, seq, { timeout: 10000 });
          const watching = await carol.$eval('#banner', (b) => (b.hidden ? '' : b.textContent));
          check(watching.startsWith('forced play'), `the spectator sees the forced play too (banner: "${watching}")`);
          spectatorForced += 1;
        }
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
  log(`match over after ${plays} plays (${spectatorForced} forced, shown to the spectator too)`);

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
  const sent = (await h.confirmPending(mover)) || (await mover.evaluate(
    (s) => window.gammond.sentMove || Number(document.querySelector('#board').dataset.seq) > s, seq));
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
  await h.resign(roller);
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

await h.main(run);
