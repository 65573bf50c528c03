// Browser end-to-end test of the clocks and the verifiable dice (issue 13) in the web
// client, in real headless Chromium.
//
//   node fairplay.test.mjs <path/to/gammond> <build-dir>
//
// gammond runs with --clock-minute-seconds 25 (a test-only flag: one minute of
// /option clock lasts 25 s). alice (desktop) and bob (a phone-sized screen) sit down,
// set "/option clock 1 0" (a 25 s bank each, no delay) and a seed of their own, and
// play a turn each by clicking; then the player on turn stops. The test checks that
// both clocks are drawn on both pages, that the running one ticks down while the other
// stays, that it turns to its warning at 10 s, that the match ends on time, and that
// the finished match shows "dice verified" (the page re-derives every roll from the
// revealed seed with WebCrypto). Screenshots go to <build-dir>/e2e/fairplay/.

import { harness } from './harness.mjs';

const h = await harness('fairplay', { timeLimitMs: 170_000 });
const { log, check, login, shot, command, playByClicking } = h;

/** The clocks as drawn on `page`: side -> {ms, text, running, warning}. */
const clocks = (page) =>
  page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('.strip .clock')) {
      out[el.dataset.side] = {
        ms: Number(el.dataset.ms),
        text: el.textContent,
        running: el.classList.contains('running'),
        warning: el.classList.contains('warning'),
      };
    }
    return out;
  });

/** The state the page last received. */
const stateOf = (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table));

async function run() {
  const base = await h.startServer(['--clock-minute-seconds', '25']);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob', h.phone);

  await login(alice, base, 'alice');
  await alice.fill('#create-name', 'fp');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await login(bob, base, 'bob');
  await bob.waitForSelector('#tables tr[data-table="fp"]');
  await bob.click('#tables tr[data-table="fp"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');

  // The clock option, typed as in a chat: both pages draw both clocks at 0:25.
  await alice.fill('#line', '/option clock 1 0');
  await alice.press('#line', 'Enter');
  for (const [name, page] of [['alice', alice], ['bob', bob]]) {
    await page.waitForFunction(() => document.querySelectorAll('.strip .clock').length === 2);
    const c = await clocks(page);
    check(c.red?.text === '0:25' && c.black?.text === '0:25', `${name} sees both clocks at 0:25 (${JSON.stringify(c)})`);
    check(!c.red.running && !c.black.running, `${name}: no clock runs before the match`);
  }
  await alice.fill('#line', '/option match 3');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 3'));
  await command(alice, '#controls button[data-cmd="start"]');
  await alice.fill('#line', '/seed alice was here');
  await alice.press('#line', 'Enter');
  await bob.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('alice was here')));

  // The opening roll; then the first mover's clock runs and ticks on both pages.
  await command(bob, '#controls button[data-cmd="roll"]');
  const aliceSide = await alice.$eval('#strip-bottom', (s) => s.dataset.side);
  const pageOf = (side) => (side === aliceSide ? alice : bob);
  let st = await stateOf(alice);
  const first = st.turn;
  const second = first === 'red' ? 'black' : 'red';
  log(`alice plays ${aliceSide}; ${first} moves first`);
  for (const [name, page] of [['alice', alice], ['bob', bob]]) {
    const before = await clocks(page);
    check(before[first].running && !before[second].running, `${name}: ${first}'s clock runs (${JSON.stringify(before)})`);
    await page.waitForFunction(
      ({ side, ms }) => Number(document.querySelector(`.strip .clock[data-side="${side}"]`).dataset.ms) < ms - 300,
      { side: first, ms: before[first].ms }, { timeout: 10_000 });
    const after = await clocks(page);
    check(after[first].text !== '0:25' || before[first].ms - after[first].ms > 0, `${name}: ${first}'s clock ticks down`);
    check(after[second].ms === 25_000, `${name}: ${second}'s clock does not move while ${first} thinks`);
  }
  await shot(alice, 'fairplay-clocks.png');

  // One play each, by clicking.
  await playByClicking(pageOf(first), first);
  await command(pageOf(second), '#controls button[data-cmd="roll"]');
  st = await stateOf(alice);
  if (st.phase === 'move' && st.turn === second) await playByClicking(pageOf(second), second);
  st = await stateOf(alice);
  const stalled = st.to_act;
  log(`${stalled} to act: now nobody acts`);

  // The stalled side's clock turns to its warning at 10 s, on both pages.
  for (const [name, page] of [['alice', alice], ['bob', bob]]) {
    await page.waitForSelector(`.strip .clock.running.warning[data-side="${stalled}"]`, { timeout: 30_000 });
    const c = await clocks(page);
    // (at 10.0 s exactly the warning is on and the text still 0:10; below, tenths)
    const shown = c[stalled].ms < 10_000 ? /^0:0\d\.\d$/.test(c[stalled].text) : c[stalled].text === '0:10';
    check(c[stalled].ms <= 10_000 && shown, `${name}: the warning shows at 10 s or less (${c[stalled].text}, ${c[stalled].ms} ms)`);
  }
  await shot(bob, 'fairplay-warning.png');

  // The bank runs out: the match is lost on time, and the page checks the dice.
  for (const [name, page] of [['alice', alice], ['bob', bob]]) {
    await page.waitForSelector('#dialog[data-kind="match-over"]', { timeout: 30_000 });
    const text = await page.textContent('#dialog');
    check(text.includes('ran out of time'), `${name}: the dialog says the match was lost on time (${text})`);
    await page.waitForSelector('#dice-check[data-state="verified"]', { timeout: 15_000 });
    const verified = await page.textContent('#dice-check');
    check(verified.includes('dice verified'), `${name}: the finished match shows "dice verified" (${verified})`);
    const c = await clocks(page);
    check(c[stalled].ms === 0 && !c[stalled].running, `${name}: the stalled clock shows 0 and stops`);
  }
  const logText = await alice.$$eval('#log li', (items) => items.map((li) => li.textContent).join('\n'));
  check(/no time left/.test(logText), 'the log tells who ran out of time');
  await shot(alice, 'fairplay-verified.png');
}

await h.main(run);
