// Browser end-to-end test: a whole game played from the keyboard (issue 27, item 8), in
// real headless Chromium.
//
//   node keyboard.test.mjs <path/to/gammond> <build-dir>
//
// alice and bob play a 1-point match without the mouse: the Roll button is reached with
// the focus and pressed with Enter; on the board (focused), the arrow keys move the
// cursor through the checkers that can move, Enter picks one, the arrows go through
// its destinations, Enter moves it, Backspace takes a step back, and Enter confirms the
// play. The board says what it is doing (aria-describedby, a live status line). The
// match is played to its end. Screenshots go to <build-dir>/e2e/keyboard/.

import { harness } from './harness.mjs';

const h = await harness('keyboard', { timeLimitMs: 220_000 });
const { log, check, login, shot, command, seqOf, stateOf } = h;


/** Presses the button of `cmd` in the controls from the keyboard: focus, then Enter. */
async function press(page, cmd) {
  const seq = await seqOf(page);
  await page.focus(`#controls button[data-cmd="${cmd}"]`);
  await page.keyboard.press('Enter');
  await h.waitSeqAfter(page, seq);
}

/** One whole play from the keyboard; with `checkUndo`, one step is taken back first. */
async function playByKeys(page, { checkUndo = false } = {}) {
  const seq = await seqOf(page);
  await page.focus('#board');
  for (let keys = 0; keys < 60; keys += 1) {
    const g = await page.evaluate(() => ({ pending: window.gammond.pendingPlay, selected: window.gammond.selected ?? null,
      cursor: window.gammond.cursor ?? null, steps: window.gammond.input?.steps.length ?? 0, sent: window.gammond.sentMove }));
    if (g.sent || (await seqOf(page)) > seq) return;
    if (g.pending !== null) {
      const said = await page.textContent('#board-status');
      check(said.startsWith(`play ${g.pending}`), `the board says the play waiting (${said})`);
      await page.keyboard.press('Enter'); // confirm
      await h.waitSeqAfter(page, seq);
      return;
    }
    if (checkUndo && g.steps === 1 && g.selected === null) {
      await page.keyboard.press('Backspace');
      const after = await page.evaluate(() => window.gammond.input?.steps.length);
      check(after === 0, 'Backspace takes the step back');
      checkUndo = false;
      continue;
    }
    if (g.cursor === null) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter'); // pick, or move to the destination under the cursor
  }
  h.fail('a play took more than 60 keys');
}

async function run() {
  const base = await h.startServer();
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob');
  await login(alice, base, 'alice');
  await alice.fill('#create-name', 'keys');
  await alice.press('#create-name', 'Enter');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await login(bob, base, 'bob');
  await bob.waitForSelector('#tables tr[data-table="keys"]');
  await bob.click('#tables tr[data-table="keys"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option match 1');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
  await press(alice, 'start');

  const pageOf = { alice, bob };
  let plays = 0;
  let undone = false;
  for (let actions = 0; actions < 400; actions += 1) {
    await alice.waitForFunction(() => ['opening', 'roll', 'move', 'match_over', 'game_over'].includes(window.gammond.states.get('keys')?.phase));
    const st = await stateOf(alice);
    if (st.phase === 'match_over') break;
    const who = st.phase === 'opening' ? (st.players.red === 'alice' ? 'alice' : 'bob') : st.players[st.turn];
    const page = pageOf[who];
    await page.waitForFunction((s) => Number(document.querySelector('#board').dataset.seq) >= s, st.seq);
    if (st.phase === 'opening') {
      // Each side rolls its die for the opening in turn; whoever may, rolls.
      const mayRoll = async (p) => p.locator('#controls button[data-cmd="roll"]').count();
      const roller = (await mayRoll(alice)) ? alice : bob;
      await press(roller, 'roll');
    } else if (st.phase === 'roll') {
      await press(page, 'roll');
    } else if (st.phase === 'move') {
      if (plays === 0) {
        await page.focus('#board');
        await page.keyboard.press('ArrowRight');
        const said = await page.getAttribute('#board', 'aria-label');
        check(/arrows choose a checker, Enter picks it/.test(said), `the focused board says how to play (${said})`);
        check((await page.locator('#board .cursor').count()) === 1, 'the cursor is drawn on one place');
        await shot(page, 'keyboard-cursor.png');
      }
      await playByKeys(page, { checkUndo: !undone });
      undone = true;
      plays += 1;
    }
  }
  const end = await stateOf(alice);
  check(end.phase === 'match_over', `the match was played to its end from the keyboard (${end.phase}, ${plays} plays)`);
  log(`a 1-point match played from the keyboard: ${plays} plays`);
}

await h.main(run);
