// What happened at a table, play by play (issue 27, item 3): the move list beside the
// board (game by game, in standard notation: "52: 13/8 13/11") built from the server's
// events, and the last play's points, marked on the board until the next roll. The
// plays are the server's (`moved` events, in the mover's own numbering); this module
// only turns their notation into board places, as the board's numbers do.

import { t } from './i18n.js';

const MAX_GAMES = 30; // games kept a table (older ones drop off)
const MAX_LINES = 600; // lines kept a game

/**
 * The board place (1..24, 'bar' or 'off') of the mover's own point `own` (a number, or
 * "bar"/"off") for `side` in `variant`: standard (R1): black's own numbers are the
 * board's, red's are 25 − board; long nardy (seed 004): black's own q is board 25 − q,
 * red's is board (37 − q) mod 24 (24 for 0).
 */
export function boardPlace(own, side, variant) {
  if (own === 'bar' || own === 'off') return own;
  const q = Number(own);
  if (!Number.isInteger(q) || q < 1 || q > 24) return null;
  if (variant === 'long') {
    if (side === 'black') return 25 - q;
    const b = (37 - q) % 24;
    return b === 0 ? 24 : b;
  }
  return side === 'black' ? q : 25 - q;
}

/**
 * The board places a play leaves and reaches: {from: Set, to: Set, hits: Set} for a
 * play in gnubg notation ("24/18* 13/11(2)", "bar/22", "6/off", and chained moves of one
 * checker with a hit on the way) by `side`. Unreadable parts are skipped.
 */
export function playPlaces(play, side, variant) {
  const from = new Set();
  const to = new Set();
  const hits = new Set();
  for (const token of String(play ?? '').trim().split(/\s+/)) {
    const parts = token.replace(/\(\d+\)$/, '').split('/');
    if (parts.length < 2) continue;
    const places = parts.map((p) => ({ place: boardPlace(p.replace('*', ''), side, variant), hit: p.endsWith('*') }));
    if (places.some((p) => p.place === null)) continue;
    from.add(places[0].place);
    to.add(places[places.length - 1].place);
    for (const p of places.slice(1)) if (p.hit) hits.add(p.place);
  }
  return { from, to, hits };
}

/**
 * The single checker moves of a play, in order, for drawing it move by move: [{from,
 * to, hits}] in board places (1..24, 'bar', 'off'), as moves.js's applySteps takes them.
 * A chain (24/18 with a hit, then on to 13) is one move per link, a repeat ("13/11(2)") that many moves; a
 * `*` marks the point reached as a hit (the opposing blot there goes to the bar).
 * Unreadable parts are skipped: the server's next state is drawn in the end anyway.
 */
export function playSteps(play, side, variant) {
  const steps = [];
  for (const token of String(play ?? '').trim().split(/\s+/)) {
    const repeat = /\((\d)\)$/.exec(token);
    const parts = token.replace(/\(\d+\)$/, '').split('/');
    if (parts.length < 2) continue;
    const places = parts.map((p) => ({ place: boardPlace(p.replace('*', ''), side, variant), hit: p.endsWith('*') }));
    if (places.some((p) => p.place === null)) continue;
    const times = Math.min(4, repeat ? Number(repeat[1]) : 1);
    for (let n = 0; n < times; n++) {
      for (let i = 1; i < places.length; i++) {
        steps.push({ from: places[i - 1].place, to: places[i].place, hits: places[i].hit ? [places[i].place] : [] });
      }
    }
  }
  return steps;
}

/** "52" for dice [5, 2]. */
const diceText = (dice) => (Array.isArray(dice) ? dice.join('') : '');

/** The move lists of the tables followed: table -> [{game, lines: [{side, text}]}]. */
export class MoveList {
  constructor() {
    this.tables = new Map();
  }

  /** The games of `table` (oldest first). */
  games(table) {
    return this.tables.get(table) ?? [];
  }

  /** The game being played at `table` (a new one when none yet). */
  current(table, number = null) {
    if (!this.tables.has(table)) this.tables.set(table, []);
    const games = this.tables.get(table);
    if (!games.length || (number !== null && games[games.length - 1].game !== number)) {
      games.push({ game: number ?? (games.length ? games[games.length - 1].game + 1 : 1), lines: [] });
      if (games.length > MAX_GAMES) games.shift();
    }
    return games[games.length - 1];
  }

  /** Takes in one event of the server; true when the list changed. */
  onEvent(msg) {
    const table = msg.table;
    // A line keeps its message and arguments: its text is drawn in the page's language.
    const add = (side, [key, args = {}]) => {
      const g = this.current(table);
      g.lines.push({ side, key, args, get text() { return t(this.key, this.args); } });
      if (g.lines.length > MAX_LINES) g.lines.shift();
      return true;
    };
    switch (msg.event) {
      case 'started':
        this.tables.set(table, []);
        return true;
      case 'game_started':
        this.current(table, msg.game_number ?? null);
        return true;
      case 'opening_roll':
        return add(msg.side, ['web.moves.opening', { red: String(msg.red_die), black: String(msg.black_die) }]);
      case 'moved':
        return add(msg.side, ['web.moves.played', { dice: diceText(msg.dice), play: msg.play }]);
      case 'passed':
        return add(msg.side, ['web.moves.passed', { dice: diceText(msg.dice) }]);
      case 'doubled':
        return add(msg.side, ['web.moves.doubles', { value: String(msg.value) }]);
      case 'took':
        return add(msg.side, ['web.moves.takes']);
      case 'dropped':
        return add(msg.side, ['web.moves.drops']);
      case 'resign_offered':
        return add(msg.side, ['web.moves.resign_offered', { kind: msg.kind }]);
      case 'resign_accepted':
        return add(msg.side, ['web.moves.resign_accepted']);
      case 'resign_rejected':
        return add(msg.side, ['web.moves.resign_rejected']);
      case 'game_over':
        return add(msg.winner, ['web.moves.wins', { points: msg.points }]);
      default:
        return false;
    }
  }

  /**
   * Draws `table`'s list into `el`: one <ol> a game (its number as a heading), each
   * line "name: text", the newest in view. `names`: side -> player name.
   */
  render(el, table, names) {
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 20;
    el.replaceChildren();
    const games = this.games(table);
    if (!games.length) {
      const p = document.createElement('p');
      p.className = 'muted small';
      p.textContent = t('web.moves.empty');
      el.append(p);
      return;
    }
    for (const g of games) {
      const h = document.createElement('h2'); // under the page's h1 (headings in order)
      h.textContent = t('web.moves.game', { number: String(g.game) });
      const ol = document.createElement('ol');
      ol.className = 'move-lines';
      for (const line of g.lines) {
        const li = document.createElement('li');
        li.className = `move-line ${line.side ?? ''}`;
        li.dataset.side = line.side ?? '';
        li.textContent = t('web.moves.line', { name: names?.[line.side] ?? line.side ?? '', text: line.text });
        ol.append(li);
      }
      el.append(h, ol);
    }
    if (atEnd) el.scrollTop = el.scrollHeight;
  }
}
