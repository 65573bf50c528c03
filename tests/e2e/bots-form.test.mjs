// Unit tests of the web client's "Play the computer" module (clients/web/bots.js):
// the line it sends and the answer it follows to the new table. Run: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadWeb } from './webmodules.mjs';

// clients/web has no package.json (the server serves it as is): load it from its text.
const { LEVELS, playBotLine, playedTable, botLabel } = await loadWeb('bots.js');

test('issue 14: the form sends /play bot with the level, the variant and the match', () => {
  assert.equal(playBotLine({ level: 'expert', variant: 'standard', match: '3' }), '/play bot expert standard match 3');
  assert.equal(playBotLine({ level: 'worldclass', variant: 'long', match: 'basis' }), '/play bot worldclass long match basis');
  assert.equal(playBotLine({ level: 'beginner', variant: 'standard', match: '1', hidden: true }), '/play bot beginner standard match 1 private');
  assert.deepEqual(LEVELS, ['beginner', 'intermediate', 'advanced', 'expert', 'worldclass']);
});

test('issue 14: the answer to /play bot names the table to enter; other messages do not', () => {
  const answer = { type: 'info', topic: 'play', table: 'vs-gnubg-1', text: '…', data: { table: 'vs-gnubg-1', bot: 'gnubg-expert' } };
  assert.equal(playedTable(answer), 'vs-gnubg-1');
  assert.equal(playedTable({ type: 'info', topic: 'help', text: '…' }), null);
  assert.equal(playedTable({ type: 'info', topic: 'play', data: {} }), null);
  assert.equal(playedTable({ type: 'error', code: 'no_bot', message: '…' }), null);
  assert.equal(playedTable(null), null);
});

test("issue 14: a computer player's seat is labelled, a person's is not", () => {
  assert.equal(botLabel('expert'), 'computer · expert');
  assert.equal(botLabel(null), null);
  assert.equal(botLabel(undefined), null);
});
