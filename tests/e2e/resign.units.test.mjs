// Unit tests of what the resign dialog says a resignation costs (clients/web/resign.js,
// R18 and L7): kind value × cube, and the score it leaves or the match it loses.
// Run: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadWeb } from './webmodules.mjs';

// clients/web has no package.json (the server serves it as is): load the module's text.
// Its drawing's import of dialogs.js (a relative URL a data: module cannot resolve) is
// left out: what is tested here is resignChoices() alone.
const { resignChoices } = await loadWeb('resign.js',
  (s) => s.replace(/^import \{ formDialog \} from '\.\/dialogs\.js';$/m, 'const formDialog = null;'));

const state = (over) => ({
  variant: 'standard',
  cube: { value: 1, owner: null, in_play: true },
  score: { red: 0, black: 0 },
  match_length: 7,
  options: { match: 7 },
  ...over,
});

test('R18: single, gammon and backgammon cost 1, 2, 3 times the cube', () => {
  const c = resignChoices(state({ cube: { value: 4, owner: 'red', in_play: true } }), 'red');
  assert.deepEqual(c.map((x) => [x.kind, x.points]), [['single', 4], ['gammon', 8], ['backgammon', 12]]);
  assert.equal(c[1].text, '8 points (2 × the cube at 4): you lose the match');
  assert.equal(c[0].text, '4 points (1 × the cube at 4): the score becomes 0–4');
});

test('in a match, a resignation that reaches the length says it loses the match', () => {
  const c = resignChoices(state({ score: { red: 2, black: 5 } }), 'red');
  assert.equal(c[0].text, '1 point: the score becomes 2–6');
  assert.equal(c[1].text, '2 points: you lose the match');
  assert.equal(c[2].text, '3 points: you lose the match');
});

test('the score is read from the resigning side: black resigning gives red the points', () => {
  const c = resignChoices(state({ score: { red: 6, black: 1 } }), 'black');
  assert.equal(c[0].text, '1 point: you lose the match');
  const free = resignChoices(state({ score: { red: 6, black: 1 } }), 'red');
  assert.equal(free[0].text, '1 point: the score becomes 6–2');
});

test('free play says the points only; a basis session the score, never the match', () => {
  const free = resignChoices(state({ match_length: 0, options: { match: 'off' } }), 'red');
  assert.deepEqual(free.map((x) => x.text), ['1 point', '2 points', '3 points']);
  const basis = resignChoices(state({ match_length: 0, options: { match: 'basis' }, score: { red: 9, black: 9 } }), 'black');
  assert.equal(basis[2].text, '3 points: the score becomes 9–12');
});

test('L7: long nardy offers oyn and mars, no backgammon', () => {
  const c = resignChoices(state({ variant: 'long', match_length: 3, score: { red: 0, black: 1 } }), 'red');
  assert.deepEqual(c.map((x) => [x.kind, x.points]), [['single', 1], ['gammon', 2]]);
  assert.match(c[1].label, /mars/);
  assert.equal(c[0].text, '1 point: the score becomes 0–2');
  assert.equal(c[1].text, '2 points: you lose the match');
});

test('a cube not in play counts as 1', () => {
  const c = resignChoices(state({ cube: { value: 1, in_play: false }, match_length: 0, options: { match: 'off' } }), 'red');
  assert.deepEqual(c.map((x) => x.points), [1, 2, 3]);
});
