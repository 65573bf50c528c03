// Browser end-to-end test of "Play now" (matchmaking, RULES.md S5), in real headless
// Chromium against the real gammond.
//
//   node seek.test.mjs <path/to/gammond> <build-dir>
//
// dora only looks at the lobby: next to "Play now" it says nobody is waiting. carol
// clicks "Play now" for long backgammon: her lobby says she is looking for an opponent,
// with the time she has waited (counting up) and the rating window, and dora's lobby
// says 1 waits for long backgammon, pushed by the server; Cancel withdraws it, the
// button works again and dora's count goes back to nobody. alice then asks for a 1-point match and waits; bob clicks "Play now" with the
// default lengths: both pages go to the same new table by themselves, alice red (the
// longer waiter) and bob black, and the match has started. Screenshots go to
// <build-dir>/e2e/seek/.

import { harness } from './harness.mjs';

const h = await harness('seek', { timeLimitMs: 90_000 });
const { log, check, login, shot } = h;

/** The state of the table on screen, as the client keeps it. */
const stateOf = (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table));

await h.main(async () => {
  const base = await h.startServer([]);
  log(`gammond at ${base}`);

  // An idle lobby: the count of players waiting.
  const dora = await h.newPage('dora');
  await login(dora, base, 'dora');
  await dora.waitForSelector('#seek-count:not([hidden])');
  const nobody = await dora.textContent('#seek-count');
  check(nobody.includes('Nobody is waiting'), `dora's lobby says nobody waits ("${nobody}")`);

  // Waiting, then Cancel.
  const carol = await h.newPage('carol');
  await login(carol, base, 'carol');
  await carol.waitForSelector('#seek-form button[data-cmd="seek"]');
  await carol.selectOption('#seek-variant', 'long');
  await carol.click('#seek-form button[data-cmd="seek"]');
  await carol.waitForSelector('#seek-status:not([hidden])');
  const waiting = await carol.textContent('#seek-text');
  check(waiting.includes('Looking for an opponent') && waiting.includes('long backgammon'),
    `carol's page says she waits ("${waiting}")`);
  check(await carol.isDisabled('#seek-form button[data-cmd="seek"]'), 'the button waits with her');
  check(waiting.includes('rating ±100'), `carol's page shows her rating window ("${waiting}")`);
  // Without a /tables of her own: the server's push.
  await dora.waitForFunction(() => document.querySelector('#seek-count').textContent.includes('1 for long backgammon'));
  const count = await dora.textContent('#seek-count');
  check(count.includes('0 waiting for backgammon, 1 for long backgammon'), `dora's lobby counts carol ("${count}")`);
  await shot(dora, 'count.png');
  await carol.waitForFunction(() => /0:0[1-9]/.test(document.querySelector('#seek-text').textContent));
  log('the time waited counts up');
  await shot(carol, 'waiting.png');
  await carol.click('#seek-cancel');
  await carol.waitForSelector('#seek-status', { state: 'hidden' });
  check(!(await carol.isDisabled('#seek-form button[data-cmd="seek"]')), 'after Cancel the button works again');
  await dora.waitForFunction(() => document.querySelector('#seek-count').textContent.includes('Nobody is waiting'));
  log("after Cancel dora's lobby says nobody waits again");

  // A pair: alice (1 point) waits first, bob (any of 5, 7, 3 or 1) comes.
  const alice = await h.newPage('alice');
  await login(alice, base, 'alice');
  await alice.selectOption('#seek-match', '1');
  await alice.click('#seek-form button[data-cmd="seek"]');
  await alice.waitForSelector('#seek-status:not([hidden])');
  const bob = await h.newPage('bob');
  await login(bob, base, 'bob');
  await bob.click('#seek-form button[data-cmd="seek"]');
  for (const page of [alice, bob]) {
    await page.waitForSelector('#table:not([hidden]) #board .point');
    await page.waitForFunction(() => (window.gammond.states.get(window.gammond.table)?.game_number ?? 0) >= 1);
  }
  const tableA = await alice.textContent('#table-name');
  const tableB = await bob.textContent('#table-name');
  check(tableA.startsWith('match-') && tableA === tableB, `both pages went to the same new table ("${tableA}", "${tableB}")`);
  const st = await stateOf(bob);
  check(st.players.red === 'alice' && st.players.black === 'bob', `alice is red, bob black (${JSON.stringify(st.players)})`);
  check(st.options.match === 1, `the match is to 1 point, what both accept (${st.options.match})`);
  check(await alice.isHidden('#seek-status'), "alice's waiting line is gone");
  await shot(bob, 'paired.png');
});
