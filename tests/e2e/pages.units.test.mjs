// Unit tests of the page addresses (clients/web/router.js), of the replay's words and
// its matching with GNU Backgammon's decisions (clients/web/replay.js), and of the
// tournament pages' words (clients/web/tournaments.js). Run: node --test
//
// The client's modules import each other by relative paths, so they are copied into a
// temporary folder marked as ES modules and imported from there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { englishCatalogue } from './webmodules.mjs';

const web = fileURLToPath(new URL('../../clients/web/', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'gammond-web-'));
cpSync(web, dir, { recursive: true, filter: (f) => !/\.(png|svg|webmanifest)$/.test(f) });
writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const { routeOf, pathOf, sameRoute, Router } = await import(pathToFileURL(path.join(dir, 'router.js')));
// The copy's i18n.js in English: the sentences compared are the English ones.
const messages = englishCatalogue();
(await import(pathToFileURL(path.join(dir, 'i18n.js')))).useCatalogues('en', messages, messages);
const { stepText, matchDecisions } = await import(pathToFileURL(path.join(dir, 'replay.js')));
const { groupTournaments, pairingResult, registrationOf, knockoutRoundName, statusText } =
  await import(pathToFileURL(path.join(dir, 'tournaments.js')));

test('every page has a path, and the path gives the page back', () => {
  const routes = [
    { page: 'lobby', arg: null },
    { page: 'table', arg: 'pg' },
    { page: 'table', arg: 'жан стол/1' },
    { page: 'player', arg: 'Žan' },
    { page: 'ratings', arg: 'long' },
    { page: 'analysis', arg: 12 },
    { page: 'replay', arg: 987654321 },
    { page: 'tournaments', arg: null },
    { page: 'tournament', arg: 'Spring Cup/1' },
  ];
  for (const r of routes) {
    const p = pathOf(r);
    assert.ok(sameRoute(routeOf(p), r), `${p} is ${JSON.stringify(r)}`);
  }
  assert.equal(pathOf({ page: 'replay', arg: 5 }), '/match/5');
  assert.equal(pathOf({ page: 'table', arg: 'a/b' }), '/table/a%2Fb');
  assert.equal(pathOf({ page: 'tournaments', arg: null }), '/tournaments');
  assert.deepEqual(routeOf('/tournaments/', ''), { page: 'tournaments', arg: null });
  assert.equal(routeOf('/tournament/', '').page, 'lobby');
});

test('the older hash links are read as their pages; unknown and malformed paths are the lobby', () => {
  assert.deepEqual(routeOf('/', '#analysis/12'), { page: 'analysis', arg: 12 });
  assert.deepEqual(routeOf('/', '#match/7'), { page: 'replay', arg: 7 });
  assert.deepEqual(routeOf('/', '#t1'), { page: 'table', arg: 't1' });
  assert.deepEqual(routeOf('/ratings', ''), { page: 'ratings', arg: 'standard' });
  for (const [p, hash] of [['/nowhere', ''], ['/match/x1', ''], ['/analysis/1234567890123456789', ''],
    ['/ratings/chess', ''], ['/table/%E0%A4%A', ''], ['/table/', ''], ['/', '#match/'], ['/', '#a/b']]) {
    assert.equal(routeOf(p, hash).page, 'lobby', `${p}${hash}`);
  }
});

/** A History and a Location in memory, as the browser keeps them for one tab. */
function browserTab(start = '/') {
  const listeners = [];
  const entries = [{ state: null, url: start }];
  let i = 0;
  const location = {};
  const sync = () => {
    const u = new URL(entries[i].url, 'https://bg.example.org');
    Object.assign(location, { pathname: u.pathname, search: u.search, hash: u.hash });
  };
  sync();
  const history = {
    get state() { return entries[i].state; },
    get length() { return entries.length; },
    pushState(state, _t, url) { entries.splice(i + 1); entries.push({ state, url }); i += 1; sync(); },
    replaceState(state, _t, url) { entries[i] = { state, url }; sync(); },
    back() { if (i > 0) { i -= 1; sync(); for (const f of listeners) f({ state: entries[i].state }); } },
    forward() { if (i < entries.length - 1) { i += 1; sync(); for (const f of listeners) f({ state: entries[i].state }); } },
  };
  const window = { addEventListener: (type, f) => type === 'popstate' && listeners.push(f) };
  return { history, location, window, entries: () => entries.map((e) => e.url) };
}

test('the router pushes an entry a page, Back shows the page before, its back link never leaves the site', () => {
  const tab = browserTab('/');
  const shown = [];
  const router = new Router((r) => shown.push(r), tab);
  assert.equal(router.canGoBack(), false);
  router.go({ page: 'ratings', arg: 'standard' });
  router.go({ page: 'player', arg: 'alice' });
  router.go({ page: 'player', arg: 'alice' }); // the same page: no second entry
  assert.deepEqual(tab.entries(), ['/', '/ratings/standard', '/player/alice']);
  router.back();
  assert.deepEqual(shown.at(-1), { page: 'ratings', arg: 'standard' });
  router.go({ page: 'replay', arg: 3 }, { replace: true });
  assert.deepEqual(tab.entries(), ['/', '/match/3', '/player/alice']);
  router.back();
  assert.deepEqual(shown.at(-1), { page: 'lobby', arg: null });
  assert.equal(router.canGoBack(), false);
  // At the first entry the back link goes to the lobby instead of leaving the site.
  const opened = browserTab('/match/9');
  const seen = [];
  const r2 = new Router((r) => seen.push(r), opened);
  r2.back();
  assert.equal(opened.location.pathname, '/');
  assert.deepEqual(seen.at(-1), { page: 'lobby', arg: null });
});

const players = { red: 'alice', black: 'bob' };

test("a replay step's words name the player, the dice and the play", () => {
  assert.equal(stepText({ what: 'start', who: 'red', dice: [3, 1] }, players), 'alice starts with 31');
  assert.equal(stepText({ what: 'play', who: 'black', dice: [6, 4], play: '24/14' }, players), 'bob 64: 24/14');
  assert.equal(stepText({ what: 'pass', who: 'red', dice: [6, 6] }, players), 'alice 66: no legal play');
  assert.equal(stepText({ what: 'double', who: 'red', cube: { value: 2 } }, players), 'alice doubles to 2');
  assert.equal(stepText({ what: 'resign_offer', who: 'black', resign: 'gammon' }, players), 'bob offers to resign a gammon');
});

test("gnubg's decisions go with their steps: plays by Position ID and dice, cube decisions in order", () => {
  const steps = [
    { game: 1, what: 'start', who: 'red', dice: [3, 1] },
    { game: 1, what: 'play', who: 'red', dice: [3, 1], play: '8/5 6/5', position_id: 'A' },
    { game: 1, what: 'play', who: 'black', dice: [2, 6], play: '24/18 13/11', position_id: 'B' },
    { game: 1, what: 'double', who: 'red', position_id: 'C' },
    { game: 1, what: 'take', who: 'black', position_id: 'C' },
    { game: 1, what: 'play', who: 'red', dice: [5, 5], play: '13/3(2)', position_id: 'C' },
    { game: 2, what: 'play', who: 'red', dice: [3, 1], play: '8/5 6/5', position_id: 'A' },
  ];
  const decisions = [
    { n: 1, game: 1, side: 'red', kind: 'move', dice: [3, 1], position_id: 'A' },
    { n: 2, game: 1, side: 'black', kind: 'move', dice: [6, 2], position_id: 'B' },
    { n: 3, game: 1, side: 'red', kind: 'double', position_id: 'C' },
    { n: 4, game: 1, side: 'black', kind: 'take', position_id: 'C2' },
    { n: 5, game: 1, side: 'red', kind: 'move', dice: [5, 5], position_id: 'C' },
    { n: 6, game: 2, side: 'red', kind: 'move', dice: [3, 1], position_id: 'A' },
  ];
  const { byStep, stepOf } = matchDecisions(steps, decisions);
  assert.deepEqual([...stepOf.entries()].sort((a, b) => a[0] - b[0]), [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]]);
  assert.equal(byStep.has(0), false); // the start is no decision
  // A play whose Position ID gnubg gives otherwise has no verdict rather than a wrong one.
  const other = matchDecisions([{ game: 1, what: 'play', who: 'red', dice: [3, 1], position_id: 'Z' }], decisions);
  assert.equal(other.byStep.size, 0);
});

test('S6: the tournament pages group the list, word each result and offer Register or Withdraw', () => {
  const g = groupTournaments([
    { name: 'b', status: 'registering', start: 20 }, { name: 'a', status: 'registering', start: 10 },
    { name: 'r', status: 'running', start: 5 }, { name: 'f', status: 'finished', start: 1 },
    { name: 'c', status: 'cancelled', start: 2 },
  ]);
  assert.deepEqual(g.upcoming.map((t) => t.name), ['a', 'b']);
  assert.deepEqual(g.running.map((t) => t.name), ['r']);
  assert.deepEqual(g.ended.map((t) => t.name), ['c', 'f']);
  assert.equal(pairingResult({ red: 'a', black: 'b', winner: null, how: '' }), 'in play');
  assert.equal(pairingResult({ red: 'a', black: null, winner: 'a', how: 'bye' }), 'bye');
  assert.equal(pairingResult({ red: 'a', black: 'b', winner: 'b', how: 'played', won_by: 'gammon' }), 'b won (gammon)');
  assert.equal(pairingResult({ red: 'a', black: 'b', winner: 'a', how: 'withdrawn' }), 'a won: the opponent withdrew');
  assert.equal(pairingResult({ red: 'a', black: 'b', winner: 'a', how: 'adjudicated', reason: 'timeout' }),
    'a won by adjudication: timeout');
  const view = { status: 'registering', entrants: [{ name: 'Alice', withdrawn: false }], players: ['Alice'] };
  assert.equal(registrationOf(view, 'alice'), 'withdraw');
  assert.equal(registrationOf(view, 'bob'), 'register');
  assert.equal(registrationOf(view, null), null);
  assert.equal(registrationOf({ ...view, status: 'running' }, 'bob'), null);
  assert.equal(registrationOf({ ...view, status: 'running' }, 'alice'), 'withdraw');
  assert.equal(registrationOf({ ...view, status: 'finished' }, 'alice'), null);
  assert.equal(knockoutRoundName(1, 2), 'Final');
  assert.equal(knockoutRoundName(1, 5), 'Quarter-finals');
  assert.equal(knockoutRoundName(1, 9), 'Round 1');
  assert.equal(knockoutRoundName(2, 5), 'Semi-finals');
  assert.equal(statusText({ status: 'running', round: 2 }), 'running: round 2');
  assert.equal(statusText({ status: 'cancelled', end_reason: 'fewer than 2 players at the start' }),
    'cancelled: fewer than 2 players at the start');
});
