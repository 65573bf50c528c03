// Browser end-to-end test of "Play the computer" (issue 14), in real headless Chromium
// against the real gammond and the real GNU Backgammon.
//
//   node bots.test.mjs <path/to/gammond> <build-dir>
//
// alice logs in, chooses the level and a match to 3 in the lobby's "Play the
// computer" form and clicks the button: the page goes to the new table, where she
// sits opposite gnubg-expert (marked as the computer) and the match has started. She
// plays by clicking until the computer has answered with plays of its own, drawn on
// her board: with "Show plays" slow, each of its checkers glides through the points
// between (sampled at every frame), so do hers as she clicks them, the last play stays
// marked, and the sounds of rolls
// and her turn are asked for. Then the same in long backgammon (one game, no cube)
// against gammond's own nardy bot, with "Roll for me" on: she never clicks Roll; whose
// name opens its account's page (a computer player, unrated by a guest's game); a
// registered player's match against it is rated, and the ratings page marks it. The
// test never skips: gnubg missing ($GNUBG, else /usr/games/gnubg)
// fails it with a sentence. Screenshots go to <build-dir>/e2e/bots/.

import { existsSync } from 'node:fs';
import { harness } from './harness.mjs';

const h = await harness('bots', { timeLimitMs: 120_000 });
const { log, check, login, shot, readBoard, checkFifteen, seqOf, waitSeqAfter, command, playByClicking } = h;

const GNUBG = process.env.GNUBG || '/usr/games/gnubg';

/** The state of the table on screen, as the client keeps it. */
const stateOf = (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table));

await h.main(async () => {
  h.check(existsSync(GNUBG), `GNU Backgammon is needed at ${GNUBG}: scripts/setup installs it (apt-get install gnubg), or set GNUBG`);
  const base = await h.startServer(['--gnubg', GNUBG]);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  await login(alice, base, 'alice');
  // The settings panel: plays shown slowly, sounds on.
  await alice.click('#settings-button');
  await alice.selectOption('#setting-speed', 'slow');
  await alice.check('#setting-sound');
  await alice.click('#settings-button');
  check(await alice.evaluate(() => JSON.parse(localStorage.getItem('gammond.settings')).speed === 'slow'), 'the speed setting is kept');
  // Every frame, where each gliding checker is (the test's own sampler).
  await alice.evaluate(() => {
    window.glideSamples = [];
    const sample = () => {
      for (const c of document.querySelectorAll('#board circle.glide')) {
        window.glideSamples.push({ side: c.classList.contains('black') ? 'black' : 'red', x: c.getAttribute('cx'), y: c.getAttribute('cy') });
      }
      if (window.glideSamples.length < 5000) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });

  // The lobby's form: a level, the game, a match to 3.
  await alice.waitForSelector('#computer-form button[data-cmd="play-bot"]');
  await alice.selectOption('#computer-level', 'expert');
  await alice.selectOption('#computer-variant', 'standard');
  await alice.selectOption('#computer-match', '3');
  await shot(alice, 'lobby.png');
  await alice.click('#computer-form button[data-cmd="play-bot"]');

  // The page goes to the new table by itself; the match has started.
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  const table = await alice.textContent('#table-name');
  check(table.startsWith('vs-gnubg-'), `the client entered the new table (named "${table}")`);
  await alice.waitForFunction(() => (window.gammond.states.get(window.gammond.table)?.game_number ?? 0) >= 1);
  const first = await stateOf(alice);
  check(first.players.red === 'alice' && first.players.black === 'gnubg-expert',
    `alice sits opposite the computer (${JSON.stringify(first.players)})`);
  check(first.bots.black === 'expert' && first.bots.red === null, `state.bots marks the computer's seat (${JSON.stringify(first.bots)})`);
  check(first.match_length === 3, `the match is to 3 (${first.match_length})`);
  const strip = await alice.textContent('#strip-top');
  check(strip.includes('gnubg-expert') && strip.includes('computer'), `the computer's strip says so ("${strip}")`);

  // Play until the computer has made plays of its own: its moves arrive as events
  // and on the board, without anyone else at the table.
  const botPlays = () =>
    alice.evaluate(() => (window.gammond.logs.get(window.gammond.table) ?? [])
      .filter((l) => l.kind === 'event moved' && l.text.startsWith('gnubg-expert')).length);
  for (let turn = 0; turn < 40 && (await botPlays()) < 2; turn++) {
    // Wait for alice's decision (the computer acts by itself meanwhile).
    await alice.waitForFunction(() => {
      const st = window.gammond.states.get(window.gammond.table);
      return st && (st.phase === 'match_over' || (st.to_act === 'red' && ['roll', 'move', 'cube_offered'].includes(st.phase)));
    }, null, { timeout: 30_000 });
    const st = await stateOf(alice);
    if (st.phase === 'match_over') break;
    if (st.phase === 'roll') {
      await command(alice, '#controls button[data-cmd="roll"]');
    } else if (st.phase === 'move') {
      await playByClicking(alice, 'red', { seq: await seqOf(alice) });
    } else if (st.phase === 'cube_offered') {
      await command(alice, '#dialog button[data-cmd="take"]');
    }
  }
  const plays = await botPlays();
  check(plays >= 2, `the computer answered with plays of its own (${plays} seen)`);
  await alice.waitForFunction(() => !window.gammond.animator.busy, null, { timeout: 20_000 });
  // Once shown, the computer's last play stays marked on the board until the next roll.
  const after = await stateOf(alice);
  if (after.phase === 'roll' && after.to_act === 'red') {
    const marks = await alice.locator('#board .last-from, #board .last-to').count();
    check(marks >= 2, `the computer's last play is marked where it left and arrived (${marks} marks)`);
  } else {
    log(`(no mark check: the match is in phase ${after.phase})`);
  }
  // Its checkers glided: many positions, most of them between points.
  const glides = await alice.evaluate(() => window.glideSamples.filter((s) => s.side === 'black'));
  const places = new Set(glides.map((s) => `${s.x},${s.y}`));
  check(places.size >= 10, `the computer's checkers passed through intermediate positions (${places.size} seen)`);
  const own = new Set((await alice.evaluate(() => window.glideSamples.filter((s) => s.side === 'red'))).map((s) => `${s.x},${s.y}`));
  check(own.size >= 5, `alice's own checkers glided to the points she picked (${own.size} positions seen)`);
  const sounds = await alice.evaluate(() => window.gammond.sounds.played);
  check(sounds.includes('roll') && sounds.includes('turn'), `rolls and her turn sounded (${sounds.join(', ')})`);
  checkFifteen(await readBoard(alice), 'alice');
  const logText = await alice.textContent('#log');
  check(logText.includes('gnubg-expert (black) plays'), 'the log tells the computer\'s plays');
  check(!logText.includes('cannot answer'), 'the computer never failed to answer');
  await shot(alice, 'playing.png');
  log(`the computer made ${plays} plays`);

  // Long backgammon: back to the lobby, the same form; gammond's own nardy bot sits down
  // (no GNU Backgammon in it) and answers with plays of its own.
  await alice.click('#to-lobby');
  await alice.waitForSelector('#lobby:not([hidden]) #computer-form button[data-cmd="play-bot"]');
  await alice.selectOption('#computer-level', 'beginner');
  await alice.selectOption('#computer-variant', 'long');
  await alice.selectOption('#computer-match', 'off');
  await alice.click('#settings-button');
  await alice.selectOption('#setting-speed', 'fast');
  await alice.check('#setting-auto-roll');
  await alice.click('#settings-button');
  await alice.click('#computer-form button[data-cmd="play-bot"]');
  await alice.waitForFunction(() => (window.gammond.table ?? '').startsWith('vs-nardy-'));
  await alice.waitForFunction(() => (window.gammond.states.get(window.gammond.table)?.game_number ?? 0) >= 1);
  const long = await stateOf(alice);
  check(long.players.red === 'alice' && long.players.black === 'nardy-beginner',
    `alice sits opposite the long nardy bot (${JSON.stringify(long.players)})`);
  check(long.options.variant === 'long' && long.bots.black === 'beginner', `a long nardy match with the bot (${JSON.stringify(long.options)})`);
  const nardyPlays = () =>
    alice.evaluate(() => (window.gammond.logs.get(window.gammond.table) ?? [])
      .filter((l) => l.kind === 'event moved' && l.text.startsWith('nardy-beginner')).length);
  for (let turn = 0; turn < 40 && (await nardyPlays()) < 2; turn++) {
    await alice.waitForFunction(() => {
      const st = window.gammond.states.get(window.gammond.table);
      return st && (st.phase === 'match_over' || (st.to_act === 'red' && ['roll', 'move'].includes(st.phase)));
    }, null, { timeout: 30_000 });
    const st = await stateOf(alice);
    if (st.phase === 'match_over') break;
    if (st.phase === 'roll') {
      // "Roll for me": the page rolls by itself (no cube in this game).
      await alice.waitForFunction((seq) => (window.gammond.states.get(window.gammond.table)?.seq ?? 0) > seq, st.seq, { timeout: 15_000 });
    } else {
      await playByClicking(alice, 'red', { long: true, seq: await seqOf(alice) });
    }
  }
  const aliceRolls = await alice.evaluate(() => (window.gammond.logs.get(window.gammond.table) ?? [])
    .filter((l) => l.kind === 'event rolled' && l.text.startsWith('alice')).length);
  check(aliceRolls >= 1, `the page rolled for alice (${aliceRolls} rolls, no click)`);
  const longPlays = await nardyPlays();
  check(longPlays >= 2, `the long nardy bot answered with plays of its own (${longPlays} seen)`);
  checkFifteen(await readBoard(alice), 'alice');
  const longLog = await alice.textContent('#log');
  check(!longLog.includes('cannot answer'), 'the long nardy bot never failed to answer');
  await shot(alice, 'playing-long.png');
  log(`the long nardy bot made ${longPlays} plays`);

  // The bot has an account (issue 14): its name opens its page, which says it is a
  // computer player, with its ratings (a guest's match left them at 1500.00).
  await alice.click('button.player-link[data-name="nardy-beginner"]');
  await alice.waitForFunction(() => document.querySelector('#player')?.dataset.loaded === 'nardy-beginner');
  const botPage = await alice.$eval('#player', (p) => ({ bot: p.dataset.bot, status: document.querySelector('#player-status').textContent }));
  check(botPage.bot === 'true' && botPage.status.includes('a computer player'),
    `the bot's page says it is a computer player (${JSON.stringify(botPage)})`);
  const botLong = await alice.textContent('#player-ratings tr[data-variant="long"] .rating-value');
  check(botLong === '1500.00', `a guest's match left the bot's long rating at 1500.00 (${botLong})`);
  await shot(alice, 'bot-page.png');

  // dave has an account: his match against the long nardy bot is rated (he resigns a
  // single game of a 1-point match, which the bot accepts), and the ratings page lists
  // the bot first, marked as the computer.
  const dave = await h.newPage('dave');
  await dave.goto(base);
  await dave.fill('#login-name', 'dave');
  await dave.fill('#login-password', 'dave-secret-14');
  await dave.click('#register-button');
  await dave.waitForSelector('#lobby:not([hidden]) #computer-form button[data-cmd="play-bot"]');
  await dave.selectOption('#computer-level', 'expert');
  await dave.selectOption('#computer-variant', 'long');
  await dave.selectOption('#computer-match', '1');
  await dave.click('#computer-form button[data-cmd="play-bot"]');
  await dave.waitForFunction(() => (window.gammond.table ?? '').startsWith('vs-nardy-'));
  await dave.waitForFunction(() => {
    const st = window.gammond.states.get(window.gammond.table);
    return st && st.to_act === 'red' && ['roll', 'move'].includes(st.phase);
  }, null, { timeout: 30_000 });
  await dave.fill('#line', '/resign single');
  await dave.press('#line', 'Enter');
  await dave.waitForFunction(() => window.gammond.states.get(window.gammond.table)?.phase === 'match_over', null, { timeout: 30_000 });
  // (match_over comes after the ratings are written; the header shows the standard rating.)
  await dave.click('#to-leaders');
  await dave.click('#leaders button.variant[data-variant="long"]');
  await dave.waitForFunction(() => document.querySelector('#leaders')?.dataset.loaded === 'long');
  const leaders = await dave.$$eval('#leaders-table tbody tr', (rows) =>
    rows.map((r) => ({ bot: r.dataset.bot ?? null, cells: [...r.children].map((c) => c.textContent) })));
  log(`long ratings: ${JSON.stringify(leaders)}`);
  check(leaders.length === 2, `the long ratings list the bot and dave (${leaders.length})`);
  check(leaders[0]?.bot === 'true' && leaders[0].cells[1].startsWith('nardy-expert') &&
    leaders[0].cells[1].includes('computer') && leaders[0].cells[2] === '1510.00',
  'nardy-expert leads at 1510.00, marked as the computer');
  check(leaders[1]?.bot === null && leaders[1].cells[1] === 'dave' && leaders[1].cells[2] === '1490.00',
    'dave follows at 1490.00, a person');
  await shot(dave, 'bot-ratings.png');
});
