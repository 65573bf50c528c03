// The players' clocks (protocol/PROTOCOL.md "Clocks", RULES.md S2), drawn ticking
// from state.clock without asking the server: `red` and `black` are each side's bank in
// ms at `since` (the server's time in ms since the Unix epoch), `delay_ms` the delay
// the running side still had at `since`, `running` the side whose clock runs. The
// delay is spent first, then the bank. No rule is decided here: the server says who
// runs out and when.

import { t } from './i18n.js';

/** Under this many ms left the clock shows its warning. */
export const WARNING_MS = 10_000;

/**
 * What `side`'s clock shows at `now` (ms since the epoch): `left` (the bank, ms),
 * `delay` (delay left, ms), `running`, and `warning` (10 s or less in all).
 */
export function clockAt(clock, side, now) {
  const bank = Math.max(0, Number(clock?.[side] ?? 0));
  if (!clock || clock.running !== side) {
    return { left: bank, delay: 0, running: false, warning: bank <= WARNING_MS };
  }
  const elapsed = Math.max(0, now - Number(clock.since ?? now));
  const delayLeft = Math.max(0, Number(clock.delay_ms ?? 0));
  const delay = Math.max(0, delayLeft - elapsed);
  const left = Math.max(0, bank - Math.max(0, elapsed - delayLeft));
  return { left, delay, running: true, warning: left + delay <= WARNING_MS };
}

/** "4:32"; tenths under 10 s ("0:09.4"); hours past 60 minutes ("1:02:03"). */
export function formatClock(ms) {
  const total = Math.max(0, ms);
  if (total < WARNING_MS) {
    const tenths = Math.floor(total / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.floor(total / 1000);
  const s = String(seconds % 60).padStart(2, '0');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}:${s}`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${s}`;
}

/**
 * A clock element for `side` (a span the ticker keeps up to date), or null when the
 * table has no clock.
 */
export function clockElement(clock, side, now = Date.now()) {
  if (!clock) return null;
  const el = document.createElement('span');
  el.className = 'clock';
  el.setAttribute('role', 'timer');
  el.dataset.side = side;
  updateClock(el, clock, now);
  return el;
}

/** Redraws one clock element at `now`. */
function updateClock(el, clock, now) {
  const c = clockAt(clock, el.dataset.side, now);
  const text = c.delay > 0 ? t('web.clock.time_delay', { time: formatClock(c.left), seconds: String(Math.ceil(c.delay / 1000)) }) : formatClock(c.left);
  if (el.textContent !== text) el.textContent = text;
  // Its accessible name says whose clock it is and whether it runs (role timer: read
  // when asked, not at every second).
  const label = t('web.clock.label', { side: el.dataset.side, time: text, running: c.running ? 'yes' : 'no' });
  if (el.getAttribute('aria-label') !== label) el.setAttribute('aria-label', label);
  el.dataset.ms = String(c.left);
  el.classList.toggle('running', c.running);
  el.classList.toggle('warning', c.warning);
  const side = el.dataset.side;
  el.title = c.running
    ? c.delay > 0 ? t('web.clock.running_delay', { side, seconds: String(Math.ceil(c.delay / 1000)) }) : t('web.clock.running', { side })
    : t('web.clock.bank', { side });
}

/** Redraws every clock element under `root` from `clock` at `now` (a timer calls it). */
export function tickClocks(root, clock, now = Date.now()) {
  if (!clock) return;
  for (const el of root.querySelectorAll('.clock[data-side]')) updateClock(el, clock, now);
}
