// Play now (matchmaking, RULES.md S5): the lobby's "Play now" form, which sends
// `/seek VARIANT [match N]` to the lobby, the waiting indicator its answers (`info`
// topic "seek": protocol/PROTOCOL.md, Matchmaking) drive, and Cancel (`/unseek`). When a
// pair is found the server answers with `info` topic "play", which takes the page to
// the new table as "Play the computer" does (bots.js).

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
 * Wires the "Play now" form: on submit, sends the /seek line; while the request waits
 * the status line says so, with the time waited and the players waiting, and Cancel
 * sends /unseek. `update(msg)` takes every `info` message.
 * @returns {{update: (msg: object) => void}}
 */
export function setupSeek({ form, variant, match, status, text, cancel, sendLine, now = () => Date.now() }) {
  const button = form.querySelector('button[type="submit"]');
  let since = null; // when the request began waiting (ms), null when none waits
  let data = null;
  let timer = null;
  const draw = () => {
    if (since === null || !data) return;
    const game = data.variant === 'long' ? 'long backgammon' : 'backgammon';
    const others = Math.max(0, (data.waiting?.[data.variant] ?? 1) - 1);
    text.textContent = `Looking for an opponent (${game}, ${data.lengths.join(', ')} points) · ` +
      `${waitedText((now() - since) / 1000 + data.waited)}` +
      (others ? ` · ${others} other${others === 1 ? '' : 's'} waiting` : '');
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
