// Browser end-to-end test of a finished match's analysis page (issue 14), in real
// headless Chromium against gammond with the real GNU Backgammon (--analysis-level
// expert: 0-ply, a second or less).
//
//   node analysis.test.mjs <path/to/gammond> <build-dir>
//
// alice and bob play a 1-point match by clicking for a few plays, then alice resigns
// and bob accepts. From the match-over dialog alice opens "GNU Backgammon's analysis":
// the page shows, once gnubg is done, the summary of both players, the SVG chart with
// one mark per decision of the API's answer, and the errors; picking a decision draws
// the board before and after it, as the API has them. bob, still at the table, gets
// the analysis_ready event; carol opens the page's link (#analysis/<id>) without
// logging in. alice and bob are registered: carol then sees alice's PR (RULES.md S7) in
// her page's history row and over 30 days and all time, and the ratings list with the
// PR column sorted by PR. Screenshots go to <build-dir>/e2e/analysis/.

import { harness, sleep } from './harness.mjs';

const h = await harness('analysis', { timeLimitMs: 150_000 });
const { log, check, shot, visible, dialogKind, command, playByClicking } = h;
const GNUBG = process.env.GNUBG ?? '/usr/games/gnubg';
const PLAYS = 8;

/** The board drawn in `svg` (a selector): place -> checkers (+ red, − black). */
async function boardIn(page, selector) {
  return page.$eval(selector, (s) => {
    const count = (g, side) => {
      const label = g.querySelector(`text.count.${side}`);
      return label ? Number(label.textContent) : g.querySelectorAll(`circle.checker.${side}`).length;
    };
    const points = [];
    for (let b = 1; b <= 24; b++) {
      const g = s.querySelector(`.point[data-place="${b}"]`);
      points.push(count(g, 'red') - count(g, 'black'));
    }
    return points;
  });
}

async function run() {
  const base = await h.startServer(['--analysis-workers', '1', '--analysis-level', 'expert', '--gnubg', GNUBG,
    '--register-per-hour', '0']);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob');
  // Registered, so that the match is in their histories with its PR (S7).
  await h.register(alice, base, 'alice', 'alice-secret-1');
  await alice.fill('#create-name', 'an');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await h.register(bob, base, 'bob', 'bob-secret-22');
  await bob.fill('#create-name', 'an');
  await bob.click('#create-form button');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option match 1');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
  await command(alice, '#controls button[data-cmd="start"]');

  // A few plays by clicking, then alice resigns (on her roll) and bob accepts.
  const players = [{ name: 'alice', page: alice }, { name: 'bob', page: bob }];
  for (const p of players) p.side = await p.page.$eval('#strip-bottom', (s) => s.dataset.side);
  let plays = 0;
  let resigned = false;
  for (const until = Date.now() + 90_000; Date.now() < until && (await dialogKind(alice)) !== 'match-over';) {
    let acted = false;
    for (const { name, page, side } of players) {
      const phase = await page.$eval('#board', (b) => b.dataset.phase);
      if ((await dialogKind(page)) === 'resign') {
        await command(page, '#dialog button[data-cmd="accept"]');
        acted = true;
      } else if (phase === 'opening' && name === 'alice') {
        await command(page, '#controls button[data-cmd="roll"]');
        acted = true;
      } else if (await visible(page, '#controls button[data-cmd="roll"]')) {
        if (plays >= PLAYS && name === 'alice' && !resigned) {
          await h.resign(page);
          resigned = true;
          log(`alice resigns after ${plays} plays`);
        } else {
          await command(page, '#controls button[data-cmd="roll"]');
        }
        acted = true;
      } else if (phase === 'move' && (await page.locator('#board .source').count()) > 0) {
        await playByClicking(page, side);
        plays += 1;
        acted = true;
      }
    }
    if (!acted) await sleep(25);
  }
  check((await dialogKind(alice)) === 'match-over', `the match is over (after ${plays} plays)`);
  const id = await alice.evaluate(() => window.gammond.states.get('an').last_match_id);
  check(Number.isInteger(id) && id > 0, `the match has an id (${id})`);

  // The match-over dialog links to the analysis page.
  check(await visible(alice, '#dialog a[data-cmd="analysis"]'), 'the match-over dialog offers the analysis');
  await alice.click('#dialog a[data-cmd="analysis"]');
  await alice.waitForSelector('#analysis:not([hidden]) section.analysis');
  check(await alice.evaluate(() => location.pathname) === `/analysis/${id}`, 'the page has its own address');
  check(!(await visible(alice, '#chat')), 'the analysis page takes the whole width (no chat)');
  await alice.waitForSelector('#analysis section.analysis[data-status="done"]', { timeout: 60_000 });
  log('the analysis is done and drawn');

  // The page shows what the API says: the summary of both players, one mark per decision.
  const api = await alice.evaluate(async (m) => (await fetch(`/api/matches/${m}/analysis`)).json(), id);
  check(api.status === 'done', `the API says done (${api.status})`);
  const n = api.decisions.length;
  check(n >= PLAYS, `the analysis has a decision per play at least (${n} for ${plays} plays)`);
  const marks = await alice.locator('#analysis svg.analysis-chart circle.mark').count();
  check(marks === n, `the chart has one mark per decision (${marks} marks, ${n} decisions)`);
  const playMarks = await alice.locator('#analysis svg.analysis-chart circle.mark.play').count();
  check(playMarks === api.decisions.filter((d) => d.kind === 'move').length, 'the plays are marked as plays');
  check(await alice.locator('#analysis svg.analysis-chart polyline.chart-line').count() === 1, 'the chart draws the equity line');
  const summary = await alice.textContent('#analysis .analysis-summary');
  for (const name of ['alice', 'bob']) check(summary.includes(name), `the summary names ${name}`);
  for (const label of ['Performance rating (PR)', 'Error rate', 'Snowie error rate', 'Rating', 'Luck']) {
    check(summary.includes(label), `the summary has "${label}"`);
  }
  // S7: the PR first, with its band, as the API gives it.
  check(typeof api.players.red.pr === 'number' && typeof api.players.red.pr_band === 'string',
    `the API gives red's PR and band (${api.players.red.pr}, ${api.players.red.pr_band})`);
  const redPr = await alice.$eval('#analysis .analysis-summary tbody tr:nth-child(1) td[data-side="red"]', (td) => td.textContent);
  check(redPr === `${api.players.red.pr.toFixed(2)} (${api.players.red.pr_band})`, `red's PR is the API's (${redPr})`);
  const redRate = await alice.$eval('#analysis .analysis-summary tbody tr:nth-child(2) td[data-side="red"]', (td) => td.textContent);
  check(redRate === api.players.red.error_rate.toFixed(1), `red's error rate is the API's (${redRate})`);
  const errors = api.decisions.filter((d) => d.skill === 'bad' || d.skill === 'very bad');
  check(await alice.locator('#analysis .analysis-errors .error-item').count() === errors.length,
    `the list has the ${errors.length} errors and blunders`);

  // Picking a play (an error when there is one) draws its board before and after.
  const pick = errors[0] ?? api.decisions.find((d) => d.kind === 'move');
  if (errors.length) await alice.click(`#analysis .error-item[data-n="${pick.n}"]`);
  else await alice.$eval(`#analysis circle.mark[data-n="${pick.n}"]`, (c) => c.dispatchEvent(new MouseEvent('click')));
  await alice.waitForFunction(
    (k) => document.querySelector(`#analysis circle.mark[data-n="${k}"]`)?.classList.contains('selected'), pick.n);
  check(await alice.locator('#analysis-position .analysis-board svg').count() === 2, 'a play shows two boards');
  const before = await boardIn(alice, '#analysis-position .analysis-board:nth-of-type(1) svg');
  const after = await boardIn(alice, '#analysis-position .analysis-board:nth-of-type(2) svg');
  check(JSON.stringify(before) === JSON.stringify(pick.board_before.points), 'the board before is the API\'s');
  check(JSON.stringify(after) === JSON.stringify(pick.board_after.points), 'the board after is the API\'s');
  check(JSON.stringify(before) !== JSON.stringify(after), 'the play changed the board');
  const caption = await alice.textContent('#analysis-position');
  check(caption.includes(pick.position_id) && caption.includes(pick.match_id), 'the Position ID and Match ID are shown');
  await shot(alice, 'analysis.png');
  // Issue 27, item 8: axe-core finds nothing on the analysis page, minor findings included.
  check((await h.audit(alice, 'the analysis page')).length === 0, 'no minor accessibility finding either');

  // The replay beside the analysis: its chart's marks jump to their decision, whose
  // verdict shows beside the board (issue 27, item 5).
  await alice.click('#analysis a[data-cmd="replay"]');
  await alice.waitForFunction((m) => location.pathname === `/match/${m}`, id);
  await alice.waitForSelector('#replay .replay-chart svg.analysis-chart circle.mark');
  const pickN = pick.n;
  await alice.$eval(`#replay .replay-chart circle.mark[data-n="${pickN}"]`, (c) => c.dispatchEvent(new MouseEvent('click')));
  await alice.waitForSelector(`#replay-verdict .verdict[data-n="${pickN}"]`);
  const verdict = await alice.textContent(`#replay-verdict .verdict[data-n="${pickN}"]`);
  check(/GNU Backgammon: .*equity lost/.test(verdict), `the replay shows gnubg's verdict on the decision picked in its chart (${verdict})`);
  const at = await alice.$eval('section.replay', (s) => Number(s.dataset.at));
  check(at > 0, `the chart's mark moved the replay to its decision (step ${at})`);
  const matched = await alice.evaluate(() => window.gammond.replay.stepOf.size);
  check(matched === n, `every decision of the analysis has its step in the replay (${matched} of ${n})`);
  await shot(alice, 'replay-analysed.png');
  await alice.goBack();
  await alice.waitForSelector('#analysis section.analysis[data-status="done"]');

  // bob, still at the table, heard that the analysis was ready.
  await bob.waitForSelector('#log li.analysis_ready');
  check((await bob.textContent('#log li.analysis_ready')).includes(`match ${id}`), 'the event names the match');

  // The link works for anyone, logged in or not.
  const carol = await h.newPage('carol', h.phone);
  await carol.goto(`${base}/#analysis/${id}`);
  await carol.waitForSelector('#analysis section.analysis[data-status="done"]');
  check(await carol.locator('#analysis svg.analysis-chart circle.mark').count() === n, 'carol sees the same chart');
  await shot(carol, 'analysis-phone.png');

  // S7: alice's page shows her PR in the match's history row and over 30 days and all
  // time (one analysed match: the match's own PR), as the analysis gives it.
  const aliceSide = players[0].side;
  const alicePr = `${api.players[aliceSide].pr.toFixed(2)} (${api.players[aliceSide].pr_band})`;
  await carol.goto(`${base}/player/alice`);
  await carol.waitForFunction(() => document.querySelector('#player')?.dataset.loaded === 'alice');
  await carol.waitForSelector(`#player-history tr[data-match="${id}"]`);
  const rowPr = await carol.textContent(`#player-history tr[data-match="${id}"] td.pr`);
  check(rowPr === alicePr, `alice's history row shows her PR in the match (${rowPr}, the analysis: ${alicePr})`);
  for (const period of ['last_30_days', 'all_time']) {
    const shown = await carol.textContent(`#player-pr tr[data-period="${period}"] .pr-value`);
    check(shown === alicePr, `alice's page shows her PR ${period.replaceAll('_', ' ')} (${shown})`);
  }
  await shot(carol, 'player-pr-phone.png');
  // The ratings list has the PR column, and sorted by PR the better player comes first.
  await carol.goto(`${base}/ratings/standard`);
  await carol.waitForFunction(() => document.querySelector('#leaders')?.dataset.loaded === 'standard');
  await carol.click('#leaders button.sort[data-sort="pr"]');
  await carol.waitForFunction(() => document.querySelector('#leaders')?.dataset.loaded === 'standard' &&
    document.querySelector('#leaders')?.dataset.sort === 'pr');
  const byPr = await carol.$$eval('#leaders-table tbody tr', (rows) =>
    rows.map((r) => ({ name: r.dataset.name, pr: r.querySelector('.pr-value')?.textContent })));
  log(`ratings by PR: ${JSON.stringify(byPr)}`);
  const prs = ['red', 'black'].map((side) => ({ side, pr: api.players[side].pr }));
  const best = prs[0].pr <= prs[1].pr ? prs[0].side : prs[1].side;
  const bestName = players.find((p) => p.side === best).name;
  check(byPr.length === 2 && byPr[0].name === bestName, `sorted by PR, ${bestName} (the lower PR) comes first`);
  check(byPr.find((r) => r.name === 'alice')?.pr === alicePr, 'the ratings list shows alice\'s PR');
  check(await carol.getAttribute('#leaders button.sort[data-sort="pr"]', 'aria-pressed') === 'true', 'the PR order is shown pressed');
  await shot(carol, 'ratings-pr-phone.png');
  // (An unknown match is a 404, which Chromium logs as a console error: the server
  // tests check that answer.)
}

await h.main(run);
