// The shared scaffolding of the browser end-to-end tests (clients/web in real headless
// Chromium through playwright-core): the gammond process, the browser, pages that fail
// the test on any script or console error, and the page helpers every test uses
// (login, screenshots, the board as drawn, commands, playing a play by clicking).
//
//   import { harness } from './harness.mjs';
//   const h = await harness('accounts', { timeLimitMs: 120_000 });
//   await h.main(async () => {
//     const base = await h.startServer(['--admins', 'alice']);
//     const alice = await h.newPage('alice');
//     await h.login(alice, base, 'alice');
//     h.check(..., 'a sentence saying what should hold');
//   });
//
// Each test is one Node process started by CTest with <path/to/gammond> <build-dir>;
// its screenshots and gammond's log go to <build-dir>/e2e/<name>/. A test never skips:
// anything missing (gammond, Chromium, playwright-core) fails it with a sentence.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's root. */
export const repo = path.resolve(here, '../..');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Milliseconds to wait for `ms`. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Own (mover) number of a board place in standard play (R1), for choosing checkers. */
export function ownNumber(side, place) {
  if (place === 'bar') return 25;
  if (place === 'off') return 0;
  const b = Number(place);
  return side === 'black' ? b : 25 - b;
}

/** Long nardy's own numbering of a board place (RULES.md, Long backgammon). */
export function longOwn(side, place) {
  if (place === 'off') return 0;
  const b = Number(place);
  return side === 'black' ? 25 - b : ((36 - b) % 24) + 1;
}

/** The CSS selector of a board place ('bar', 'off' or 1..24) as drawn for `side`. */
export const placeSelector = (place, side) =>
  place === 'bar' ? '#board .barplace' : place === 'off' ? `#board .tray.${side}` : `#board .point[data-place="${place}"]`;

/**
 * Sets up one browser test called `name` (its output folder). Reads
 * process.argv = [node, script, gammond, buildDir]. Exits the process with 2 on bad
 * usage and 1 when a prerequisite is missing. `timeLimitMs` bounds the whole test
 * (a watchdog fails it 20 s after).
 */
export async function harness(name, { timeLimitMs = 170_000 } = {}) {
  const [gammond, buildDir] = process.argv.slice(2);
  const started = Date.now();
  if (!gammond || !buildDir) {
    console.error(`usage: node ${path.basename(process.argv[1])} <path/to/gammond> <build-dir>`);
    process.exit(2);
  }
  for (const [what, file] of [['gammond', gammond], ['Chromium (Debian package chromium)', CHROMIUM]]) {
    if (!existsSync(file)) {
      console.error(`FAILED: ${what} not found at ${file}: run scripts/setup and build gammond`);
      process.exit(1);
    }
  }
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    console.error(`FAILED: playwright-core is not installed in tests/e2e (${e.message}): run scripts/setup (npm ci in tests/e2e)`);
    process.exit(1);
  }
  const outDir = path.join(path.resolve(buildDir), 'e2e', name);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const tmp = mkdtempSync(path.join(tmpdir(), `gammond-e2e-${name}-`));

  const servers = [];
  let browser = null;
  const pages = {}; // name -> page, for screenshots when the test fails
  const pageErrors = [];
  const consoleErrors = [];
  let axeSource = null; // axe-core's script, read on the first audit()
  // Console errors a test expects for a while (allowConsoleErrors): counted, not failed on.
  let allowedPattern = null;
  const allowedErrors = [];
  // What a test started itself (atEnd): stopped after the browser and the gammonds.
  const endings = [];
  const runEndings = async () => {
    while (endings.length) {
      await Promise.resolve().then(endings.pop()).catch((e) => console.error(`stopping: ${e.message}`));
    }
  };
  let checks = 0;

  const h = {
    started,
    outDir,
    tmp,
    timeLimitMs,
    pages,
    /** Writes a line with the seconds since the start. */
    log(...args) {
      console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s]`, ...args);
    },
    /** Fails the test with a sentence. */
    fail(message) {
      throw new Error(message);
    },
    /** Counts one check; fails the test with `message` when `condition` is false. */
    check(condition, message) {
      checks += 1;
      if (!condition) h.fail(message);
    },

    /**
     * Starts gammond (port 0, a temporary database, the web client of this checkout,
     * reproducible dice, a rate limit a clicking test never reaches, no match analysis
     * unless `extraArgs` gives --analysis-workers) with `extraArgs`
     * appended; resolves to its base URL. `db` names the database file in the test's
     * temporary folder (a second start on the same file restarts the same server).
     */
    async startServer(extraArgs = [], { db = 'e2e.db' } = {}) {
      const portFile = path.join(tmp, `port-${servers.length}`);
      const args = [
        '--port', '0', '--port-file', portFile, '--db', path.join(tmp, db),
        '--static-dir', path.join(repo, 'clients/web'), '--dice-seed', '7',
        '--commands-per-second', '200', '--command-burst', '400',
        // Match analysis (gnubg, seconds of CPU per match) only where a test asks for it.
        ...(extraArgs.includes('--analysis-workers') ? [] : ['--analysis-workers', '0']),
        ...extraArgs,
      ];
      const logFile = path.join(outDir, servers.length === 0 ? 'gammond.log' : `gammond-${servers.length}.log`);
      writeFileSync(logFile, '');
      const server = spawn(gammond, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      servers.push(server);
      const chunks = [];
      server.stdout.on('data', (d) => chunks.push(d));
      server.stderr.on('data', (d) => chunks.push(d));
      server.on('exit', () => writeFileSync(logFile, Buffer.concat(chunks)));
      for (const until = Date.now() + 30000; Date.now() < until; ) {
        if (server.exitCode !== null) h.fail(`gammond exited at start (code ${server.exitCode}): ${Buffer.concat(chunks)}`);
        if (existsSync(portFile)) {
          const port = Number(readFileSync(portFile, 'utf8').trim());
          if (port > 0) return `http://127.0.0.1:${port}`;
        }
        await sleep(50);
      }
      h.fail('gammond did not write its port file within 30 s');
      return null;
    },
    /**
     * Runs `stop` (async) when the test ends, passed, failed or past its time: for the
     * processes a test starts itself (a cluster, a proxy). The last registered runs first.
     */
    atEnd(stop) {
      endings.push(stop);
    },
    /**
     * From now on console errors matching `pattern` (a RegExp) are expected, e.g. the
     * WebSocket handshakes refused while a cluster's node is being replaced: they are
     * kept in `allowedConsoleErrors` and fail nothing. `null` ends it.
     */
    allowConsoleErrors(pattern) {
      allowedPattern = pattern;
    },
    /** The console errors allowed so far (`who: text`). */
    get allowedConsoleErrors() {
      return allowedErrors.slice();
    },
    /** Stops every gammond this test started (SIGTERM, then SIGKILL after 3 s). */
    async stopServer() {
      for (const server of servers) {
        if (server.exitCode !== null) continue;
        server.kill('SIGTERM');
        for (let i = 0; i < 60 && server.exitCode === null; i++) await sleep(50);
        if (server.exitCode === null) server.kill('SIGKILL');
      }
    },

    /**
     * A new page in its own browser context (its own storage: another player), named
     * `who` for failure screenshots. Script and console errors are collected and fail
     * the test at the end (issue 11 item 9). `contextOptions`: playwright's. Its
     * settings start with plays shown at once ("Show plays": off).
     */
    async newPage(who, contextOptions = { viewport: { width: 1280, height: 820 } }) {
      if (!browser) {
        browser = await chromium.launch({
          executablePath: CHROMIUM,
          headless: true,
          args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync'],
        });
      }
      const context = await browser.newContext(contextOptions);
      // Plays are shown at once (the setting "Show plays"), so that a test's pages do not
      // wait for each other's animations; bots.test.mjs turns it on to check it.
      await context.addInitScript(() => {
        try {
          if (localStorage.getItem('gammond.settings') === null) localStorage.setItem('gammond.settings', '{"speed":"off"}');
        } catch {
          // a page without storage (about:blank)
        }
      });
      const page = await context.newPage();
      pages[who] = page;
      page.on('pageerror', (e) => pageErrors.push(`${who}: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        if (allowedPattern?.test(m.text())) allowedErrors.push(`${who}: ${m.text()}`);
        else consoleErrors.push(`${who}: ${m.text()}`);
      });
      page.setDefaultTimeout(10_000);
      return page;
    },
    /** A phone-sized page (390 × 844, touch). */
    phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },

    /** Opens `base` and logs in as the guest `name`; resolves once the lobby shows. */
    async login(page, base, name) {
      await page.goto(base);
      await page.fill('#login-name', name);
      await page.click('#login-form button[type="submit"]');
      await page.waitForSelector('#lobby:not([hidden])');
    },
    /** Opens `base` and creates the account `name`; resolves once it is signed in. */
    async register(page, base, name, password) {
      await page.goto(base);
      await page.fill('#login-name', name);
      await page.fill('#login-password', password);
      await page.click('#register-button');
      await page.waitForSelector('#lobby:not([hidden])');
      await page.waitForFunction(() => document.querySelector('#who')?.dataset.registered === 'yes');
    },
    /** A screenshot of `page` into the output folder as `file`. */
    async shot(page, file) {
      const where = path.join(outDir, file);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: where });
      h.log(`screenshot ${where}`);
    },

    /**
     * The board as drawn: place -> checkers (+ red, − black), from the SVG alone;
     * `board` selects another board than the table's (the replay's: '#replay-board').
     */
    async readBoard(page, board = '#board') {
      return page.evaluate((svg) => {
        const count = (g, side) => {
          const label = g.querySelector(`text.count.${side}`);
          return label ? Number(label.textContent) : g.querySelectorAll(`circle.checker.${side}`).length;
        };
        const out = {};
        for (const g of document.querySelectorAll(`${svg} .point`)) {
          out[g.dataset.place] = count(g, 'red') - count(g, 'black');
        }
        const bar = document.querySelector(`${svg} .barplace`);
        out.bar = { red: count(bar, 'red'), black: count(bar, 'black') };
        out.off = {};
        for (const side of ['red', 'black']) {
          out.off[side] = Number(document.querySelector(`${svg} .tray.${side} .tray-count`)?.textContent ?? 0);
        }
        return out;
      }, board);
    },
    /** Checks the drawn board has 15 checkers a side (R1). */
    checkFifteen(board, who) {
      let red = board.bar.red + board.off.red;
      let black = board.bar.black + board.off.black;
      for (let b = 1; b <= 24; b++) {
        if (board[b] > 0) red += board[b];
        else black -= board[b];
      }
      h.check(red === 15 && black === 15, `${who}: the board shows ${red} red and ${black} black checkers, not 15 each`);
    },
    /** The state the page last received for the table on screen (undefined: none). */
    stateOf: (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table)),
    /** The `seq` of the state the board shows. */
    seqOf: (page) => page.$eval('#board', (b) => Number(b.dataset.seq ?? -1)),
    /** Waits until the board shows a state newer than `seq`. */
    async waitSeqAfter(page, seq) {
      await page.waitForFunction((s) => Number(document.querySelector('#board')?.dataset.seq ?? -1) > s, seq, {
        timeout: 10_000,
      });
    },
    /** True when `selector` matches a visible element. */
    visible: async (page, selector) => (await page.locator(selector).count()) > 0 && page.locator(selector).first().isVisible(),
    /** The kind of the dialog shown ('' when none). */
    dialogKind: (page) => page.$eval('#dialog', (d) => (d.hidden ? '' : d.dataset.kind)),
    /**
     * Clicks a command button and waits for the state it causes: a state newer than the
     * newest the page holds, shown or not (the board may still be drawing an older one
     * while a play is shown: waiting only for a newer board would take that one for the
     * answer).
     */
    async command(page, selector) {
      const latest = (await h.stateOf(page))?.seq ?? -1;
      const seq = Math.max(await h.seqOf(page), latest);
      await page.click(selector);
      await h.waitSeqAfter(page, seq);
    },
    /**
     * Resigns through the dialog: Resign… opens it (nothing is sent: the state stays),
     * `kind` is picked, its Resign button sends it; waits for the state it causes.
     */
    async resign(page, kind = 'single') {
      const seq = await h.seqOf(page);
      await page.click('#controls button[data-cmd="resign"]');
      await page.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'resign-choice');
      await page.check(`#dialog input[name="resign-kind"][value="${kind}"]`);
      await page.click('#dialog button[data-cmd="resign-confirm"]');
      await h.waitSeqAfter(page, seq);
    },
    /**
     * Makes steps by clicking (farthest checker first) until the play is complete and
     * waits for Confirm, or until it was sent (confirm off). Resolves to the steps made.
     */
    async stepUntilComplete(page) {
      const st = await h.stateOf(page);
      const side = st.turn;
      for (let steps = 1; steps <= 8; steps += 1) {
        await page.waitForSelector('#board .source', { timeout: 5000 });
        const sources = await page.$$eval('#board .source', (els) => els.map((e) => e.dataset.place));
        await page.click(placeSelector(sources[0], side));
        const targets = await page.$$eval('#board .target', (els) => els.map((e) => e.dataset.place));
        if (targets.length === 0) h.fail(`the checker on ${sources[0]} has no destination`);
        await page.click(placeSelector(targets[0], side));
        // Done: the play waits for Confirm, or it was sent (and maybe answered already).
        const done = await page.evaluate((s) => window.gammond.pendingPlay !== null || window.gammond.sentMove
          || Number(document.querySelector('#board').dataset.seq) > s, st.seq);
        if (done) return steps;
      }
      return h.fail('a play took more than 8 steps');
    },
    /**
     * When a complete play waits for Confirm (the default setting), clicks Confirm and
     * resolves to true; false when nothing waits.
     */
    async confirmPending(page) {
      const pending = await page.evaluate(() => window.gammond.pendingPlay);
      if (pending === null || pending === undefined) return false;
      const label = await page.textContent('#controls button[data-cmd="confirm"]');
      // In English "Confirm 24/18 13/11"; in another language (i18n.test.mjs) its words, with the play.
      const english = await page.evaluate(() => document.documentElement.lang === 'en');
      h.check(english ? label === `Confirm ${pending}` : label.includes(pending),
        `the Confirm button names the play waiting (${label} for ${pending})`);
      await page.click('#controls button[data-cmd="confirm"]');
      return true;
    },
    /**
     * Runs axe-core (npm, in the page: loaded through the DevTools protocol, which the
     * page's Content Security Policy leaves alone) on `page`, and fails with every
     * serious or critical violation (rule, impact, the elements named); the others are
     * logged. `what` names the page in the log.
     */
    async audit(page, what) {
      if (!(await page.evaluate(() => Boolean(window.axe)))) {
        axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
        await page.evaluate(axeSource);
      }
      const violations = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
      });
      const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const minor = violations.filter((v) => !bad.includes(v)).map((v) => `${v.id} (${v.impact})`);
      h.log(`${what}: axe-core: ${bad.length} serious or critical, ${minor.length} other${minor.length ? `: ${minor.join(', ')}` : ''}`);
      h.check(bad.length === 0, `${what}: axe-core finds ${bad.map((v) => `${v.id} (${v.impact}: ${v.help}) at ${v.nodes.join(', ')}`).join('; ')}`);
      return minor;
    },
    /** The destination closest to home among those offered for the picked checker. */
    async chooseTarget(page, side, from, own) {
      const targets = await page.$$eval('#board .target', (els) => els.map((e) => e.dataset.place));
      if (targets.length === 0) h.fail(`${side}: the checker on ${from} is offered but has no destination`);
      targets.sort((a, b) => own(a) - own(b));
      return targets[0];
    },
    /**
     * Plays one whole play by clicking (or dragging when `drag`): the checker farthest
     * from home first, to the farthest destination offered, until the play is sent.
     * With `undoOnce`, the first step is undone and checked. Resolves to the steps made.
     */
    async playByClicking(page, side, { drag = false, undoOnce = false, long = false, seq = null } = {}) {
      if (seq === null) seq = await h.seqOf(page);
      const own = (place) => (long ? longOwn(side, place) : ownNumber(side, place));
      let steps = 0;
      let undone = !undoOnce;
      for (;;) {
        const sources = await page.$$eval('#board .source', (els) => els.map((e) => e.dataset.place));
        if (sources.length === 0) h.fail(`${side}: no checker is offered to move in phase move`);
        const listed = await page.evaluate(() => {
          const st = window.gammond.states.get(window.gammond.table);
          return { froms: st.legal_moves.flatMap((p) => p.map((m) => String(m.from))),
            firsts: st.legal_moves.map((p) => String(p[0].from)), plays: st.legal.length,
            made: window.gammond.input?.steps.length ?? -1 };
        });
        if (listed.made === 0) {
          // Issue 11.11: the board offers what state.legal_moves lists, nothing else: every
          // source starts a listed move, and the first move of every listed play is offered.
          h.check(listed.firsts.length === listed.plays, `${side}: legal_moves has one list per legal play`);
          h.check(sources.every((s) => listed.froms.includes(s)), `${side}: every source is a listed move's start (${sources})`);
          h.check(listed.firsts.every((f) => sources.includes(f)), `${side}: each play's first move is offered (${sources})`);
        }
        sources.sort((a, b) => own(b) - own(a));
        const from = sources[0];
        let to;
        if (drag) {
          await page.click(placeSelector(from, side)); // see the destinations
          to = await h.chooseTarget(page, side, from, own);
          await page.click(placeSelector(from, side)); // still selected: drag it now
          const a = await page.locator(placeSelector(from, side)).boundingBox();
          const b = await page.locator(placeSelector(to, side)).boundingBox();
          await page.mouse.move(a.x + a.width / 2, a.y + a.height / 3);
          await page.mouse.down();
          await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
          await page.mouse.up();
          drag = false;
        } else {
          await page.click(placeSelector(from, side));
          to = await h.chooseTarget(page, side, from, own);
          await page.click(`${placeSelector(to, side)}`);
        }
        steps += 1;
        if (!undone) {
          // Undo the first step: the board must be as before, then play on.
          const before = await page.evaluate(() => window.gammond.input?.steps.length ?? -1);
          h.check(before === 1, `${side}: one step made before undo (got ${before})`);
          await page.click('#controls button[data-cmd="undo"]');
          const after = await page.evaluate(() => window.gammond.input?.steps.length ?? -1);
          h.check(after === 0, `${side}: undo takes the step back`);
          undone = true;
          continue;
        }
        if (await h.confirmPending(page)) break;
        const sent = await page.evaluate(
          (s) => window.gammond.sentMove || Number(document.querySelector('#board').dataset.seq) > s, seq);
        if (sent) break;
        if (steps > 8) h.fail(`${side}: a play took more than 8 steps without being sent`);
      }
      await h.waitSeqAfter(page, seq);
      return steps;
    },

    /**
     * Runs `body` under the watchdog; on failure prints the error, each page's state
     * and a screenshot; checks no page had a script or console error; stops everything
     * and exits the process (0: passed, 1: failed).
     */
    async main(body) {
      const watchdog = setTimeout(() => {
        console.error(`FAILED: the test ran past ${timeLimitMs / 1000 + 20} s`);
        h.stopServer().then(runEndings).finally(() => process.exit(1));
      }, timeLimitMs + 20_000);
      let status = 0;
      try {
        await body();
        h.check(pageErrors.length === 0, `no script errors in the pages: ${pageErrors.join('; ')}`);
        h.check(consoleErrors.length === 0, `no errors in the pages' consoles: ${consoleErrors.join('; ')}`);
        h.log(`all ${checks} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        console.log(`${name} e2e: ${checks} passed, 0 failed`);
      } catch (e) {
        status = 1;
        console.error(`FAILED: ${e.stack ?? e}`);
        console.error(servers.length ? `(gammond's log: ${path.join(outDir, 'gammond.log')})` : `(logs in ${outDir})`);
        for (const [n, p] of Object.entries(pages)) {
          try {
            await p.screenshot({ path: path.join(outDir, `failed-${n}.png`) });
            const st = await p.evaluate(() => {
              const g = window.gammond;
              const s = g?.states?.get(g.table);
              return { phase: s?.phase, turn: s?.turn, legal: s?.legal, dice: s?.dice, seq: s?.seq,
                steps: g?.input?.steps, sentMove: g?.sentMove, error: document.querySelector('#error')?.textContent };
            });
            console.error(`${n}: ${JSON.stringify(st)} (screenshot failed-${n}.png)`);
          } catch (err) {
            console.error(`${n}: no screenshot (${err.message})`);
          }
        }
        console.log(`${name} e2e: ${checks} passed, 1 failed`);
      } finally {
        clearTimeout(watchdog);
        if (browser) await browser.close().catch(() => {});
        await h.stopServer();
        await runEndings();
        rmSync(tmp, { recursive: true, force: true });
      }
      process.exit(status);
    },
  };
  return h;
}
