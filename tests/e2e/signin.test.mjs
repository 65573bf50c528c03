// Browser end-to-end test of signing in (issue 27, item 1), in real headless Chromium.
//
//   node signin.test.mjs <path/to/gammond> <build-dir>
//
// alice creates her account with "Stay signed in" (checked by default): a reload and a
// new tab (a browser restart: new sessionStorage, same localStorage) find her signed
// in, without her password. "sign out" ends the remembered sign-in on the server: a
// reload shows the login form, and the old credential logs in nobody. A new name with
// a password is answered "No account named …: create it?" with the password kept in
// its box, and one click creates it; a wrong password keeps the password too.
// Screenshots go to <build-dir>/e2e/signin/.

import { harness } from './harness.mjs';

const h = await harness('signin', { timeLimitMs: 120_000 });
const { log, check, shot } = h;

/** Fills the login form and presses Enter (`register`: the Create button instead). */
async function signIn(page, name, password, { register = false } = {}) {
  await page.fill('#login-name', name);
  await page.fill('#login-password', password);
  if (register) await page.click('#register-button');
  else await page.press('#login-password', 'Enter');
}

/** The page's signed-in name and whether it is an account ('' when signed out). */
const who = (page) => page.evaluate(() => (window.gammond.me
  ? `${window.gammond.me}:${document.querySelector('#who').dataset.registered}` : ''));

async function run() {
  const base = await h.startServer();
  log(`gammond at ${base}`);
  const alice = await h.newPage('alice');
  await alice.goto(base);
  check(await alice.isChecked('#login-remember'), '"Stay signed in" is checked by default');

  // Registered with "Stay signed in": the credential is kept, the password is not.
  await signIn(alice, 'alice', 'correct horse', { register: true });
  await alice.waitForSelector('#lobby:not([hidden])');
  check((await who(alice)) === 'alice:yes', 'alice is signed in to her account');
  const kept = await alice.evaluate(() => JSON.parse(localStorage.getItem('gammond.session')));
  check(kept?.name === 'alice' && /^[0-9a-f]{64}$/.test(kept?.credential ?? ''), 'the sign-in is kept in the browser');
  const stored = await alice.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
  check(!stored.includes('correct horse'), 'the password is stored nowhere');
  check(await h.visible(alice, '#signout'), 'a sign-out control shows');

  // A reload keeps her signed in.
  await alice.reload();
  await alice.waitForSelector('#lobby:not([hidden])');
  check((await who(alice)) === 'alice:yes', 'a reload keeps alice signed in');

  // A new tab without this tab's storage (as after a browser restart) too: its hello
  // carries the credential, not a resume token.
  const context = alice.context();
  const restarted = await context.newPage();
  h.pages.restarted = restarted;
  await restarted.goto(base);
  await restarted.waitForSelector('#lobby:not([hidden])');
  check((await who(restarted)) === 'alice:yes', 'a new tab (a restarted browser) is signed in');
  await shot(restarted, 'signin-restarted.png');
  await restarted.close();
  delete h.pages.restarted;

  // Sign out: the server ends the sign-in, the login form comes back, and so after a reload.
  await alice.waitForSelector('#lobby:not([hidden])');
  await alice.click('#signout');
  await alice.waitForSelector('#login:not([hidden])');
  check((await alice.evaluate(() => localStorage.getItem('gammond.session'))) === null, 'signing out forgets the credential');
  await alice.reload();
  await alice.waitForSelector('#login:not([hidden])');
  check((await who(alice)) === '', 'after signing out a reload shows the login form');
  const revoked = await alice.evaluate(async ([url, credential]) => {
    const ws = new WebSocket(url);
    return new Promise((resolve) => {
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', name: 'alice', session: credential }));
      ws.onmessage = (e) => { resolve(JSON.parse(e.data)); ws.close(); };
      ws.onerror = () => resolve(null);
    });
  }, [`${base.replace('http', 'ws').replace(/\/$/, '')}/ws`, kept.credential]);
  check(revoked?.code === 'bad_session', `the old credential logs in nobody (${JSON.stringify(revoked)})`);

  // A new name with a password: "No account named zara: create it?", password kept.
  // (The page asks GET /api/players/zara, whose 404 Chromium reports in the console.)
  h.allowConsoleErrors(/status of 404/);
  await signIn(alice, 'zara', 'zebra crossing');
  await alice.waitForSelector('#login-hint:not([hidden])');
  h.allowConsoleErrors(null);
  const hint = await alice.textContent('#login-hint-text');
  check(hint === 'No account named zara: create it?', `the new-account hint (${hint})`);
  check((await alice.inputValue('#login-password')) === 'zebra crossing', 'the password typed stays in its box');
  await shot(alice, 'signin-new-account.png');
  await alice.click('#login-create');
  await alice.waitForSelector('#lobby:not([hidden])');
  check((await who(alice)) === 'zara:yes', 'one click created zara and signed her in');
  await alice.click('#signout');
  await alice.waitForSelector('#login:not([hidden])');

  // A wrong password for an existing account: the sentence, no hint, the password kept.
  await signIn(alice, 'alice', 'wrong horse');
  await alice.waitForFunction(() => /wrong name or password/.test(document.querySelector('#login-error').textContent));
  check(await alice.isHidden('#login-hint'), 'no new-account hint for an existing name');
  check((await alice.inputValue('#login-password')) === 'wrong horse', 'a failed try keeps the password');
  // And the right one, without "Stay signed in": nothing is kept.
  await alice.uncheck('#login-remember');
  await signIn(alice, 'alice', 'correct horse');
  await alice.waitForSelector('#lobby:not([hidden])');
  check((await alice.evaluate(() => localStorage.getItem('gammond.session'))) === null, 'without "Stay signed in" nothing is kept');
  log('signing in, staying signed in and signing out work');
}

await h.main(run);
