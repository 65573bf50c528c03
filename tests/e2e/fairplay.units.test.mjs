// Unit tests of the web client's clocks (clients/web/clock.js) and dice verification
// (clients/web/dice.js), run with Node.js (node --test). The dice are checked against
// the records that gammon-tool's tests use (tests/tools/data), so the page's WebCrypto
// code and gammond's libsodium code must agree roll by roll.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadWeb } from './webmodules.mjs';

// clients/web has no package.json (the server serves it as is): load the modules from
// their text as ES modules.
async function load(file) {
  return loadWeb(file);
}
const { clockAt, formatClock, WARNING_MS } = await load('clock.js');
const { verifyDice, deriveRoll, hmacKey } = await load('dice.js');
const record = (name) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../tools/data/${name}.json`, import.meta.url)), 'utf8'));
const subtle = webcrypto.subtle;

test('S2 the running side spends its delay first, then its bank; the other side waits', () => {
  const clock = { red: 60_000, black: 45_000, delay_ms: 12_000, running: 'red', since: 1_000_000 };
  assert.deepEqual(clockAt(clock, 'red', 1_005_000), { left: 60_000, delay: 7_000, running: true, warning: false });
  assert.deepEqual(clockAt(clock, 'red', 1_020_000), { left: 52_000, delay: 0, running: true, warning: false });
  assert.deepEqual(clockAt(clock, 'black', 1_020_000), { left: 45_000, delay: 0, running: false, warning: false });
  assert.equal(clockAt(clock, 'red', 2_000_000).left, 0);
  // A client clock behind the server's never adds time.
  assert.equal(clockAt(clock, 'red', 900_000).left, 60_000);
});

test('S2 the warning shows at 10 s left, counting the delay', () => {
  const clock = { red: 9_000, black: 10_001, delay_ms: 2_000, running: 'red', since: 0 };
  assert.equal(clockAt(clock, 'red', 0).warning, false); // 9 s + 2 s of delay
  assert.equal(clockAt(clock, 'red', 1_000).warning, true);
  assert.equal(clockAt(clock, 'black', 1_000).warning, false);
  assert.equal(WARNING_MS, 10_000);
});

test('clocks are written m:ss, with tenths under 10 s and hours past an hour', () => {
  assert.equal(formatClock(300_000), '5:00');
  assert.equal(formatClock(272_900), '4:32');
  assert.equal(formatClock(10_000), '0:10');
  assert.equal(formatClock(9_450), '0:09.4');
  assert.equal(formatClock(0), '0:00.0');
  assert.equal(formatClock(3_723_000), '1:02:03');
});

test('S4 rolls derived with WebCrypto are those of PROTOCOL.md', async () => {
  const seed = Uint8Array.from({ length: 32 }, (_, i) => i);
  const key = await hmacKey(subtle, seed);
  assert.deepEqual(await deriveRoll(subtle, key, '', '', 1, 0), [1, 4]);
  assert.deepEqual(await deriveRoll(subtle, key, '', '', 1, 1), [3, 3]);
  assert.deepEqual(await deriveRoll(subtle, key, '', '', 1, 42), [3, 4]); // a byte 0xff skipped
  assert.deepEqual(await deriveRoll(subtle, key, 'alice', 'bob', 1, 0), [3, 6]);
});

test('S4 a recorded match verifies in the page as with gammon-tool; tampering is found', async () => {
  assert.deepEqual(await verifyDice(record('match_verified'), subtle), { verified: true, rolls: 48, problem: '' });
  const roll = await verifyDice(record('match_tampered_roll'), subtle);
  assert.equal(roll.verified, false);
  assert.equal(roll.problem, 'roll 5 (game 1, k 4): the record says 2-4 but the seed gives 2-3');
  const play = await verifyDice(record('match_tampered_play'), subtle);
  assert.equal(play.verified, false);
  assert.match(play.problem, /^game 1, turn 5 .*: played with 5-3 but roll 5 \(game 1, k 4\) was 2-3$/);
  const other = record('match_verified');
  other.dice.seed = '00'.repeat(32);
  assert.match((await verifyDice(other, subtle)).problem, /does not match the commitment/);
  assert.match((await verifyDice({ games: [] }, subtle)).problem, /no verifiable dice/);
  assert.match((await verifyDice(record('match_verified'), null)).problem, /WebCrypto/);
});
