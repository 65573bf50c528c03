// Browser end-to-end test of a tournament (RULES.md S6), in real headless Chromium
// against the real gammond.
//
//   node tournament.test.mjs <path/to/gammond> <build-dir>
//
// boss (an administrator, made on the host) creates a 2-player knockout of 1-point
// matches that starts in a few seconds, typing /tournament create in the chat line.
// alice and bob (guests) find it under "tournaments" in the header, open its page (its
// rules in words) and click Register; the page lists them and offers Withdraw. At the
// start both are paired: each page says so and goes to the table by itself. After the
// opening roll the side on turn resigns and the other accepts: the match and the
// tournament are over, and the tournament's page shows the final results, the winner
// ranked 1, with no axe-core finding. Screenshots go to <build-dir>/e2e/tournament/.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { harness } from './harness.mjs';

const h = await harness('tournament', { timeLimitMs: 150_000 });
const { log, check, login, shot } = h;

/** Types `text` in the chat line of `page` and sends it (to the table on screen, or the lobby). */
async function typeLine(page, text) {
  await page.fill('#line', text);
  await page.press('#line', 'Enter');
}

/** Opens the tournaments' list from the header, then the page of tournament `name`. */
async function openTournament(page, name) {
  await page.click('#to-tournaments');
  await page.waitForSelector(`#tournaments:not([hidden]) tr[data-name="${name}"]`);
  await page.click(`#tournaments tr[data-name="${name}"] a[data-cmd="tournament"]`);
  await page.waitForFunction((n) => document.querySelector('#tournament')?.dataset.loaded === n, name);
}

await h.main(async () => {
  const made = spawnSync(process.argv[2], ['admin', 'create', 'boss', '--db', path.join(h.tmp, 'e2e.db')],
    { input: 'boss-secret-1\n', encoding: 'utf8' });
  check(made.status === 0, `gammond admin create boss made the account (exit ${made.status}: ${made.stderr})`);
  const base = await h.startServer(['--admins', 'boss', '--grace-period', '30']);
  log(`gammond at ${base}`);

  // boss creates the tournament from the lobby's chat line.
  const boss = await h.newPage('boss');
  await boss.goto(base);
  await boss.fill('#login-name', 'boss');
  await boss.fill('#login-password', 'boss-secret-1');
  await boss.click('#login-form button[type="submit"]');
  await boss.waitForSelector('#lobby:not([hidden])');
  await typeLine(boss, '/tournament create cup knockout match 1 start +15');
  await boss.waitForFunction(() => (window.gammond.logs.get('') ?? []).some((l) => /tournament cup is created/.test(l.text)));
  log('boss created the knockout "cup"');

  // alice and bob find it and register on its page.
  const players = [];
  for (const name of ['alice', 'bob']) {
    const page = await h.newPage(name);
    await login(page, base, name);
    await openTournament(page, 'cup');
    const rules = await page.textContent('#tournament-rules');
    check(/knockout/i.test(rules) && rules.includes('1 point'), `${name}: the page says the rules in words ("${rules}")`);
    check((await page.getAttribute('#tournament', 'data-status')) === 'registering', `${name}: cup is open for registration`);
    await page.click('#tournament-registration button[data-cmd="register"]');
    await page.waitForFunction((n) => document.querySelector(`#tournament-players li[data-name="${n}"]`), name);
    await page.waitForSelector('#tournament-registration button[data-cmd="withdraw"]');
    check((await page.textContent('#tournament-answer')).includes('you are registered for cup'),
      `${name}: the answer is under the button`);
    players.push(page);
  }
  const [alice, bob] = players;
  // alice's page follows the news: bob is listed without a reload.
  await alice.waitForSelector('#tournament-players li[data-name="bob"]');
  log('alice and bob registered; each page lists both');
  // A reload keeps the page (its address is the tournament's) and its Withdraw button.
  await alice.reload();
  await alice.waitForFunction(() => document.querySelector('#tournament')?.dataset.loaded === 'cup');
  await alice.waitForSelector('#tournament-registration button[data-cmd="withdraw"]');
  check(new URL(alice.url()).pathname === '/tournament/cup', `the address is the tournament's (${alice.url()})`);
  await shot(alice, 'registered.png');
  await h.audit(alice, 'the tournament page, registering');

  // The start pairs them: both pages say so and go to the table by themselves.
  for (const page of players) {
    await page.waitForSelector('#table:not([hidden]) #board .point', { timeout: 30_000 });
    await page.waitForFunction(() => {
      const st = window.gammond.states.get(window.gammond.table);
      return st && st.players?.red && st.players?.black;
    });
  }
  const table = await alice.textContent('#table-name');
  check(table === (await bob.textContent('#table-name')), `both pages went to the same table (${table})`);
  check((await alice.textContent('#notice')).includes('tournament cup'), 'the notice says the tournament paired alice');
  const st = await h.stateOf(alice);
  check([st.players.red, st.players.black].sort().join() === 'alice,bob', `alice and bob are seated (${JSON.stringify(st.players)})`);
  check(st.options.match === 1, `the match is to 1 point (${st.options.match})`);
  log(`paired at ${table}`);

  // The opening roll, then the side on turn resigns and the other accepts.
  await alice.waitForFunction(() => {
    const s = window.gammond.states.get(window.gammond.table);
    return s?.present?.red && s?.present?.black && ['opening', 'roll', 'move'].includes(s.phase);
  });
  let now = await h.stateOf(alice);
  if (now.phase === 'opening') {
    await typeLine(alice, '/roll');
    await alice.waitForFunction(() => ['roll', 'move'].includes(window.gammond.states.get(window.gammond.table)?.phase));
    now = await h.stateOf(alice);
  }
  const onTurn = now.players[now.turn];
  const mover = onTurn === 'alice' ? alice : bob;
  const other = onTurn === 'alice' ? bob : alice;
  const winner = onTurn === 'alice' ? 'bob' : 'alice';
  await typeLine(mover, '/resign');
  await other.waitForFunction(() => window.gammond.states.get(window.gammond.table)?.phase === 'resign_offered');
  await typeLine(other, '/accept');
  await other.waitForFunction(() => window.gammond.states.get(window.gammond.table)?.phase === 'match_over');
  log(`${onTurn} resigned, ${winner} won the match`);

  // The tournament is over: its page shows the final results, the winner ranked 1.
  await openTournament(other, 'cup');
  await other.waitForFunction(() => document.querySelector('#tournament')?.dataset.status === 'finished');
  const first = await other.getAttribute('#tournament-standings tbody tr[data-rank="1"]', 'data-name');
  check(first === winner, `the standings rank ${winner} first (${first})`);
  check((await other.textContent('#tournament-winner')).includes(`${winner} wins the tournament`), 'the page names the winner');
  check((await other.textContent('#tournament-standings-title')) === 'Final results', 'the standings are the final results');
  const result = await other.textContent('#tournament-bracket .bracket-match');
  check(result.includes(`${winner} won`), `the bracket shows the final's result ("${result}")`);
  check((await other.textContent('#tournament-status')) === 'finished', 'the status says finished');
  await shot(other, 'finished.png');
  await h.audit(other, 'the tournament page, finished');

  // The list has it under "Ended".
  await other.click('#tournament .back');
  await other.waitForSelector('#tournaments:not([hidden]) #tournaments-ended tr[data-name="cup"]');
  await h.audit(other, 'the tournaments list');
});
