// Browser end-to-end test of the table options as controls (issue 27, item 2), in real
// headless Chromium.
//
//   node options.test.mjs <path/to/gammond> <build-dir>
//
// alice makes a table with the lobby's "New table…": long backgammon, a match to 5, a
// clock of 3 minutes + 7 s, the tutor and privacy on; she sits down and every option
// reaches state.options. The table's "Table options…" dialog changes them all back
// (standard, basis, no clock, tutor and privacy off); Cancel sends nothing; a state
// that arrives while the dialog is open (bob comes in) keeps what she chose. The
// chat's /option commands still work. Screenshots go to <build-dir>/e2e/options/.

import { harness, sleep } from './harness.mjs';

const h = await harness('options', { timeLimitMs: 120_000 });
const { log, check, login, shot, seqOf } = h;

/** state.options of the table on screen. */
const optionsOf = (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table)?.options);

async function run() {
  const base = await h.startServer();
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob');
  await login(alice, base, 'alice');

  // New table…: a name and the options, then Create.
  await alice.click('#new-table-button');
  await alice.waitForSelector('#new-table[open]');
  await alice.fill('#new-table-name', 'opt');
  await alice.selectOption('#new-table select[name="variant"]', 'long');
  await alice.selectOption('#new-table select[name="match"]', '5');
  await alice.check('#new-table input[name="clock"]');
  await alice.fill('#new-table input[name="clock-minutes"]', '3');
  await alice.fill('#new-table input[name="clock-delay"]', '7');
  await alice.check('#new-table input[name="tutor"]');
  await alice.check('#new-table input[name="private"]');
  await shot(alice, 'options-new-table.png');
  await h.audit(alice, 'the New table dialog');
  await alice.click('#new-table-create');
  await alice.waitForFunction(() => {
    const o = window.gammond.states.get('opt')?.options;
    return o?.private === true && o?.tutor === true && o?.clock?.minutes === 3;
  });
  let o = await optionsOf(alice);
  const st = await alice.evaluate(() => window.gammond.states.get('opt'));
  check(st.players.red === 'alice' || st.players.black === 'alice', 'the new table seats its maker');
  check(st.owner === 'alice', 'and she owns it');
  check(o.variant === 'long' && o.match === 5 && o.clock.minutes === 3 && o.clock.delay === 7
    && o.tutor === true && o.private === true, `every option chosen reached state.options (${JSON.stringify(o)})`);

  // Table options…: Cancel sends nothing.
  let seq = await seqOf(alice);
  await alice.click('#controls button[data-cmd="options"]');
  await alice.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'options');
  await alice.selectOption('#dialog select[name="match"]', '9');
  await alice.click('#dialog button[data-cmd="options-cancel"]');
  await sleep(300);
  check((await seqOf(alice)) === seq, 'Cancel sent nothing');
  check((await optionsOf(alice)).match === 5, 'and the match is still to 5');

  // The dialog is filled with the table's options; a state arriving meanwhile keeps
  // what was chosen (alice invites bob, who comes in: new states).
  await alice.click('#controls button[data-cmd="options"]');
  await alice.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'options');
  check((await alice.inputValue('#dialog select[name="match"]')) === '5', 'the dialog shows the match to 5');
  check(await alice.isChecked('#dialog input[name="private"]'), 'and the privacy on');
  await alice.selectOption('#dialog select[name="variant"]', 'standard');
  await alice.selectOption('#dialog select[name="match"]', 'basis');
  await alice.uncheck('#dialog input[name="clock"]');
  await alice.uncheck('#dialog input[name="tutor"]');
  await alice.uncheck('#dialog input[name="private"]');
  await alice.fill('#line', '/invite bob');
  await alice.press('#line', 'Enter');
  await login(bob, base, 'bob');
  seq = await seqOf(alice);
  await bob.evaluate(() => { location.hash = '#opt'; });
  await bob.reload();
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await h.waitSeqAfter(alice, seq); // bob came in: a new state on alice's page
  check((await alice.inputValue('#dialog select[name="match"]')) === 'basis', 'a new state keeps the choices');
  await shot(alice, 'options-dialog.png');
  await h.audit(alice, 'the options dialog');
  await alice.click('#dialog button[data-cmd="options-apply"]');
  await alice.waitForFunction(() => {
    const x = window.gammond.states.get('opt')?.options;
    return x?.private === false && x?.tutor === false && x?.clock === null && x?.match === 'basis' && x?.variant === 'standard';
  });
  o = await optionsOf(alice);
  check(o.variant === 'standard' && o.match === 'basis' && o.clock === null && !o.tutor && !o.private,
    `every change reached state.options (${JSON.stringify(o)})`);
  check((await h.dialogKind(alice)) === '', 'Apply closes the dialog');

  // The chat's commands still work beside the controls.
  await alice.fill('#line', '/option match 3');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => window.gammond.states.get('opt')?.options?.match === 3);
  log('the options set through the dialogs and the chat all reached the table');
}

await h.main(run);
