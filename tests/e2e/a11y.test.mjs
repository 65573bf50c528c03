// Browser end-to-end accessibility audit (issue 27, item 8): axe-core (from npm, run in
// the page) finds no violation at all (serious, critical, or minor) on the login form,
// the lobby, a table in the middle of a game (with the resign dialog and the settings
// open) and the ratings, on a desktop and on a phone; the board's points, bar, trays,
// dice and cube have accessible names. (The analysis page is audited by
// analysis.test.mjs, the replay by pages.test.mjs.)
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
  await alice.fill('#line', '/option match 3'); // a match: the cube is on the board
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 3'));
  await alice.fill('#line', '/option clock 5 12'); // and clocks, named too
  await alice.press('#line', 'Enter');
  await alice.waitForSelector('#table .clock[data-side="red"]');
  await command(alice, '#controls button[data-cmd="start"]');
  await command(alice, '#controls button[data-cmd="roll"]');
  const st = await alice.evaluate(() => window.gammond.states.get('a11y'));
  if (st.phase === 'opening') await command(bob, '#controls button[data-cmd="roll"]');
  await alice.waitForFunction(() => window.gammond.states.get('a11y')?.phase === 'move');
  await audit(alice, 'table mid-game (desktop)');
  await audit(bob, 'table mid-game (phone)');

  // Points, checkers, the bar, the trays, the dice and the cube have accessible names,
  // in the numbers of the player at the bottom (R1: alice's own).
  const names = await alice.evaluate(() => {
    const board = document.querySelector('#board');
    const label = (sel) => board.querySelector(sel)?.getAttribute('aria-label') ?? null;
    return {
      role: board.getAttribute('role'),
      points: [...board.querySelectorAll('.point')].map((g) => `${g.getAttribute('role')} ${g.getAttribute('aria-label')}`),
      bar: label('.barplace'),
      trays: [...board.querySelectorAll('.tray')].map((g) => g.getAttribute('aria-label')),
      dice: label('.dice'),
      cube: label('#cube'),
      bottom: board.dataset.bottom,
    };
  });
  check(names.role === 'group', `the board is a group of named parts (${names.role})`);
  check(names.points.length === 24 && names.points.every((p) => /^img point \d+: /.test(p)), `24 points with names (${names.points[0]})`);
  const bottom = names.bottom;
  const own = (n) => names.points.find((p) => p.startsWith(`img point ${n}:`));
  check(/5 \w+ checkers/.test(own(6)) && own(6).includes(bottom), `alice's 6-point: 5 of her checkers (${own(6)})`);
  check(/2 \w+ checkers/.test(own(24)) && own(24).includes(bottom), `alice's 24-point: 2 of her checkers (${own(24)})`);
  const now = await alice.evaluate(() => window.gammond.states.get('a11y'));
  const mover = now.players[now.turn] === 'alice' ? alice : bob;
  const movable = await mover.$$eval('#board .point', (gs) => gs.map((g) => g.getAttribute('aria-label')).filter((l) => l.includes('can move')));
  check(movable.length > 0, `the points the mover can move from say so (${movable[0]})`);
  check(/^the bar: no checker, no checker/.test(names.bar ?? ''), `the bar is named (${names.bar})`);
  check(names.trays.length === 2 && names.trays.every((t) => /borne-off checkers: 0/.test(t)), `the trays are named (${names.trays})`);
  check(/^(red|black)'s dice: \d and \d$/.test(names.dice ?? ''), `the dice are named (${names.dice})`);
  check(names.cube === 'the cube in the middle at 1', `the cube is named (${names.cube})`);
  const clocks = await alice.$$eval('#table .clock', (els) => els.map((e) => `${e.getAttribute('role')} ${e.getAttribute('aria-label')}`));
  check(clocks.length === 2 && clocks.every((c) => /^timer (red|black)'s clock: \d+:\d\d/.test(c)) && clocks.some((c) => c.endsWith('running')),
    `the clocks are named, the running one says so (${clocks.join('; ')})`);
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
