// Browser end-to-end test: every page has its address, and a finished match can be
// replayed (issue 27, items 5 and 6), in real headless Chromium.
//
//   node pages.test.mjs <path/to/gammond> <build-dir>
//
// alice and bob register. The ratings page, alice's own page and the lobby each have
// their path (History API): Back and Forward walk through them, and a reload stays. The
// lobby shows who is online and its chat has a title. alice makes the table pg (its
// address is /table/pg); bob opens that address as a shared link and lands there. They
// play a 1-point match for a few plays and bob resigns. The end-of-match box links the
// replay (/match/ID): it steps forward and back with the keys, the slider and the
// buttons, its first step is the starting position and its last the final position the
// table showed; Back returns to the table. alice's page lists the match with its replay;
// the older link #match/ID opens the same page under its path; carol (a guest) replays
// it too. axe-core audits the replay and the lobby. Screenshots go to
// <build-dir>/e2e/pages/.

import { harness } from './harness.mjs';

const h = await harness('pages', { timeLimitMs: 150_000 });
const { log, check, login, shot, command, stateOf } = h;

/** The page's path (no origin). */
const pathOf = (page) => page.evaluate(() => location.pathname + location.hash);

/** Waits for the view `view` (the body's data-view) and the path `path`. */
async function at(page, view, path) {
  await page.waitForFunction(([v, p]) => document.body.dataset.view === v && location.pathname + location.hash === p, [view, path]);
}

/** The step the replay shows: {at, game, text}. */
const replayStep = (page) => page.evaluate(() => {
  const s = document.querySelector('section.replay[data-status="ready"]');
  return { at: Number(s?.dataset.at ?? -1), steps: Number(s?.dataset.steps ?? 0), text: document.querySelector('#replay-step')?.textContent ?? '' };
});

async function run() {
  const base = await h.startServer(['--register-per-hour', '0']);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice', { viewport: { width: 1366, height: 800 } });
  const bob = await h.newPage('bob');

  await h.register(bob, base, 'bob', 'bob-secret-22');
  await h.register(alice, base, 'alice', 'alice-secret-1');
  check((await pathOf(alice)) === '/', 'the lobby is /');

  // The lobby: who is online, and the chat's title.
  await alice.waitForFunction(() => ['alice', 'bob'].every((n) => document.querySelector(`#online [data-name="${n}"]`)));
  check((await alice.textContent('#online-count')) === '(2)', 'the online panel counts two players');
  check((await alice.textContent('#chat-title')) === 'Lobby chat', 'the lobby chat has a title');
  check(!(await alice.locator('#log li.info').allTextContents()).some((t) => /online/.test(t)),
    "the panel's own /who is not written in the chat");

  // Ratings, alice's page, Back, Back, Forward, a reload.
  await alice.click('#to-leaders');
  await at(alice, 'leaders', '/ratings/standard');
  await alice.click('#who');
  await at(alice, 'player', '/player/alice');
  await alice.goBack();
  await at(alice, 'leaders', '/ratings/standard');
  await alice.goBack();
  await at(alice, 'lobby', '/');
  await alice.goForward();
  await at(alice, 'leaders', '/ratings/standard');
  await alice.reload();
  await at(alice, 'leaders', '/ratings/standard');
  check(true, 'Back and Forward walk lobby, ratings and player pages; a reload stays');
  await alice.click('#leaders button.back');
  await at(alice, 'lobby', '/');
  check(true, "a page's back link goes back");

  // A table has its address; bob opens it as a shared link.
  await alice.fill('#create-name', 'pg');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await at(alice, 'table', '/table/pg');
  check((await alice.textContent('#chat-title')).includes('pg'), "the table's chat is titled with its name");
  await command(alice, '#controls button[data-cmd="join"]');
  await bob.goto(`${base}/table/pg`);
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await at(bob, 'table', '/table/pg');
  check(true, "a shared table link opens the table after the remembered sign-in");
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option match 1');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
  await command(alice, '#controls button[data-cmd="start"]');
  await alice.reload();
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await at(alice, 'table', '/table/pg');
  await alice.waitForFunction(() => window.gammond.states.get('pg')?.players?.red === 'alice');
  check(true, 'a reload at a table stays at the table, in the seat');

  // A few plays, then bob resigns and alice accepts.
  await command(alice, '#controls button[data-cmd="roll"]');
  if ((await stateOf(alice)).phase === 'opening') await command(bob, '#controls button[data-cmd="roll"]');
  await alice.waitForFunction(() => window.gammond.states.get('pg')?.phase === 'move');
  const pages = { alice, bob };
  let plays = 0;
  for (; plays < 4; plays += 1) {
    const st = await stateOf(alice);
    const page = pages[st.players[st.turn]];
    if (st.phase === 'roll') await command(page, '#controls button[data-cmd="roll"]');
    const now = await stateOf(page);
    if (now.phase !== 'move' || !now.legal?.length) continue; // a pass
    const seq = await h.seqOf(page);
    await h.stepUntilComplete(page);
    await h.confirmPending(page);
    await h.waitSeqAfter(alice, seq);
  }
  const final = await h.readBoard(alice);
  await bob.waitForSelector('#controls button[data-cmd="resign"]');
  await h.resign(bob);
  await alice.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'resign');
  await command(alice, '#dialog button[data-cmd="accept"]');
  await alice.waitForFunction(() => document.querySelector('#dialog').dataset.kind === 'match-over');
  const id = (await stateOf(alice)).last_match_id;
  check(Number.isInteger(id), `the match is stored (${id})`);

  // The end-of-match box's replay link.
  await alice.click('#dialog a[data-cmd="replay"]');
  await at(alice, 'replay', `/match/${id}`);
  await alice.waitForSelector('section.replay[data-status="ready"]');
  let s = await replayStep(alice);
  check(s.at === 0 && /starts with \d\d/.test(s.text), `the replay starts at the opening (${s.text})`);
  check(s.steps >= plays + 3, `every step is there: the start, ${plays} plays, the resignation (${s.steps})`);
  const start = await h.readBoard(alice, '#replay-board');
  check(start[24] === -2 && start[1] === 2 && start[6] === -5 && start[19] === 5, 'the first step shows the starting position (R1)');
  await alice.keyboard.press('ArrowRight');
  s = await replayStep(alice);
  check(s.at === 1 && /: \d+\/\d+/.test(s.text), `→ steps to the first play (${s.text})`);
  check(JSON.stringify(await h.readBoard(alice, '#replay-board')) !== JSON.stringify(start), 'the first play moved checkers');
  check((await alice.locator('#replay-board .last-from').count()) > 0, 'the play is marked on the board');
  await alice.keyboard.press('End');
  s = await replayStep(alice);
  check(s.at === s.steps - 1 && /resign/.test(s.text), `End goes to the last step (${s.text})`);
  check(JSON.stringify(await h.readBoard(alice, '#replay-board')) === JSON.stringify(final), 'the last step is the final position the table showed');
  await alice.keyboard.press('ArrowLeft');
  check((await replayStep(alice)).at === s.steps - 2, '← steps back');
  await alice.fill('#replay-slider', '2');
  check((await replayStep(alice)).at === 2, 'the slider goes to a step');
  await alice.click('button[data-cmd="replay-first"]');
  check((await replayStep(alice)).at === 0, 'the first-step button goes back to the start');
  await alice.click('button[data-cmd="replay-last"]');
  check((await replayStep(alice)).at === s.steps - 1, 'the last-step button goes to the end');
  await shot(alice, 'replay.png');
  await h.audit(alice, 'the replay');

  // Back: the table again.
  await alice.goBack();
  await at(alice, 'table', '/table/pg');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  check(true, 'Back from the replay returns to the table');
  await alice.goForward();
  await at(alice, 'replay', `/match/${id}`);

  // alice's page lists the match with its replay.
  await alice.click('#who');
  await at(alice, 'player', '/player/alice');
  await alice.waitForSelector(`#player-history tr[data-match="${id}"] a[data-cmd="replay"]`);
  check((await alice.locator(`#player-history tr[data-match="${id}"] a[data-cmd="analysis"]`).count()) === 1, 'the history row links the analysis');
  await alice.click(`#player-history tr[data-match="${id}"] a[data-cmd="replay"]`);
  await at(alice, 'replay', `/match/${id}`);
  await alice.waitForSelector('section.replay[data-status="ready"]');
  check((await replayStep(alice)).at === 0, 'a history row opens the replay');

  // The older link, and a guest who did not play.
  const carol = await h.newPage('carol', h.phone);
  await carol.goto(`${base}/#match/${id}`);
  await at(carol, 'replay', `/match/${id}`);
  await carol.waitForSelector('section.replay[data-status="ready"]');
  check(true, 'the older link #match/ID opens the replay under its path, signed in or not');
  await shot(carol, 'replay-phone.png');
  await login(carol, base, 'carol');
  await at(carol, 'lobby', '/');
  await h.audit(carol, 'the lobby (phone)');
}

await h.main(run);
