// Browser end-to-end accessibility audit (issue 27, item 8): axe-core (from npm, run in
// the page) finds no violation at all (serious, critical, or minor) on the login form,
// the lobby, a table in the middle of a game (with the resign dialog and the settings
// open) and the ratings, on a desktop and on a phone. (The analysis page is audited by
// analysis.test.mjs, which makes one.)
//
//   node a11y.test.mjs <path/to/gammond> <build-dir>
//
// Screenshots of each page audited go to <build-dir>/e2e/a11y/.

import { harness } from './harness.mjs';

const h = await harness('a11y', { timeLimitMs: 150_000 });
const { log, check, login, shot, command } = h;

/** h.audit(), and the minor findings must be none either. */
async function audit(page, what) {
  const minor = await h.audit(page, what);
  check(minor.length === 0, `${what}: axe-core's minor findings too: ${minor.join(', ')}`);
}

async function run() {
  const base = await h.startServer();
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob', h.phone);

  await alice.goto(base);
  await alice.waitForSelector('#login:not([hidden])');
  await audit(alice, 'login form');
  await login(alice, base, 'alice');
  await audit(alice, 'lobby (desktop)');
  await alice.fill('#create-name', 'a11y');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await login(bob, base, 'bob');
  await audit(bob, 'lobby (phone)');
  await bob.click('#tables tr[data-table="a11y"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await command(alice, '#controls button[data-cmd="start"]');
  await command(alice, '#controls button[data-cmd="roll"]');
  const st = await alice.evaluate(() => window.gammond.states.get('a11y'));
  if (st.phase === 'opening') await command(bob, '#controls button[data-cmd="roll"]');
  await alice.waitForFunction(() => window.gammond.states.get('a11y')?.phase === 'move');
  await audit(alice, 'table mid-game (desktop)');
  await audit(bob, 'table mid-game (phone)');
  await alice.click('#controls button[data-cmd="resign"]');
  await alice.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'resign-choice');
  await audit(alice, 'resign dialog');
  await shot(alice, 'a11y-resign.png');
  await alice.click('#dialog button[data-cmd="resign-cancel"]');
  await alice.click('#settings-button');
  await audit(alice, 'settings panel');
  await alice.click('#settings-button');
  await alice.click('#to-leaders');
  await alice.waitForSelector('#leaders:not([hidden])');
  await audit(alice, 'ratings page');
  log('every page audited');
}

await h.main(run);
