// Play now (matchmaking, RULES.md S5): the lobby's "Play now" form, which sends
// `/seek VARIANT [match N]` to the lobby, the waiting indicator its answers (`info`
// topic "seek": protocol/PROTOCOL.md, Matchmaking) drive, and Cancel (`/unseek`). When a
// pair is found the server answers with `info` topic "play", which takes the page to
// the new table as "Play the computer" does (bots.js). Next to the form, everyone in the
// lobby sees how many players wait per variant (`seeking` of the `lobby` and `tables`
// messages).

import { onLanguage, t } from './i18n.js';

/**
 * The command line for a /seek.
 * @param {{variant: string, match: string}} choice variant: 'standard' or 'long';
 *   match: a number of points, or '' for the server's default set
 */
export function seekLine({ variant, match }) {
  return `/seek ${variant}${match ? ` match ${match}` : ''}`;
}

/** "0:07", "1:02": seconds as minutes and seconds. */
export function waitedText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The rating window shown while a request waits, `seconds` into its wait: S5's ±100,
 * wider by 50 every 10 s up to ±400, no bound from 70 s (null). For the display only:
 * the server pairs, and its `window` at `waited` is where the count starts.
 */
export function windowAt(seconds) {
  const tens = Math.floor(Math.max(0, seconds) / 10);
  return tens >= 7 ? null : Math.min(400, 100 + 50 * tens);
}

/**
 * The lobby's line of players waiting: "3 waiting for backgammon, 1 for long
 * backgammon", "Nobody is waiting for a game now".
 * @param {{standard?: number, long?: number}} seeking the count per variant
 */
export function seekingText(seeking) {
  const standard = seeking?.standard ?? 0;
  const long = seeking?.long ?? 0;
  if (!standard && !long) return t('web.seek.nobody');
  return t('web.seek.waiting_count', { standard: String(standard), long: String(long) });
}

/**
 * Wires the "Play now" form: on submit, sends the /seek line; while the request waits
 * the status line says so, with the time waited and the players waiting, and Cancel
 * sends /unseek. `count` (optional) shows the lobby's players waiting per variant.
 * `update(msg)` takes every `info`, `lobby` and `tables` message.
 * @returns {{update: (msg: object) => void}}
 */
export function setupSeek({ form, variant, match, status, text, cancel, count, sendLine, now = () => Date.now() }) {
  const button = form.querySelector('button[type="submit"]');
  let since = null; // when the request began waiting (ms), null when none waits
  let data = null;
  let timer = null;
  let seeking = null; // the last count of players waiting
  onLanguage(() => {
    draw();
    if (seeking && count) count.textContent = seekingText(seeking);
  });
  const draw = () => {
    if (since === null || !data) return;
    const others = Math.max(0, (data.waiting?.[data.variant] ?? 1) - 1);
    const waited = (now() - since) / 1000 + data.waited;
    // The server's window while it is the one it sent; from then on as S5 widens it.
    const window = Math.floor(waited / 10) === Math.floor(data.waited / 10) ? data.window : windowAt(waited);
    const args = { variant: data.variant, lengths: data.lengths.join(', '), waited: waitedText(waited), any_rating: window === null || window === undefined ? 'yes' : 'no', window: String(window ?? ''), others };
    text.textContent = others ? t('web.seek.looking_others', args) : t('web.seek.looking', args);
  };
  const stop = () => {
    since = null;
    data = null;
    clearInterval(timer);
    timer = null;
    status.hidden = true;
    if (button) button.disabled = false;
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = sendLine(seekLine({ variant: variant.value, match: match.value }), null);
    if (id !== null && button) button.disabled = true;
  });
  cancel.addEventListener('click', () => sendLine('/unseek', null));
  return {
    update(msg) {
      // Everyone's count of players waiting: pushed (`lobby`) and in every `tables` answer.
      if ((msg?.type === 'lobby' || msg?.type === 'tables') && msg.seeking && count) {
        seeking = msg.seeking;
        count.textContent = seekingText(msg.seeking);
        count.hidden = false;
        return;
      }
      if (msg?.type !== 'info') return;
      if (msg.topic === 'seek' && msg.data?.status === 'waiting') {
        data = msg.data;
        since = now();
        status.hidden = false;
        if (button) button.disabled = true;
        draw();
        clearInterval(timer);
        timer = setInterval(draw, 1000);
      } else if ((msg.topic === 'seek' && msg.data?.status === 'cancelled') || (msg.topic === 'play' && since !== null)) {
        stop();
      }
    },
    /** The request was refused (an error answered it): the button works again. */
    refused() {
      if (since === null && button) button.disabled = false;
    },
  };
}
