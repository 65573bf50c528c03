// Browser end-to-end test of accounts and ratings in the web client (issue 12), in real
// headless Chromium.
//
//   node accounts.test.mjs <path/to/gammond> <build-dir>
//
// alice creates an account, then logs in again with her password in a fresh browser
// (after a wrong one, refused in words); bob creates his; carol, a guest, is refused the
// name alice and watches. alice and bob play a rated 1-point match that alice resigns:
// the pages show the rating change (1500.00 -> 1490.00 and 1510.00, RULES.md S1 by
// hand: 4 * sqrt(1) * 1/2 * K 5 = 10.00) in the match-over dialog, next to the names at
// the table, in the lobby and in the header; the leaderboard lists bob first, and his
// player page has the match with its rating change and a .mat link that downloads.
// Screenshots go to <build-dir>/e2e/accounts/. Exits non-zero (never skips) when
// anything is missing or wrong.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('accounts', { timeLimitMs: 150_000 });
const { log, check, login, shot, command, dialogKind } = h;

/** Fills the login form with a name and a password and submits it. */
async function submitLogin(page, name, password) {
  await page.fill('#login-name', name);
  await page.fill('#login-password', password);
  await page.click('#login-button');
}

/** The rating shown next to `name` under `scope` (a selector), or null. */
async function ratingShown(page, scope, name) {
  return page.$$eval(`${scope} [data-name]`, (els, n) => {
    const item = els.find((e) => e.dataset.name === n && e.querySelector('.rating'));
    return item?.querySelector('.rating')?.textContent ?? null;
  }, name);
}

await h.main(async () => {
  // An --admins name is made on the host only (`gammond admin create`); alice registers
  // in the browser as anyone does.
  const made = spawnSync(process.argv[2], ['admin', 'create', 'boss', '--db', path.join(h.tmp, 'e2e.db')],
    { input: 'boss-secret-1\n', encoding: 'utf8' });
  check(made.status === 0, `gammond admin create boss made the account (exit ${made.status}: ${made.stderr})`);
  const base = await h.startServer(['--admins', 'boss']);
  log(`gammond at ${base}`);

  // boss, made on the host, logs in from the browser and is an administrator.
  const boss = await h.newPage('boss');
  await boss.goto(base);
  await submitLogin(boss, 'boss', 'boss-secret-1');
  await boss.waitForSelector('#lobby:not([hidden])');
  check(await boss.evaluate(() => window.gammond.account?.admin === true), 'boss (in --admins, made on the host) is an admin');
  await boss.context().close();
  delete h.pages.boss;

  // alice creates her account: the header shows her name and her rating.
  const first = await h.newPage('alice-first');
  await h.register(first, base, 'alice', 'alice-secret-1');
  await first.waitForFunction(() => document.querySelector('#who')?.dataset.registered === 'yes');
  check((await first.textContent('#who')).includes('1500.00'), 'the header shows alice at 1500.00');
  check(await first.evaluate(() => window.gammond.account?.admin === false), 'alice (not in --admins) is no admin');
  check(await first.evaluate(() => !JSON.stringify({ ...sessionStorage, ...localStorage }).includes('alice-secret-1')),
    'the password is stored nowhere in the browser');
  await first.context().close();
  delete h.pages['alice-first'];

  // A fresh browser: a wrong password is refused in words, the right one logs in.
  const alice = await h.newPage('alice');
  await alice.goto(base);
  await submitLogin(alice, 'alice', 'not-her-password');
  await alice.waitForFunction(() => document.querySelector('#login-error').textContent.length > 5);
  const refused = await alice.textContent('#login-error');
  check(/wrong name or password/.test(refused), `a wrong password is refused in words ("${refused}")`);
  check(await h.visible(alice, '#login-form'), 'the login form stays for another try');
  await submitLogin(alice, 'alice', 'alice-secret-1');
  await alice.waitForSelector('#lobby:not([hidden])');
  check((await alice.textContent('#who')).includes('1500.00'), 'logged in with her password, alice sees 1500.00');

  const bob = await h.newPage('bob');
  await h.register(bob, base, 'bob', 'bob-secret-22');

  // carol may not play as alice without the password; as herself she is a guest.
  const carol = await h.newPage('carol');
  await carol.goto(base);
  await carol.fill('#login-name', 'alice');
  await carol.click('#login-button');
  await carol.waitForFunction(() => /registered/.test(document.querySelector('#login-error').textContent));
  await login(carol, base, 'carol');
  check(await carol.evaluate(() => window.gammond.account?.registered === false), 'carol plays as a guest');

  // alice opens a table and sits down; bob sees the ratings in the lobby and joins.
  await alice.fill('#create-name', 'rated');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await bob.waitForSelector('#tables tr[data-table="rated"] [data-name="alice"] .rating');
  check(await ratingShown(bob, '#tables tr[data-table="rated"]', 'alice') === '1500.00',
    'the lobby shows alice at 1500.00');
  await bob.click('#tables tr[data-table="rated"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option match 1');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
  await command(alice, '#controls button[data-cmd="start"]');

  // carol watches: the seats show both ratings; the spectator list shows carol without one.
  await carol.waitForSelector('#tables tr[data-table="rated"]');
  await carol.click('#tables tr[data-table="rated"] button[data-cmd="enter"]');
  await carol.waitForSelector('#table:not([hidden]) #board .point');
  await carol.waitForFunction(() => document.querySelectorAll('.strip .name .rating').length === 2);
  for (const n of ['alice', 'bob']) {
    check(await ratingShown(carol, '#table .strip', n) === '1500.00', `carol sees ${n} at 1500.00 at the table`);
  }
  await alice.waitForFunction(() => document.querySelector('#spectators').textContent.includes('carol'));
  check(await ratingShown(alice, '#spectators', 'carol') === null, 'a guest spectator has no rating');

  // The opening roll, then alice resigns and bob accepts: bob wins the rated match.
  await command(alice, '#controls button[data-cmd="roll"]');
  await h.resign(alice);
  await bob.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'resign');
  await bob.click('#dialog button[data-cmd="accept"]');
  for (const [n, p] of [['alice', alice], ['bob', bob], ['carol', carol]]) {
    await p.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'match-over');
    await p.waitForFunction(() => document.querySelectorAll('#dialog .rating-changes').length === 2);
    const lines = await p.$$eval('#dialog .rating-changes', (els) =>
      Object.fromEntries(els.map((e) => [e.dataset.name, e.textContent])));
    log(`${n} reads: ${JSON.stringify(lines)}`);
    check(lines.bob === 'bob 1500.00 → 1510.00 (+10.00)', `${n}: the dialog shows bob's +10.00 (${lines.bob})`);
    check(lines.alice === 'alice 1500.00 → 1490.00 (-10.00)', `${n}: the dialog shows alice's -10.00 (${lines.alice})`);
    await p.waitForFunction(() => [...document.querySelectorAll('.strip .name')]
      .some((e) => e.dataset.name === 'bob' && e.querySelector('.rating')?.textContent === '1510.00'));
    check(await ratingShown(p, '#table .strip', 'alice') === '1490.00', `${n}: alice's seat shows 1490.00`);
  }
  check(await dialogKind(alice) === 'match-over', 'the match is over');
  await bob.waitForFunction(() => document.querySelector('#who').textContent.includes('1510.00'));
  await shot(bob, 'accounts-match-over.png');

  // The leaderboard: bob first at 1510.00, then alice.
  await bob.click('#to-leaders');
  await bob.waitForFunction(() => document.querySelector('#leaders')?.dataset.loaded === 'standard');
  const leaders = await bob.$$eval('#leaders-table tbody tr', (rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent)));
  log(`leaderboard: ${JSON.stringify(leaders)}`);
  check(leaders.length === 2, `the leaderboard lists both players (${leaders.length})`);
  check(leaders[0][1] === 'bob' && leaders[0][2] === '1510.00', 'bob leads with 1510.00');
  check(leaders[1][1] === 'alice' && leaders[1][2] === '1490.00', 'alice follows with 1490.00');
  await shot(bob, 'accounts-leaders.png');

  // bob's page, opened from the leaderboard: his rating and the match with a .mat link.
  await bob.click('#leaders-table tbody tr[data-name="bob"] button[data-name="bob"]');
  await bob.waitForFunction(() => document.querySelector('#player')?.dataset.loaded === 'bob');
  const standard = await bob.textContent('#player-ratings tr[data-variant="standard"] .rating-value');
  check(standard === '1510.00', `bob's page shows 1510.00 (${standard})`);
  const rows = await bob.$$eval('#player-history tbody tr', (trs) => trs.map((r) => r.textContent));
  check(rows.length === 1, `bob's history has the match (${rows.length} rows)`);
  check(rows[0].includes('alice') && rows[0].includes('won 1–0') && rows[0].includes('1510.00 (+10.00)'),
    `the history row has the opponent, the score and the rating change (${rows[0]})`);
  const href = await bob.$eval('#player-history tbody a[href*=".mat"]', (a) => a.getAttribute('href'));
  const mat = await bob.evaluate(async (url) => {
    const r = await fetch(url);
    return { status: r.status, text: await r.text() };
  }, href);
  check(mat.status === 200 && mat.text.includes('bob') && mat.text.includes('alice'),
    `the .mat link (${href}) downloads the match`);
  await shot(bob, 'accounts-player.png');
  // Back walks the pages in the order they came: bob's page, the ratings, his table.
  await bob.click('#player .back');
  await bob.waitForSelector('#leaders:not([hidden])');
  await bob.click('#leaders .back');
  await bob.waitForSelector('#table:not([hidden])');
  check(await h.visible(bob, '#board'), 'back from the pages, bob is at his table again');

  // The lobby shows the new ratings next to the players' names.
  await carol.click('#to-lobby');
  await carol.waitForFunction(() => [...document.querySelectorAll('#tables tr[data-table="rated"] [data-name]')]
    .some((e) => e.dataset.name === 'bob' && e.querySelector('.rating')?.textContent === '1510.00'));
  check(await ratingShown(carol, '#tables tr[data-table="rated"]', 'alice') === '1490.00',
    'the lobby shows alice at 1490.00');
});
