// Browser end-to-end test of the page's languages (issue 31), in real headless Chromium
// against the real gammond and GNU Backgammon.
//
//   node i18n.test.mjs <path/to/gammond> <build-dir> [LANG...]   (default: en fr de ru)
//
// For each language the page is opened with that browser language (Playwright's
// `locale`: navigator.languages and Accept-Language), and once more in English with
// the language then chosen in the header's menu. The player looks at the lobby with the
// settings open and the "New table…" dialog (the table options), plays the computer,
// rolls and plays at least one play, opens the resign dialog; at each step the page's
// visible text (document.body.innerText, and the title, aria-label and placeholder of
// every visible element) is collected. It fails when that text holds an English
// sentence of the catalogues (web.json and the server's files, each message cut at its
// {…} parts, the literal pieces of 12 characters or more, less those the language's own
// catalogue has too); in English, when a raw key ("web.…") shows. The language chosen
// in the menu mid-game keeps the table (same name, the board) and changes its texts.
// Screenshots of the table, one per language, go to <build-dir>/e2e/i18n/.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { harness, repo } from './harness.mjs';

const h = await harness('i18n', { timeLimitMs: 280_000 });
const { log, check, login, shot, seqOf, command, playByClicking } = h;
const GNUBG = process.env.GNUBG || '/usr/games/gnubg';
const wanted = process.argv.slice(4);
const LANGS = wanted.length ? wanted : ['en', 'fr', 'de', 'ru'];

/** Every message of language `tag` (i18n/lang/<tag>/*.json merged); {} when it has none. */
function catalogue(tag) {
  const dir = path.join(repo, 'i18n', 'lang', tag);
  const out = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    Object.assign(out, JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
  }
  return out;
}

/** The literal pieces of `message` between its {…} parts (nested braces skipped whole). */
function literalPieces(message) {
  const pieces = [];
  let depth = 0;
  let piece = '';
  for (let i = 0; i < message.length; i++) {
    const c = message[i];
    if (c === "'" && (message[i + 1] === '{' || message[i + 1] === '}')) {
      const end = message.indexOf("'", i + 1);
      if (depth === 0) piece += message.slice(i + 1, end < 0 ? message.length : end);
      i = end < 0 ? message.length : end;
      continue;
    }
    if (c === '{') {
      if (depth === 0) {
        pieces.push(piece);
        piece = '';
      }
      depth++;
    } else if (c === '}') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0) {
      piece += c;
    }
  }
  pieces.push(piece);
  return pieces.map((p) => p.trim()).filter((p) => p.length >= 12);
}

const english = catalogue('en');

/** The English pieces that must not show on a page in `tag`: [{key, piece}]. */
function forbiddenPieces(tag) {
  const own = Object.values(catalogue(tag)).join('\n');
  const out = [];
  for (const [key, message] of Object.entries(english)) {
    if (key === 'lang.name') continue;
    for (const piece of literalPieces(message)) {
      if (!own.includes(piece)) out.push({ key, piece });
    }
  }
  return out;
}

/** The visible text of `page`: innerText and the title, aria-label, placeholder of visible elements. */
function visibleText(page) {
  return page.evaluate(() => {
    const parts = [document.body.innerText, document.title];
    for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
      if (!el.getClientRects().length) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      for (const a of ['title', 'aria-label', 'placeholder']) {
        const v = el.getAttribute(a);
        if (v) parts.push(v);
      }
    }
    // Each visible element's own whole text (a button, a label, an option): a short
    // word such as "Roll" is below the pieces' 12 characters, so it is looked up whole.
    const leaves = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (el.children.length || !el.getClientRects().length) continue;
      const own = el.textContent.trim();
      if (own) leaves.push(own);
    }
    for (const o of document.querySelectorAll('select option')) leaves.push(o.textContent.trim());
    return parts.join('\n') + '\u0000' + leaves.join('\u0000');
  });
}

/** English's whole messages without arguments that language `tag` words otherwise: text → key. */
function forbiddenWholes(tag) {
  const own = catalogue(tag);
  const out = new Map();
  for (const [key, message] of Object.entries(english)) {
    if (key === 'lang.name' || /[{}]/.test(message) || message.trim().length < 3) continue;
    if (own[key] !== undefined && own[key] !== message) out.set(message.trim(), key);
  }
  return out;
}

/** The problems of `text` shown in language `tag` (English pieces, or raw keys). */
function problemsOf(tag, collected, forbidden) {
  const [text, ...leaves] = collected.split('\u0000');
  const found = [];
  if (tag !== 'en') {
    const wholes = forbiddenWholes(tag);
    for (const leaf of leaves) {
      if (wholes.has(leaf)) found.push(`English of ${wholes.get(leaf)}: "${leaf}"`);
    }
  }
  const raw = text.match(/\bweb\.[a-z_]+\.[a-z_.]+/g);
  if (raw) found.push(...new Set(raw.map((k) => `raw key ${k}`)));
  if (tag !== 'en') {
    for (const { key, piece } of forbidden) {
      if (text.includes(piece)) found.push(`English of ${key}: "${piece}"`);
    }
  }
  return [...new Set(found)];
}

/** The state of the table on screen, as the client keeps it. */
const stateOf = (page) => page.evaluate(() => window.gammond.states.get(window.gammond.table));

/** Plays the computer until `me` (red) has made at least one play; leaves it at her turn or later. */
async function playOnce(page, me) {
  const moved = () => page.evaluate((name) => (window.gammond.logs.get(window.gammond.table) ?? [])
    .some((l) => l.kind === 'event moved' && l.say?.args?.name === name), me);
  let plays = 0;
  for (let turn = 0; turn < 30 && plays < 1; turn++) {
    await page.waitForFunction(() => {
      const st = window.gammond.states.get(window.gammond.table);
      return st && (st.phase === 'match_over' || (st.to_act === 'red' && ['roll', 'move', 'cube_offered'].includes(st.phase)));
    }, null, { timeout: 30_000 });
    const st = await stateOf(page);
    if (st.phase === 'match_over') break;
    if (st.phase === 'roll') await command(page, '#controls button[data-cmd="roll"]');
    else if (st.phase === 'move') {
      await playByClicking(page, 'red', { seq: await seqOf(page) });
      plays++;
    } else if (st.phase === 'cube_offered') await command(page, '#dialog button[data-cmd="take"]');
  }
  check(plays >= 1 || (await moved()), 'the player made a play against the computer');
  // Her turn again (or the end), with the computer's answer drawn.
  await page.waitForFunction(() => {
    const st = window.gammond.states.get(window.gammond.table);
    return st && (st.phase === 'match_over' || (st.to_act === 'red' && ['roll', 'move'].includes(st.phase)));
  }, null, { timeout: 30_000 });
  await page.waitForFunction(() => !window.gammond.animator.busy, null, { timeout: 20_000 });
}

/**
 * One run: a page opened with browser language `locale`, signed in as `name`, in
 * language `tag` (chosen in the menu when `viaMenu`); returns the problems found.
 */
async function run(tag, { locale, name, viaMenu = false }) {
  const forbidden = forbiddenPieces(tag);
  const page = await h.newPage(name, { viewport: { width: 1280, height: 900 }, locale });
  const texts = [];
  const collect = async (where) => texts.push({ where, text: await visibleText(page) });
  await login(page, await baseUrl, name);
  await page.waitForFunction(() => document.querySelector('#language-menu')?.options.length >= 1);
  const offered = await page.$$eval('#language-menu option', (os) => os.map((o) => o.value));
  check(offered.includes(tag), `the language menu offers ${tag} (${offered.join(', ')})`);
  check(await page.isVisible('#language-menu'), 'the language menu shows in the header');
  if (!viaMenu) {
    await page.waitForFunction((t) => document.documentElement.lang === t, tag, { timeout: 5000 }).catch(() => {});
    const shown = await page.evaluate(() => document.documentElement.lang);
    check(shown === tag, `a browser in ${locale} gets the page in ${tag} (it is in ${shown})`);
  }
  // The lobby, the settings, the new table's options.
  if (!viaMenu) {
    await page.click('#settings-button');
    await collect('the lobby with the settings');
    await page.click('#settings-button');
    await page.click('#new-table-button');
    await page.waitForSelector('#new-table[open] fieldset.table-options');
    await collect('the new table dialog (table options)');
    await page.click('#new-table-cancel');
  }
  // The computer: a match to 3 against GNU Backgammon's beginner.
  await page.selectOption('#computer-level', 'beginner');
  await page.selectOption('#computer-variant', 'standard');
  await page.selectOption('#computer-match', '3');
  await page.click('#computer-form button[data-cmd="play-bot"]');
  await page.waitForSelector('#table:not([hidden]) #board .point');
  await page.waitForFunction(() => (window.gammond.states.get(window.gammond.table)?.game_number ?? 0) >= 1);
  await playOnce(page, name);
  if (viaMenu) {
    // Mid-game: the menu changes the language, the table stays.
    const before = { table: await page.textContent('#table-name'), controls: await page.textContent('#controls'),
      strip: await page.textContent('#strip-bottom'), seq: await seqOf(page) };
    await page.selectOption('#language-menu', tag);
    await page.waitForFunction((t) => document.documentElement.lang === t, tag);
    await page.waitForTimeout(300);
    const table = await page.textContent('#table-name');
    check(table === before.table, `the table stays on screen after the change of language (${before.table} → ${table})`);
    check(await page.isVisible('#table #board .point'), 'the board stays on screen after the change of language');
    check(await page.evaluate(() => localStorage.getItem('gammond.lang')), 'the menu\'s choice is kept in this browser');
    const after = `${await page.textContent('#controls')}${await page.textContent('#strip-bottom')}`;
    if (tag !== 'en') check(after !== `${before.controls}${before.strip}`, `the table's texts changed with the language ("${after}")`);
  }
  await collect('the table after a play');
  await shot(page, `table-${tag}${viaMenu ? '-menu' : ''}.png`);
  // The resign dialog (mid-game), then the lobby again.
  const st = await stateOf(page);
  if (['roll', 'move'].includes(st.phase) && (await page.isVisible('#controls button[data-cmd="resign"]'))) {
    await page.click('#controls button[data-cmd="resign"]');
    await page.waitForSelector('#dialog[data-kind="resign-choice"]:not([hidden])');
    await collect('the resign dialog');
    await page.click('#dialog button[data-cmd="resign-cancel"]');
  }
  const problems = [];
  for (const { where, text } of texts) {
    for (const p of problemsOf(tag, text, forbidden)) problems.push(`${where}: ${p}`);
  }
  await page.context().close();
  return [...new Set(problems)];
}

let baseUrl = null;
await h.main(async () => {
  check(existsSync(GNUBG), `GNU Backgammon is needed at ${GNUBG}: scripts/setup installs it (apt-get install gnubg), or set GNUBG`);
  baseUrl = h.startServer(['--gnubg', GNUBG]);
  log(`gammond at ${await baseUrl}`);
  const failures = [];
  const runs = LANGS.map((tag) => ({ tag, locale: tag === 'en' ? 'en-US' : tag, name: `p-${tag}` }));
  // Once more: an English browser, the language chosen in the menu mid-game.
  const menuTag = LANGS.find((tag) => tag !== 'en');
  if (menuTag) runs.push({ tag: menuTag, locale: 'en-US', name: `m-${menuTag}`, viaMenu: true });
  for (const r of runs) {
    log(`${r.tag}${r.viaMenu ? ' (chosen in the menu)' : ` (browser language ${r.locale})`}`);
    let problems;
    try {
      problems = await run(r.tag, r);
    } catch (e) {
      problems = [`the run failed: ${e.message.split('\n')[0]}`];
    }
    log(problems.length ? `${r.tag}: ${problems.length} problems` : `${r.tag}: ok`);
    for (const p of problems.slice(0, 25)) log(`  ${p}`);
    if (problems.length > 25) log(`  … and ${problems.length - 25} more`);
    if (problems.length) failures.push(`${r.tag}${r.viaMenu ? ' (menu)' : ''}: ${problems.length} problems (first: ${problems[0]})`);
  }
  log(`screenshots in ${h.outDir}`);
  check(failures.length === 0, `untranslated or raw text on the page:\n  ${failures.join('\n  ')}`);
});
