// Unit tests of the web client's move input (clients/web/moves.js): legal plays as
// the server writes them, turned into the steps the board offers. Run: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// clients/web has no package.json (the server serves it as is), so load the module
// from its text as an ES module.
const source = readFileSync(fileURLToPath(new URL('../../clients/web/moves.js', import.meta.url)), 'utf8');
const { MoveInput, parsePlay, ownToBoard, boardToOwn, applySteps } = await import(
  `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`
);

const sorted = (set) => [...set].sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));

test('parsePlay reads parts, bar, off, hits and repeats', () => {
  assert.deepEqual(parsePlay('24/18 13/11'), [
    { points: [24, 18], hits: [false, false] },
    { points: [13, 11], hits: [false, false] },
  ]);
  assert.deepEqual(parsePlay('bar/22*'), [{ points: [25, 22], hits: [false, true] }]);
  assert.deepEqual(parsePlay('6/off'), [{ points: [6, 0], hits: [false, false] }]);
  assert.deepEqual(parsePlay('13/7*/1'), [{ points: [13, 7, 1], hits: [false, true, false] }]);
  assert.equal(parsePlay('8/2(2)').length, 2);
  assert.deepEqual(parsePlay('6/2*(2)').map((p) => p.hits), [[false, true], [false, false]]);
  assert.equal(parsePlay('24-18'), null);
});

test('mover numbering maps to board points (R1, long nardy)', () => {
  assert.equal(ownToBoard('black', 'standard', 24), 24);
  assert.equal(ownToBoard('red', 'standard', 24), 1);
  assert.equal(ownToBoard('red', 'standard', 25), 'bar');
  assert.equal(ownToBoard('red', 'standard', 0), 'off');
  // Long: black's head (own 24) is board 1, red's head is board 13; homes 19-24 and 7-12.
  assert.equal(ownToBoard('black', 'long', 24), 1);
  assert.equal(ownToBoard('black', 'long', 1), 24);
  assert.equal(ownToBoard('red', 'long', 24), 13);
  assert.equal(ownToBoard('red', 'long', 13), 24);
  assert.equal(ownToBoard('red', 'long', 12), 1);
  assert.equal(ownToBoard('red', 'long', 1), 12);
  for (const v of ['standard', 'long']) {
    for (const s of ['red', 'black']) {
      for (let p = 1; p <= 24; p++) assert.equal(boardToOwn(s, v, ownToBoard(s, v, p)), p);
    }
  }
});

test('sources and destinations come from the legal plays only', () => {
  const input = new MoveInput(['24/18 13/10', '24/15', '13/7 13/10', '24/21 13/7'], 'black', 'standard');
  assert.deepEqual(sorted(input.sources()), [13, 24]);
  assert.deepEqual(sorted(input.destinations(24)), [15, 18, 21]);
  assert.deepEqual(sorted(input.destinations(13)), [7, 10]);
  assert.deepEqual(sorted(input.destinations(8)), []);
});

test('a step keeps the consistent plays and the play is sent when complete', () => {
  let input = new MoveInput(['24/18 13/10', '24/15', '13/7 13/10'], 'black', 'standard');
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

test('one checker using both dice is one step to the end', () => {
  const input = new MoveInput(['24/15', '24/18 13/10'], 'black', 'standard');
  assert.equal(input.step(24, 15).complete(), '24/15');
});

test('written intermediate points are steps too, and hits are carried', () => {
  let input = new MoveInput(['13/7*/1'], 'black', 'standard');
  assert.deepEqual(sorted(input.destinations(13)), [1, 7]);
  input = input.step(13, 7);
  assert.deepEqual(input.steps[0].hits, [7]);
  assert.deepEqual(sorted(input.destinations(7)), [1]);
  assert.equal(input.step(7, 1).complete(), '13/7*/1');
  // Straight to the end: the hit on the way is still there.
  assert.deepEqual(new MoveInput(['13/7*/1'], 'black', 'standard').step(13, 1).steps[0].hits, [7]);
});

test('doubles with repeats, the bar and bearing off for red', () => {
  // Red: own 8 is board 17, own 2 board 23; bar and off are places of their own.
  let input = new MoveInput(['8/2(2)', 'bar/22 6/off'], 'red', 'standard');
  assert.deepEqual(sorted(input.sources()), [17, 'bar']);
  input = input.step(17, 23);
  assert.equal(input.complete(), null);
  assert.equal(input.step(17, 23).complete(), '8/2(2)');
  const entering = new MoveInput(['bar/22 6/off'], 'red', 'standard').step('bar', 3);
  assert.deepEqual(sorted(entering.sources()), [19]);
  assert.equal(entering.step(19, 'off').complete(), 'bar/22 6/off');
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

test('long nardy: both sides counter-clockwise through the board numbering', () => {
  // Black plays from its head (own 24 = board 1) to own 18 = board 7.
  const black = new MoveInput(['24/18 24/21'], 'black', 'long');
  assert.deepEqual(sorted(black.sources()), [1]);
  assert.deepEqual(sorted(black.destinations(1)), [4, 7]);
  // Red from its head (own 24 = board 13) to own 19 = board 18.
  const red = new MoveInput(['24/19'], 'red', 'long');
  assert.deepEqual(sorted(red.sources()), [13]);
  assert.deepEqual(sorted(red.destinations(13)), [18]);
});
