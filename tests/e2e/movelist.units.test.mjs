// Unit tests of the move list and the last play's places (clients/web/movelist.js): the
// mover's own numbering turned into board places (R1 for standard, seed 004 for long
// nardy), and the list built from the server's events. Run: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadWeb } from './webmodules.mjs';

const { boardPlace, playPlaces, MoveList } = await loadWeb('movelist.js');

const sorted = (set) => [...set].map(String).sort();

test('R1: black\'s own numbers are the board\'s, red\'s are 25 minus them', () => {
  assert.equal(boardPlace(24, 'black', 'standard'), 24);
  assert.equal(boardPlace(24, 'red', 'standard'), 1);
  assert.equal(boardPlace(6, 'red', 'standard'), 19);
  assert.equal(boardPlace('bar', 'red', 'standard'), 'bar');
  assert.equal(boardPlace('off', 'black', 'standard'), 'off');
  assert.equal(boardPlace(0, 'black', 'standard'), null);
  assert.equal(boardPlace('x', 'black', 'standard'), null);
});

test('RULES.md Long backgammon numbering (seed 004): black starts on board 1 and red on 13, each at its own 24', () => {
  assert.equal(boardPlace(24, 'black', 'long'), 1);
  assert.equal(boardPlace(1, 'black', 'long'), 24);
  assert.equal(boardPlace(24, 'red', 'long'), 13);
  assert.equal(boardPlace(13, 'red', 'long'), 24);
  assert.equal(boardPlace(12, 'red', 'long'), 1);
  assert.equal(boardPlace(1, 'red', 'long'), 12);
});

test('a play\'s tokens give the places left, reached and hit', () => {
  const p = playPlaces('24/18* 13/11(2)', 'black', 'standard');
  assert.deepEqual(sorted(p.from), ['13', '24']);
  assert.deepEqual(sorted(p.to), ['11', '18']);
  assert.deepEqual(sorted(p.hits), ['18']);
  const q = playPlaces('bar/22 6/off', 'red', 'standard');
  assert.deepEqual(sorted(q.from), ['19', 'bar']);
  assert.deepEqual(sorted(q.to), ['3', 'off']);
  const chained = playPlaces('24/18*/13', 'black', 'standard');
  assert.deepEqual(sorted(chained.to), ['13']);
  assert.deepEqual(sorted(chained.hits), ['18']);
  assert.equal(playPlaces('', 'black', 'standard').from.size, 0);
  assert.equal(playPlaces('no play', 'black', 'standard').from.size, 0);
});

test('the list is kept game by game from the events, in standard notation', () => {
  const list = new MoveList();
  const ev = (event, more) => ({ table: 't', event, ...more });
  assert.equal(list.onEvent(ev('entered', { name: 'x' })), false);
  list.onEvent(ev('started', {}));
  list.onEvent(ev('game_started', { game_number: 1 }));
  list.onEvent(ev('opening_roll', { side: 'red', red_die: 5, black_die: 2 }));
  list.onEvent(ev('moved', { side: 'red', dice: [5, 2], play: '13/8 13/11' }));
  list.onEvent(ev('passed', { side: 'black', dice: [6, 6] }));
  list.onEvent(ev('doubled', { side: 'red', value: 2 }));
  list.onEvent(ev('took', { side: 'black', value: 2 }));
  list.onEvent(ev('game_over', { winner: 'red', points: 4 }));
  list.onEvent(ev('game_started', { game_number: 2 }));
  list.onEvent(ev('moved', { side: 'black', dice: [3, 1], play: '8/5 6/5' }));
  const games = list.games('t');
  assert.deepEqual(games.map((g) => g.game), [1, 2]);
  assert.deepEqual(games[0].lines.map((l) => `${l.side}: ${l.text}`), [
    'red: opening roll 5-2', 'red: 52: 13/8 13/11', 'black: 66: no play', 'red: doubles to 2',
    'black: takes', 'red: wins 4 points']);
  assert.deepEqual(games[1].lines.map((l) => l.text), ['31: 8/5 6/5']);
  // A new match starts a new list.
  list.onEvent(ev('started', {}));
  assert.equal(list.games('t').length, 0);
});
