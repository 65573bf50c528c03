// Browser end-to-end test of "Play the computer" (issue 14), in real headless Chromium
// against the real gammond and the real GNU Backgammon.
//
//   node bots.test.mjs <path/to/gammond> <build-dir>
//
// alice logs in, chooses the level and a match to 3 in the lobby's "Play the
// computer" form and clicks the button: the page goes to the new table, where she
// sits opposite gnubg-expert (marked as the computer) and the match has started. She
// plays by clicking until the computer has answered with plays of its own, drawn on
// her board. The test never skips: gnubg missing ($GNUBG, else /usr/games/gnubg)
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
  checkFifteen(await readBoard(alice), 'alice');
  const logText = await alice.textContent('#log');
  check(logText.includes('gnubg-expert (black) plays'), 'the log tells the computer\'s plays');
  check(!logText.includes('cannot answer'), 'the computer never failed to answer');
  await shot(alice, 'playing.png');
  log(`the computer made ${plays} plays`);
});
