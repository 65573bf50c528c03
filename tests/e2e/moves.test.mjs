// Unit tests of the web client's move input (clients/web/moves.js): legal plays as
// the server sends them (state.legal and its checker moves, state.legal_moves),
// turned into the steps the board offers. Run: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// clients/web has no package.json (the server serves it as is), so load the module
// from its text as an ES module.
const source = readFileSync(fileURLToPath(new URL('../../clients/web/moves.js', import.meta.url)), 'utf8');
const { MoveInput, applySteps } = await import(
  `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`
);

const sorted = (set) => [...set].sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));

/** A state.board from {place: count} (+ red, − black) and bar counts. */
function boardOf(points, bar = { red: 0, black: 0 }) {
  const out = new Array(24).fill(0);
  for (const [p, n] of Object.entries(points)) out[Number(p) - 1] = n;
  return { points: out, bar: { ...bar }, off: { red: 0, black: 0 } };
}

/** A checker move of state.legal_moves. */
const mv = (from, to, hit = false) => ({ from, to, hit });

// Black's standard start in board numbering (R1): 2 on 24, 5 on 13, 3 on 8, 5 on 6.
const start = boardOf({ 24: -2, 13: -5, 8: -3, 6: -5, 1: 2, 12: 5, 17: 3, 19: 5 });

// 6-3 for black, as the server sends it: legal[i] and legal_moves[i].
const legal63 = ['24/18 13/10', '24/15', '13/7 13/10', '24/21 13/7'];
const moves63 = [
  [mv(24, 18), mv(13, 10)],
  [mv(24, 18), mv(18, 15)],
  [mv(13, 7), mv(13, 10)],
  [mv(24, 21), mv(13, 7)],
];

test('issue 11.11: sources and destinations come from state.legal_moves only', () => {
  const input = new MoveInput(legal63, moves63, 'black', start);
  assert.deepEqual(sorted(input.sources()), [13, 24]);
  assert.deepEqual(sorted(input.destinations(24)), [15, 18, 21]);
  assert.deepEqual(sorted(input.destinations(13)), [7, 10]);
  assert.deepEqual(sorted(input.destinations(8)), []);
  // Without legal_moves (no play to make) nothing is offered.
  assert.deepEqual(sorted(new MoveInput(legal63, [], 'black', start).sources()), []);
});

test('issue 11.11: a step keeps the consistent plays, in any order, and the play is sent when complete', () => {
  let input = new MoveInput(legal63, moves63, 'black', start);
  input = input.step(13, 10);
  assert.deepEqual(input.candidates.map((c) => c.text), ['24/18 13/10', '13/7 13/10']);
  assert.deepEqual(sorted(input.sources()), [13, 24]);
  assert.equal(input.complete(), null);
  assert.equal(input.step(8, 2), null, 'a step no legal play allows is refused');
  const done = input.step(24, 18);
  assert.equal(done.complete(), '24/18 13/10');
  // Undo goes back one step at a time.
  const back = done.undo();
  assert.equal(back.steps.length, 1);
  assert.equal(back.complete(), null);
  assert.equal(back.undo().steps.length, 0);
});

test('issue 11.11: one checker using both dice is one step to the end, or one step per move', () => {
  const input = new MoveInput(legal63, moves63, 'black', start);
  assert.equal(input.step(24, 15).complete(), '24/15');
  const half = input.step(24, 18);
  // 18 now holds the checker: its next move is offered from there.
  assert.ok(half.sources().has(18));
  assert.deepEqual(sorted(half.destinations(18)), [15]);
  assert.equal(half.step(18, 15).complete(), '24/15');
});

test('issue 11.11: a place with no checker of the mover is no source, even when a move starts there', () => {
  // 13/7*/1: the checker reaches 7 first; nothing of black stands on 7 before.
  const board = boardOf({ 13: -1, 7: 1 });
  const input = new MoveInput(['13/7*/1'], [[mv(13, 7, true), mv(7, 1)]], 'black', board);
  assert.deepEqual(sorted(input.sources()), [13]);
  assert.deepEqual(sorted(input.destinations(7)), []);
  assert.deepEqual(sorted(input.destinations(13)), [1, 7]);
});

test('issue 11.11: hits are the ones the server marks, drawn on the bar before it answers', () => {
  const board = boardOf({ 13: -1, 7: 1 });
  let input = new MoveInput(['13/7*/1'], [[mv(13, 7, true), mv(7, 1)]], 'black', board);
  input = input.step(13, 7);
  assert.deepEqual(input.steps[0].hits, [7]);
  const drawn = applySteps(board, 'black', input.steps);
  assert.equal(drawn.points[6], -1);
  assert.equal(drawn.bar.red, 1);
  assert.deepEqual(sorted(input.destinations(7)), [1]);
  assert.equal(input.step(7, 1).complete(), '13/7*/1');
  // Straight to the end: the hit on the way is still carried.
  const direct = new MoveInput(['13/7*/1'], [[mv(13, 7, true), mv(7, 1)]], 'black', board).step(13, 1);
  assert.deepEqual(direct.steps[0].hits, [7]);
  // The client derives no hit of its own: a move the server does not mark as a hit
  // draws no checker on the bar, whatever stands on the point.
  const unmarked = new MoveInput(['13/7'], [[mv(13, 7, false)]], 'black', board).step(13, 7);
  assert.deepEqual(unmarked.steps[0].hits, []);
  assert.equal(applySteps(board, 'black', unmarked.steps).bar.red, 0);
});

test('issue 11.11: entering from the bar follows the list: the bar is a source as the server lists it', () => {
  // Red on the bar with 3-1: the server lists bar/22 6/5 as [bar -> 3, 19 -> 20].
  const legal = ['bar/22 6/5', 'bar/24 24/21'];
  const moves = [[mv('bar', 3), mv(19, 20)], [mv('bar', 1), mv(1, 4)]];
  const input = new MoveInput(legal, moves, 'red', boardOf({ 19: 2 }, { red: 1, black: 0 }));
  assert.ok(input.sources().has('bar'));
  assert.deepEqual(sorted(input.destinations('bar')), [1, 3, 4]);
  const entered = input.step('bar', 3);
  assert.deepEqual(entered.candidates.map((c) => c.text), ['bar/22 6/5']);
  assert.deepEqual(sorted(entered.sources()), [19]);
  assert.equal(entered.step(19, 20).complete(), 'bar/22 6/5');
});

test('issue 11.11: doubles, repeated moves and bearing off are steps of the list', () => {
  // Red: 2 on 17 (own 8) and 1 on 19 (own 6); 6-6 style list with repeats and off.
  const board = boardOf({ 17: 2, 19: 1 });
  const input = new MoveInput(['8/2(2) 6/off'], [[mv(17, 23), mv(17, 23), mv(19, 'off')]], 'red', board);
  assert.deepEqual(sorted(input.sources()), [17, 19]);
  let s = input.step(17, 23);
  assert.equal(s.complete(), null);
  s = s.step(19, 'off');
  assert.equal(s.complete(), null);
  assert.equal(s.step(17, 23).complete(), '8/2(2) 6/off');
  const drawn = applySteps(board, 'red', s.step(17, 23).steps);
  assert.equal(drawn.off.red, 1);
  assert.equal(drawn.points[22], 2);
});

test('applySteps draws a play in progress, hit blots go to the bar', () => {
  const points = new Array(24).fill(0);
  points[12] = -2; // black on 13
  points[6] = 1; // a red blot on 7
  const board = { points, bar: { red: 0, black: 0 }, off: { red: 0, black: 0 } };
  const after = applySteps(board, 'black', [{ from: 13, to: 7, hits: [7] }]);
  assert.equal(after.points[12], -1);
  assert.equal(after.points[6], -1);
  assert.equal(after.bar.red, 1);
  assert.equal(board.points[6], 1, 'the state is not changed');
});

test('issue 11.11: long nardy needs no numbering of its own: the list is in board places', () => {
  // Black plays from its head on board 1; red from its head on board 13.
  const board = boardOf({ 1: -15, 13: 15 });
  const black = new MoveInput(['24/18 24/21'], [[mv(1, 7), mv(1, 4)]], 'black', board);
  assert.deepEqual(sorted(black.sources()), [1]);
  assert.deepEqual(sorted(black.destinations(1)), [4, 7]);
  const red = new MoveInput(['24/19'], [[mv(13, 18)]], 'red', board);
  assert.deepEqual(sorted(red.sources()), [13]);
  assert.equal(red.step(13, 18).complete(), '24/19');
});

// Node 18 (Debian 12's) has no `v` flag; the browser test checks the patterns in
// Chromium anyway, where any console error fails it.
const vFlag = (() => {
  try {
    new RegExp('', 'v');
    return true;
  } catch {
    return false;
  }
})();

test('issue 11.9: every pattern attribute of the web client compiles under the v flag', {
  skip: vFlag ? false : 'this Node has no RegExp v flag (the browser test covers the patterns)',
}, () => {
  // Browsers compile pattern="" as new RegExp(`^(?:${pattern})$`, 'v'): inside a
  // class, "/" and other syntax characters must be escaped there.
  for (const file of ['index.html']) {
    const html = readFileSync(fileURLToPath(new URL(`../../clients/web/${file}`, import.meta.url)), 'utf8');
    const patterns = [...html.matchAll(/\spattern="([^"]*)"/g)].map((m) => m[1]);
    assert.ok(patterns.length > 0, `${file} has pattern attributes`);
    for (const p of patterns) {
      const text = p.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
      assert.doesNotThrow(() => new RegExp(`^(?:${text})$`, 'v'), `pattern="${p}" in ${file}`);
    }
  }
});
