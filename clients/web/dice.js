// Checking a finished match's dice in the page (protocol/PROTOCOL.md "Verifiable
// dice", RULES.md S4), from its record as GET /api/matches/ID serves it. The same
// checks as gammon-tool verify-dice, computed with WebCrypto (crypto.subtle: SHA-256
// and HMAC-SHA256), which browsers offer on https:// pages and on http://127.0.0.1 and
// localhost. Nothing here trusts the server: the seed, the commitment and every roll
// are recomputed.

import { t } from './i18n.js';

const TAG = new TextEncoder().encode('gammond-dice-v1');
const REJECT_FROM = 252; // bytes 252..255 are skipped: 252 = 42 x 6

const u32be = (n) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, false);
  return b;
};

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

function fromHex(text) {
  if (typeof text !== 'string' || !/^[0-9a-fA-F]{64}$/.test(text)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The message of roll k of game g (PROTOCOL.md). */
function message(redSeed, blackSeed, game, k) {
  const enc = new TextEncoder();
  const r = enc.encode(redSeed ?? '');
  const b = enc.encode(blackSeed ?? '');
  return concat(TAG, u32be(r.length), r, u32be(b.length), b, u32be(game), u32be(k));
}

/** An HMAC-SHA256 key of the 32 seed bytes. */
export function hmacKey(subtle, seed) {
  return subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** Roll k of game g: [die1, die2] (PROTOCOL.md "Verifiable dice"). */
export async function deriveRoll(subtle, key, redSeed, blackSeed, game, k) {
  const msg = message(redSeed, blackSeed, game, k);
  const dice = [];
  for (let block = 0; dice.length < 2; block++) {
    const input = block === 0 ? msg : concat(msg, u32be(block));
    const mac = new Uint8Array(await subtle.sign('HMAC', key, input));
    for (const b of mac) {
      if (b >= REJECT_FROM) continue;
      dice.push((b % 6) + 1);
      if (dice.length === 2) break;
    }
  }
  return dice;
}

const rollText = (d) => `${d[0]}-${d[1]}`;
const sameDice = (a, b) => (a[0] === b[0] && a[1] === b[1]) || (a[0] === b[1] && a[1] === b[0]);
/** The arguments naming roll `i` (its index, game and k) in a sentence. */
const rollArgs = (i, r) => ({ index: String(i + 1), game: String(r.game), k: String(r.k) });

/** Step 5 for one game (see verifyDice): its rolls against its opening, plays and passes. */
function checkGame(game, rolls) {
  const g = { game: String(game.number) };
  let next = 0;
  let opening = null;
  while (next < rolls.length) {
    const d = rolls[next++].roll.dice;
    if (d[0] !== d[1]) {
      opening = d;
      break;
    }
  }
  if (!opening) {
    if (game.opening) return t('web.dice.no_opening_throw', g);
    if (rolls.length) return t('web.dice.all_ties', g);
    return null;
  }
  const first = opening[0] > opening[1] ? 'red' : 'black';
  if (!game.opening) return t('web.dice.opening_missing', g);
  if (!sameDice(game.opening, opening) || game.first !== first) {
    return t('web.dice.opening_differs', { ...g, roll: rollText(game.opening), side: game.first, red: String(opening[0]), black: String(opening[1]) });
  }
  let openingUsed = false;
  let turn = 0;
  for (const a of game.actions ?? []) {
    if (a.what !== 'play' && a.what !== 'pass') continue;
    turn += 1;
    const dice = a.dice ?? [0, 0];
    const which = { ...g, turn: String(turn), who: a.who, action: a.what, play: a.play ?? '', dice: rollText(dice) };
    if (!openingUsed) {
      openingUsed = true;
      if (!sameDice(dice, opening)) return t('web.dice.turn_opening', { ...which, opening: rollText(opening) });
      continue;
    }
    if (next >= rolls.length) return t('web.dice.turn_no_roll', which);
    const r = rolls[next];
    if (dice[0] !== r.roll.dice[0] || dice[1] !== r.roll.dice[1]) {
      const named = rollArgs(r.index, r.roll);
      return t('web.dice.turn_differs', { ...which, index: named.index, roll_game: named.game, k: named.k, roll: rollText(r.roll.dice) });
    }
    next += 1;
  }
  if (rolls.length - next > 1) return t('web.dice.unplayed', { ...g, count: rolls.length - next });
  return null;
}

/**
 * Verifies the dice of `record` (GET /api/matches/ID) with `subtle` (WebCrypto):
 * 1. a commitment and a revealed seed of 64 hex digits; 2. SHA-256(seed) is the
 * commitment; 3. the rolls numbered in order (k from 0 in each game); 4. every roll
 * re-derived; 5. the games played with exactly those dice. Resolves to
 * {verified, rolls, problem} (problem: the first difference and why).
 */
export async function verifyDice(record, subtle = globalThis.crypto?.subtle) {
  const fail = (rolls, problem) => ({ verified: false, rolls, problem });
  if (!subtle) return fail(0, t('web.dice.no_crypto'));
  const d = record?.dice;
  if (!d || !d.commitment) return fail(0, t('web.dice.none'));
  if (!d.seed) return fail(0, t('web.dice.not_revealed'));
  const seed = fromHex(d.seed);
  if (!seed) return fail(0, t('web.dice.bad_seed'));
  const committed = hex(await subtle.digest('SHA-256', seed));
  if (committed !== String(d.commitment).toLowerCase()) {
    return fail(0, t('web.dice.commitment', { committed, commitment: String(d.commitment) }));
  }
  const key = await hmacKey(subtle, seed);
  const [redSeed, blackSeed] = d.player_seeds ?? ['', ''];
  const rolls = d.rolls ?? [];
  const byGame = new Map();
  for (let i = 0; i < rolls.length; i++) {
    const r = rolls[i];
    const prev = rolls[i - 1];
    const newGame = i === 0 || r.game !== prev.game;
    if (r.game < 1 || (i > 0 && r.game < prev.game) || (newGame && r.k !== 0) || (!newGame && r.k !== prev.k + 1)) {
      return fail(i, t('web.dice.out_of_order', rollArgs(i, r)));
    }
    const derived = await deriveRoll(subtle, key, redSeed, blackSeed, r.game, r.k);
    if (derived[0] !== r.dice[0] || derived[1] !== r.dice[1]) {
      return fail(i, t('web.dice.derived_differs', { ...rollArgs(i, r), recorded: rollText(r.dice), derived: rollText(derived) }));
    }
    if (!byGame.has(r.game)) byGame.set(r.game, []);
    byGame.get(r.game).push({ index: i, roll: r });
  }
  for (const game of record.games ?? []) {
    const why = checkGame(game, byGame.get(game.number) ?? []);
    if (why) return fail(rolls.length, why);
    byGame.delete(game.number);
  }
  if (byGame.size) return fail(rolls.length, t('web.dice.orphan', { game: String([...byGame.keys()][0]) }));
  return { verified: true, rolls: rolls.length, problem: '' };
}
