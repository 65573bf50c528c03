// Playing the computer (issue 14): the lobby's "Play the computer" form, which sends
// `/play bot LEVEL VARIANT match N [private]` to the lobby, and the answer that names the new
// table (an `info` with topic "play": protocol/PROTOCOL.md, Computer players).

/** The levels the server's computer players have, weakest first (gnubg's names). */
import { t } from './i18n.js';

export const LEVELS = ['beginner', 'intermediate', 'advanced', 'expert', 'worldclass'];

/**
 * The command line for a game against the computer.
 * @param {{level: string, variant: string, match: string, hidden?: boolean}} choice
 *   level: one of LEVELS; variant: 'standard' or 'long'; match: a number of points,
 *   'basis' or 'off'; hidden: a private table (nobody watches; the server's default is
 *   a table others may watch)
 */
export function playBotLine({ level, variant, match, hidden = false }) {
  return `/play bot ${level} ${variant} match ${match}${hidden ? ' private' : ''}`;
}

/** The table a `/play bot` answer names, or null for any other message. */
export function playedTable(msg) {
  if (msg?.type !== 'info' || msg.topic !== 'play') return null;
  const table = msg.data?.table;
  return typeof table === 'string' && table !== '' ? table : null;
}

/** The label a seat's strip shows for a computer player of `level` (null: a person). */
export function botLabel(level) {
  return level ? t('web.bot.label', { level }) : null;
}

/**
 * Wires the "Play the computer" form: on submit, sends the line to the lobby with
 * `sendLine(text, null)` and disables the button until `done()` is called (the answer
 * came: the table, or an error shown by the caller).
 * @returns {{done: () => void}}
 */
export function setupPlayComputer({ form, level, variant, match, hidden = null, sendLine }) {
  const button = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const line = playBotLine({ level: level.value, variant: variant.value, match: match.value, hidden: Boolean(hidden?.checked) });
    const id = sendLine(line, null);
    if (id !== null && button) button.disabled = true;
  });
  return {
    done() {
      if (button) button.disabled = false;
    },
  };
}
