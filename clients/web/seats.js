// The seats of the table on screen (issue 27, item 10): each player's strip above and
// below the board (name, rating, computer, pips, score, clock, the turn's fish), the
// spectators, and the line that says what is played. All from the table's state.

import { nameWithRating } from './account.js';
import { botLabel } from './bots.js';
import { clockElement } from './clock.js';
import { t, tNodes } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** The mark of the table's owner (issue 13). */
function ownerMark() {
  const s = document.createElement('span');
  s.className = 'owner-mark';
  s.title = t('web.seat.owner');
  s.textContent = '♔';
  return s;
}

/**
 * "watching: carol 1500.00, dave" with each registered spectator's rating (one message
 * around the list of names); a name calls `onName(name, element)` (its menu).
 */
export function drawSpectators(st, onName) {
  const el = $('spectators');
  el.replaceChildren();
  const names = st.spectators ?? [];
  if (!names.length) return;
  const list = document.createDocumentFragment();
  names.forEach((n, i) => {
    if (i > 0) list.append(', ');
    const b = nameWithRating(n, st.ratings?.[n], onName);
    if (n === st.owner) b.append(' ', ownerMark());
    list.append(b);
  });
  el.append(...tNodes('web.seat.watching_names', { count: names.length, names: list }));
}

/** "match to 5 · long backgammon · clock 5 min + 12 s · game 2 · Crawford game": one message. */
export function matchText(st) {
  const o = st.options ?? {};
  const match = o.match === 'basis' ? 'basis' : st.match_length > 0 ? 'points' : 'free';
  return t('web.match.title', {
    match,
    length: st.match_length ?? 0,
    variant: st.variant === 'long' ? 'long' : 'standard',
    clock: o.clock?.minutes ? 'yes' : 'no',
    minutes: String(o.clock?.minutes ?? ''),
    delay: String(o.clock?.delay ?? ''),
    game: st.game_number > 0 ? 'yes' : 'no',
    number: String(st.game_number ?? ''),
    crawford: st.crawford ? 'yes' : 'no',
  });
}

/** The side whose move or decision is awaited, for the turn mark. */
function activeSide(st) {
  return st.to_act ?? st.turn ?? null;
}

/**
 * One player's strip in `el`: colour, name (calls `onName(name, element)`), rating,
 * computer, away, "you" when it is `me`, pips, score, clock, and the fish whose eye
 * marks the side to act (seed 000).
 */
export function drawStrip(el, st, side, me, onName) {
  const name = st.players?.[side];
  const active = activeSide(st) === side;
  el.className = `strip ${side}${active ? ' active' : ''}`;
  el.dataset.side = side;
  el.innerHTML = '';
  const span = (cls, text) => {
    const s = document.createElement('span');
    s.className = cls;
    s.textContent = text;
    el.appendChild(s);
    return s;
  };
  span(`swatch ${side}`, '');
  if (name) {
    const n = nameWithRating(name, st.ratings?.[name], onName);
    n.classList.add('name');
    el.appendChild(n);
    if (name === st.owner) el.appendChild(ownerMark());
  } else {
    span('name', t('web.seat.free', { side }));
  }
  const bot = botLabel(st.bots?.[side]);
  if (name && bot) span('bot', bot);
  if (name && st.present && st.present[side] === false) span('away', t('web.seat.away'));
  if (name === me) span('you', t('web.seat.you'));
  span('pips', t('web.seat.pips', { pips: String(st.pips?.[side] ?? '—') }));
  const score = span('score', t('web.seat.score', { score: String(st.score?.[side] ?? 0) }));
  score.dataset.score = st.score?.[side] ?? 0;
  const clock = clockElement(st.clock, side);
  if (clock) el.appendChild(clock);
  const fish = span('fish', '');
  fish.innerHTML = fishSvg(side);
  fish.title = active ? t('web.seat.to_play', { side }) : '';
  fish.hidden = !active;
}

/** Seed 000's "fish eye": a fish whose eye takes the colour of the player to act. */
function fishSvg(side) {
  return `<svg viewBox="0 0 48 28" width="42" height="24" aria-label="${t('web.seat.to_act', { side })}">
    <path d="M4 14 C12 2 30 2 38 14 C30 26 12 26 4 14 Z" class="fish-body"/>
    <path d="M36 14 L47 5 L47 23 Z" class="fish-body"/>
    <circle cx="14" cy="12" r="5" class="fish-eye ${side}"/></svg>`;
}

/** The side `name` sits on at table state `st` ('red', 'black'), or null. */
export function sideOf(st, name) {
  if (st.players?.red === name) return 'red';
  if (st.players?.black === name) return 'black';
  return null;
}

/** The other side. */
export const other = (side) => (side === 'red' ? 'black' : 'red');
