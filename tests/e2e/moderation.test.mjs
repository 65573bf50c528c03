// Browser end-to-end test of moderation (issue 13) in the web client, in real headless
// Chromium.
//
//   node moderation.test.mjs <path/to/gammond> <build-dir>
//
// alice creates table "mod" (she owns it: the crown by her name and the owner's
// controls); bob and carol watch. carol ignores bob from the menu on his name: bob's
// next chat line reaches alice's page and not carol's (carol's own line after it does).
// alice kicks bob from the menu on his name: bob's page is back in the lobby with the
// sentence, and the table's spectators no longer list him. alice makes the table
// private with her control: carol's lobby no longer lists it, and dave, who tries to
// enter by its address, is refused in words. Screenshots go to
// <build-dir>/e2e/moderation/. Exits non-zero (never skips) when anything is wrong.

import { harness } from './harness.mjs';

const h = await harness('moderation', { timeLimitMs: 150_000 });
const { log, check, login, shot } = h;

/** The texts of the log lines on `page`. */
const logLines = (page) => page.$$eval('#log li', (lis) => lis.map((li) => li.textContent));

/** Types `line` into the chat/command field of `page` and sends it. */
async function say(page, line) {
  await page.fill('#line', line);
  await page.press('#line', 'Enter');
}

/** Opens the menu of `name` among the spectators of `page` and clicks `action`. */
async function menu(page, name, action) {
  await page.click(`#spectators [data-name="${name}"]`);
  await page.waitForSelector(`#name-menu[data-name="${name}"]`);
  await page.click(`#name-menu button[data-action="${action}"]`);
}

await h.main(async () => {
  const base = await h.startServer(['--table-chat-interval', '0']);
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  const bob = await h.newPage('bob');
  const carol = await h.newPage('carol', h.phone);

  await login(alice, base, 'alice');
  await alice.fill('#create-name', 'mod');
  await alice.click('#create-form button');
  await alice.waitForSelector('#table:not([hidden]) #board .point');
  await alice.waitForSelector('#owner-controls:not([hidden]) button[data-cmd="private"]');
  for (const [name, page] of [['bob', bob], ['carol', carol]]) {
    await login(page, base, name);
    await page.waitForSelector('#tables tr[data-table="mod"]');
    await page.click('#tables tr[data-table="mod"] button[data-cmd="enter"]');
    await page.waitForSelector('#table:not([hidden]) #board .point');
    check(await page.isHidden('#owner-controls'), `${name} (not the owner) has no owner's controls`);
  }
  await alice.waitForFunction(() => document.querySelectorAll('#spectators [data-name]').length === 3);
  check(await alice.isVisible('#spectators .owner-mark'), 'the owner is marked');

  // carol ignores bob from the menu on his name
  await menu(carol, 'bob', 'ignore');
  await carol.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('you ignore bob')));
  await say(bob, 'a line from bob');
  await alice.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent === 'bob: a line from bob'));
  await say(carol, 'a line from carol');
  await carol.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent === 'carol: a line from carol'));
  check(!(await logLines(carol)).some((t) => t.includes('a line from bob')), "bob's line is not shown to carol, who ignores him");
  await shot(carol, 'carol-ignores-bob.png');

  // alice kicks bob from the menu on his name
  await menu(alice, 'bob', 'kick');
  await bob.waitForSelector('#lobby:not([hidden])');
  check((await bob.textContent('#error')).includes('sends bob away'), `bob reads why he is in the lobby (${await bob.textContent('#error')})`);
  await alice.waitForFunction(() => !document.querySelector('#spectators [data-name="bob"]'));
  await shot(bob, 'bob-kicked.png');

  // alice makes the table private: it leaves carol's lobby list; dave cannot enter
  await alice.click('#owner-controls button[data-cmd="private"]');
  await alice.waitForFunction(() => document.querySelector('#owner-controls button[data-cmd="private"]')?.textContent === 'Make public');
  await shot(alice, 'alice-private.png');
  await carol.click('#to-lobby');
  await carol.waitForSelector('#lobby:not([hidden])');
  await carol.waitForFunction(() => !document.querySelector('#tables tr[data-table="mod"]'), null, { timeout: 15_000 });
  check(true, 'the private table is not listed in the lobby');
  const dave = await h.newPage('dave');
  await dave.goto(base);
  await login(dave, base, 'dave');
  await dave.goto(`${base}/table/mod`); // the table's address, as a shared link
  await dave.waitForFunction(() => (document.querySelector('#error')?.textContent ?? '').includes('private'), null, { timeout: 15_000 });
  check(true, 'dave is refused the private table in words');
  await shot(dave, 'dave-refused.png');
});
