// Browser end-to-end test: nothing is lost by accident at the table (issue 27, items
// 4, 7 and 9), in real headless Chromium.
//
//   node safety.test.mjs <path/to/gammond> <build-dir>
//
// alice and bob (a phone) sit at a 1-point match. A complete play waits for Confirm:
// nothing is sent before it, Undo takes the last step back, Confirm sends it. With the
// setting "Confirm each play" off (bob), the last step sends the play at once. The
// tab's title says "your turn". Resign… opens a dialog with single / gammon /
// backgammon and what each costs at this score (here: the match); Cancel sends
// nothing, Resign sends the kind picked, and bob answers it. The end-of-match box
// closes (the final position shows, with "Play again" and "Match result" below) and
// reopens; Start and Play again never show together. A pass's banner goes with the
// next roll and never covers the cube; a chat line refused for speed stays in the
// box; the web app manifest and its icons are served. Screenshots go to
// <build-dir>/e2e/safety/.

import { harness, sleep } from './harness.mjs';

const h = await harness('safety', { timeLimitMs: 150_000 });
const { log, check, login, shot, command, seqOf, stateOf, dialogKind } = h;


/** Rolls (the opening or a turn) from `page` and waits for its state. */
async function roll(page) {
  await command(page, '#controls button[data-cmd="roll"]');
}

async function run() {
  const base = await h.startServer(['--table-chat-interval', '3']);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice', { viewport: { width: 1366, height: 800 } });
  const bob = await h.newPage('bob', h.phone);

  // The web app manifest: linked from the page, served with its icons.
  await login(alice, base, 'alice');
  const manifest = await alice.evaluate(async () => {
    const link = document.querySelector('link[rel="manifest"]');
    const r = await fetch(link.href);
    const m = await r.json();
    const icons = [];
    for (const icon of m.icons) {
      const got = await fetch(new URL(icon.src, r.url));
      icons.push({ sizes: icon.sizes, status: got.status, type: got.headers.get('content-type'), bytes: (await got.arrayBuffer()).byteLength });
    }
    return { type: r.headers.get('content-type'), name: m.name, display: m.display, start: m.start_url, icons };
  });
  check(manifest.type.startsWith('application/manifest+json'), `the manifest's type (${manifest.type})`);
  check(manifest.display === 'standalone' && manifest.start === './', 'the manifest opens the lobby as an app');
  for (const size of ['192x192', '512x512']) {
    const icon = manifest.icons.find((i) => i.sizes === size);
    check(icon && icon.status === 200 && icon.type === 'image/png' && icon.bytes > 1000, `the ${size} icon is served as a PNG (${JSON.stringify(icon)})`);
  }

  await alice.fill('#create-name', 'safe');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await command(alice, '#controls button[data-cmd="join"]');
  await login(bob, base, 'bob');
  await bob.waitForSelector('#tables tr[data-table="safe"]');
  await bob.click('#tables tr[data-table="safe"] button[data-cmd="enter"]');
  await bob.waitForSelector('#table:not([hidden]) #board .point');
  await command(bob, '#controls button[data-cmd="join"]');
  await alice.fill('#line', '/option match 1');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
  // Waiting to start: Start, and no Play again anywhere.
  check(await h.visible(alice, '#controls button[data-cmd="start"]'), 'Start shows before the match');
  await command(alice, '#controls button[data-cmd="start"]');

  // A chat line refused for speed stays in the box, with the sentence saying the wait.
  await alice.fill('#line', 'good luck');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => [...document.querySelectorAll('#log li.chat')].some((li) => li.textContent.includes('good luck')));
  await alice.fill('#line', 'have fun');
  await alice.press('#line', 'Enter');
  await alice.waitForFunction(() => document.querySelector('#line').value === 'have fun', null, { timeout: 5000 });
  const said = await alice.textContent('#error');
  check(/every 3 s|wait/.test(said), `the refusal says to wait (${said})`);
  await alice.fill('#line', '');

  // The opening roll; whoever won it moves first.
  await roll(alice);
  let st = await stateOf(alice);
  if (st.phase === 'opening') {
    await roll(bob);
    st = await stateOf(alice);
  }
  await alice.waitForFunction(() => window.gammond.states.get('safe')?.phase === 'move');
  st = await stateOf(alice);
  const mover = st.players[st.turn] === 'alice' ? alice : bob;
  const moverName = mover === alice ? 'alice' : 'bob';
  const waiter = mover === alice ? bob : alice;
  log(`${moverName} plays the opening ${st.dice.join('-')}`);
  check((await mover.title()).startsWith('● your turn'), `the mover's title says it is their turn (${await mover.title()})`);
  check(!(await waiter.title()).includes('your turn'), `the other's title does not (${await waiter.title()})`);

  // Confirm: a complete play is not sent before Confirm; Undo takes back its last step.
  const seq = await seqOf(mover);
  const steps = await h.stepUntilComplete(mover);
  const pending = await mover.evaluate(() => window.gammond.pendingPlay);
  check(typeof pending === 'string' && pending.length > 0, `a complete play waits for Confirm (${pending})`);
  await sleep(400);
  check((await seqOf(mover)) === seq && (await seqOf(waiter)) === seq, 'nothing was sent before Confirm');
  check(await h.visible(mover, '#controls button[data-cmd="confirm"]'), 'Confirm shows');
  // Every control is on screen without scrolling: the desktop's (1366 × 800, with the
  // owner's panel) and the phone's (390 × 844).
  for (const [who, page] of [['alice', alice], ['bob', bob]]) {
    const below = await page.evaluate(() => [...document.querySelectorAll('#controls button, #owner-controls button, #owner-controls input')]
      .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().bottom > window.innerHeight)
      .map((e) => `${e.textContent || e.placeholder} at ${Math.round(e.getBoundingClientRect().bottom)} of ${window.innerHeight}`));
    check(below.length === 0, `${who}: every control is above the fold (${below.join('; ')})`);
  }
  await shot(mover, 'safety-confirm.png');
  await mover.click('#controls button[data-cmd="undo"]');
  const after = await mover.evaluate(() => ({ pending: window.gammond.pendingPlay, steps: window.gammond.input?.steps.length }));
  check(after.pending === null && after.steps === steps - 1, `Undo takes the last step back (${JSON.stringify(after)})`);
  check(!(await h.visible(mover, '#controls button[data-cmd="confirm"]')), 'Confirm goes with Undo');
  await h.stepUntilComplete(mover);
  check(await h.confirmPending(mover), 'the play waits for Confirm again');
  await h.waitSeqAfter(waiter, seq);
  await h.waitSeqAfter(mover, seq);
  log(`${moverName} confirmed the play`);

  // Issue 27, item 3: the other page lists the play and marks it on the board, with the
  // mover's dice, until the next roll.
  const seen = await waiter.evaluate(() => ({
    last: window.gammond.lastPlay,
    line: [...document.querySelectorAll('#moves li.move-line')].at(-1)?.textContent,
    to: [...document.querySelectorAll('#board .point.last-to')].map((e) => e.dataset.place),
    from: [...document.querySelectorAll('#board .point.last-from')].map((e) => e.dataset.place),
    rings: document.querySelectorAll('#board .last-mark').length,
    dice: [...document.querySelectorAll('#board .dice.played .die')].map((d) => Number(d.dataset.value)),
  }));
  check(seen.last?.play === pending, `the page keeps the last play (${JSON.stringify(seen.last)})`);
  check(seen.line === `${moverName}: ${st.dice.join('')}: ${pending}`, `the move list shows it (${seen.line})`);
  check(seen.to.length > 0 && seen.from.length > 0 && seen.rings >= 2, `its points are marked (${JSON.stringify(seen)})`);
  check(seen.dice.join() === st.dice.join(), `the mover's dice stay on the board (${seen.dice})`);

  // The setting off (through the header's panel, kept in this browser): bob's next
  // play goes on its last step.
  await bob.click('#settings-button');
  await bob.uncheck('#setting-confirm-play');
  await bob.click('#settings-button');
  check(await bob.evaluate(() => JSON.parse(localStorage.getItem('gammond.settings')).confirmPlay === false),
    'the setting is kept in the browser');
  // "Notify me": with the tab in the background, bob's turn is a browser notification,
  // once a turn (the page's Notification is recorded here; the background is simulated).
  // Switched on during one of alice's turns, so that bob's next turn is the first seen.
  const notifyOn = async () => {
    await bob.evaluate(() => {
      window.notes = [];
      window.Notification = class {
        static permission = 'granted';
        static requestPermission() { return Promise.resolve('granted'); }
        constructor(title, options) { window.notes.push({ title, body: options?.body }); }
      };
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    });
    await bob.click('#settings-button');
    await bob.check('#setting-notify');
    await bob.click('#settings-button');
  };
  let notifying = false;

  // The turn passes to the other player: roll and play until bob has played once
  // without Confirm, notified.
  let bobPlayed = false;
  for (let turns = 0; turns < 8 && !bobPlayed; turns += 1) {
    await alice.waitForFunction(() => ['roll', 'move'].includes(window.gammond.states.get('safe')?.phase));
    st = await stateOf(alice);
    const page = st.players[st.turn] === 'alice' ? alice : bob;
    if (page === alice && !notifying) {
      await notifyOn();
      notifying = true;
    }
    if (st.phase === 'roll') {
      const rolled = await seqOf(page);
      await roll(page);
      await h.waitSeqAfter(alice, rolled);
      await h.waitSeqAfter(bob, rolled);
    }
    st = await stateOf(page);
    if (st.phase !== 'move') continue; // no legal move: the turn passed
    const before = await seqOf(page);
    await h.stepUntilComplete(page);
    if (page === bob && notifying) {
      const notes = await bob.evaluate(() => window.notes);
      check(notes.length === 1 && notes[0].title === 'gammond: your turn' && notes[0].body === 'at table safe',
        `bob's turn in a background tab was notified once (${JSON.stringify(notes)})`);
      await bob.evaluate(() => Object.defineProperty(document, 'hidden', { configurable: true, get: () => false }));
      // Nothing waits for Confirm, and the play arrives (Confirm is never clicked here).
      check(await bob.evaluate(() => window.gammond.pendingPlay === null), 'with the setting off, no play waits for Confirm');
      bobPlayed = true;
    } else if (page === alice) {
      await h.confirmPending(alice);
    }
    await h.waitSeqAfter(alice, before);
    await h.waitSeqAfter(bob, before);
  }
  check(bobPlayed, 'bob played without Confirm');

  // The pass banner: shown as a pass shows it, it sits clear of the cube and goes
  // with the next roll.
  await alice.waitForFunction(() => window.gammond.states.get('safe')?.phase === 'roll');
  st = await stateOf(alice);
  const roller = st.players[st.turn] === 'alice' ? alice : bob;
  const watcher = roller === alice ? bob : alice;
  await watcher.evaluate(() => {
    const g = window.gammond;
    g.lastPass = { table: 'safe', text: 'no legal move: pass (a passed event as the page keeps it)', until: Date.now() + 60_000 };
    g.redraw();
  });
  await watcher.waitForFunction(() => !document.querySelector('#banner').hidden);
  const boxes = await watcher.evaluate(() => {
    const b = document.querySelector('#banner').getBoundingClientRect();
    const c = document.querySelector('#cube')?.getBoundingClientRect();
    return { b: [b.left, b.top, b.right, b.bottom], c: c ? [c.left, c.top, c.right, c.bottom] : null };
  });
  check(boxes.c !== null, 'the cube is on the board');
  const overlap = boxes.b[0] < boxes.c[2] && boxes.c[0] < boxes.b[2] && boxes.b[1] < boxes.c[3] && boxes.c[1] < boxes.b[3];
  check(!overlap, `the pass banner does not cover the cube (${JSON.stringify(boxes)})`);
  await roll(roller);
  await watcher.waitForFunction(() => document.querySelector('#banner').hidden || document.querySelector('#banner').dataset.kind !== 'pass');
  log('the pass banner went with the next roll');
  check((await watcher.locator('#board .last-mark').count()) === 0, 'the last play\'s marks go with the next roll');

  // Resign: a dialog first; Cancel sends nothing.
  const resigner = roller;
  const resignerName = resigner === alice ? 'alice' : 'bob';
  const answerer = watcher;
  const before = await seqOf(resigner);
  await resigner.click('#controls button[data-cmd="resign"]');
  check((await dialogKind(resigner)) === 'resign-choice', 'Resign… opens the dialog');
  const choices = await resigner.$$eval('#dialog .resign-choice', (els) => els.map((e) => ({
    kind: e.querySelector('input').value, points: Number(e.querySelector('.cost').dataset.points), text: e.textContent })));
  check(choices.map((c) => c.kind).join(',') === 'single,gammon,backgammon', `single, gammon and backgammon are offered (${choices.map((c) => c.kind)})`);
  check(choices.map((c) => c.points).join(',') === '1,2,3', `each costs 1, 2, 3 points at cube 1 (${choices.map((c) => c.points)})`);
  check(choices.every((c) => c.text.includes('you lose the match')), 'in a 1-point match each loses the match');
  await shot(resigner, 'safety-resign.png');
  await resigner.click('#dialog button[data-cmd="resign-cancel"]');
  check((await dialogKind(resigner)) === '', 'Cancel closes the dialog');
  await sleep(300);
  check((await seqOf(resigner)) === before, 'Cancel sent nothing');
  await h.resign(resigner, 'gammon');
  await answerer.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'resign');
  const offer = await stateOf(answerer);
  check(offer.resign?.kind === 'gammon', `the gammon picked is what was offered (${JSON.stringify(offer.resign)})`);
  await command(answerer, '#dialog button[data-cmd="accept"]');
  log(`${resignerName} resigned a gammon through the dialog, accepted`);

  // The end-of-match box: Play again in it and nowhere else; it closes and reopens.
  for (const [name, page] of [['alice', alice], ['bob', bob]]) {
    await page.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'match-over');
    await page.waitForSelector('#dialog button[data-cmd="start"]', { timeout: 3000 }).catch(() => null);
    const start = await page.$$eval('button[data-cmd="start"]', (els) => els.filter((e) => e.offsetParent !== null).map((e) => e.closest('#dialog') ? 'dialog' : 'controls'));
    const st2 = await stateOf(page);
    check(start.join() === 'dialog', `${name}: Play again shows once, in the box (${start}; ${JSON.stringify({ phase: st2.phase, players: st2.players, me: await page.evaluate(() => window.gammond.me) })})`);
  }
  await alice.click('#dialog button[data-cmd="close-box"]');
  check((await dialogKind(alice)) === '', 'the box closes: the final position shows');
  check(await h.visible(alice, '#controls button[data-cmd="start"]'), 'Play again moves below the board');
  check(await h.visible(alice, '#controls button[data-cmd="reopen-box"]'), 'Match result reopens it');
  await shot(alice, 'safety-final-position.png');
  await alice.click('#controls button[data-cmd="reopen-box"]');
  check((await dialogKind(alice)) === 'match-over', 'the box is back');
  check(!(await h.visible(alice, '#controls button[data-cmd="start"]')), 'and Play again is only in it again');
}

await h.main(run);
