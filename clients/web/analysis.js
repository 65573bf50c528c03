// The analysis page of a finished match (#analysis/<id>): GNU Backgammon's summary per
// player, the list of errors and blunders (pick one to see the board before and after
// it), and an SVG chart of the match: red's equity at each decision, with the errors
// marked. Everything comes from GET /api/matches/<id>/analysis (protocol/PROTOCOL.md,
// "Match analysis"); while the analysis is pending the page asks again every few
// seconds. No rules here: the boards are the server's, drawn with board.js.

import { drawBoard } from './board.js';
import { h, pageLink, svg } from './dom.js';

/** How often a pending analysis is asked for again, in milliseconds. */
const POLL_MS = 2000;
/** The chart's equity range: beyond it a value is drawn at the edge. */
const CLIP = 1.2;

/** gnubg's words for a decision's skill, as the page shows them. */
export const SKILL = {
  doubtful: { cls: 'doubtful', word: 'doubtful' },
  bad: { cls: 'error', word: 'error' },
  'very bad': { cls: 'blunder', word: 'blunder' },
};

const fixed = (x, n = 1) => (typeof x === 'number' ? x.toFixed(n) : '—');
export const signed = (x, n = 3) => (typeof x === 'number' ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(n)}` : '—');

/** "alice 42: 24/22 5/1" or "alice drops" for a decision. */
export function decisionText(d, players) {
  const who = players?.[d.side]?.name ?? d.side;
  if (d.kind === 'move') return `${who} ${d.dice?.join('') ?? ''}: ${d.played}`;
  if (d.kind === 'no_double') return `${who} rolls instead of doubling`;
  return `${who} ${{ double: 'doubles', take: 'takes', drop: 'drops' }[d.kind] ?? d.kind}`;
}

/** The analysis page, drawn into `root` (an element that is emptied). */
export class AnalysisPage {
  /**
   * @param {HTMLElement} root where the page is drawn
   * @param {{onBack: () => void, onReplay?: (id: number) => void, fetch?: typeof fetch,
   *   query?: () => string}} options onBack: the "back" link; onReplay: the "replay" link;
   *   query: the query string for the match's reads ("?token=…": a private table's match
   *   is read only with a resume token of its players, PROTOCOL.md)
   */
  constructor(root, {onBack, onReplay = null, fetch: fetchFn = (...a) => fetch(...a), query = () => ''}) {
    this.root = root;
    this.onBack = onBack;
    this.onReplay = onReplay;
    this.query = query;
    this.fetch = fetchFn;
    this.id = null;
    this.timer = null;
    this.data = null;
    this.selected = null;
  }

  /** Shows the analysis of match `id`, fetching it (again while it is pending). */
  show(id) {
    this.hide();
    this.id = id;
    this.data = null;
    this.selected = null;
    this.drawMessage('loading', `Loading the analysis of match ${id}…`);
    this.load();
  }

  /** Stops asking; the page stays as drawn. */
  hide() {
    clearTimeout(this.timer);
    this.timer = null;
    this.id = null;
  }

  /** The analysis of match `id` is ready (event analysis_ready): fetch it now if shown. */
  ready(id) {
    if (this.id === id && this.data?.status !== 'done') {
      clearTimeout(this.timer);
      this.load();
    }
  }

  async load() {
    const id = this.id;
    if (id === null) return;
    let body = null;
    let status = 0;
    try {
      const r = await this.fetch(`/api/matches/${encodeURIComponent(id)}/analysis${this.query()}`);
      status = r.status;
      body = await r.json();
    } catch (e) {
      body = null;
    }
    if (this.id !== id) return; // another page meanwhile
    if (status === 404) {
      this.drawMessage('missing', body?.message ?? `There is no match ${id}.`);
      return;
    }
    if (!body || status !== 200) {
      this.drawMessage('error', 'The analysis could not be read; trying again…');
      this.timer = setTimeout(() => this.load(), POLL_MS * 2);
      return;
    }
    this.data = body;
    this.draw();
    if (body.status === 'pending') this.timer = setTimeout(() => this.load(), POLL_MS);
  }

  // ---------------------------------------------------------------- drawing

  head() {
    const d = this.data;
    const back = h('button', { type: 'button', class: 'link', 'data-cmd': 'back', text: '← back' });
    back.addEventListener('click', () => this.onBack());
    const title = h('h2', { text: `Match ${this.id}` });
    const parts = [];
    const m = d?.match;
    if (m) {
      parts.push(`${m.players.red} (red) vs ${m.players.black} (black)`);
      parts.push(m.length > 0 ? `${m.length}-point match` : m.variant === 'long' ? 'long backgammon' : 'money play');
      parts.push(`final ${m.score.red}–${m.score.black}`);
      if (m.table) parts.push(`table ${m.table}`);
    }
    const mat = h('a', {
      href: `/matches/${encodeURIComponent(this.id)}.mat${this.query()}`,
      text: 'the match (.mat)'
    });
    const links = h('span', { class: 'replay-links' });
    if (this.onReplay) {
      const id = this.id;
      links.append(pageLink(`/match/${id}`, 'replay', () => this.onReplay(id), 'replay'), ' · ');
    }
    links.append(mat);
    return h('div', { class: 'analysis-head' }, back, title, h('span', { class: 'muted', text: parts.join(' · ') }), links);
  }

  drawMessage(kind, text) {
    this.root.replaceChildren(
      h('section', { class: 'card analysis', 'data-status': kind }, this.head(), h('p', { class: 'analysis-message', text })),
    );
  }

  draw() {
    const d = this.data;
    if (d.status === 'pending') {
      this.drawMessage('pending', 'GNU Backgammon is analysing this match… this page shows it when it is done.');
      return;
    }
    if (d.status !== 'done') {
      this.drawMessage(d.status, `No analysis: ${d.reason ?? 'none was made'}.`);
      return;
    }
    const section = h('section', { class: 'card analysis', 'data-status': 'done' }, this.head());
    section.append(h('p', { class: 'muted', text: `Analysed by GNU Backgammon at the ${d.level} level. Equities are normalised (EMG): a single game at the cube's value is ±1; error rates are thousandths of that lost per decision.` }));
    section.append(this.summary());
    section.append(h('h3', { text: 'The match, decision by decision' }));
    section.append(this.chart());
    const errors = d.decisions.filter((x) => x.skill === 'bad' || x.skill === 'very bad');
    section.append(h('h3', { text: `Errors and blunders (${errors.length})` }));
    section.append(this.errorList(errors));
    section.append(h('div', { id: 'analysis-position', class: 'analysis-position' }));
    this.root.replaceChildren(section);
    const first = this.selected ?? errors[0]?.n ?? null;
    if (first !== null) this.select(first);
  }

  /** The per-player table: PR (S7), error rates, rating, errors and blunders, luck. */
  summary() {
    const p = this.data.players;
    const rows = [
      ['Performance rating (PR)', (x) => (typeof x.pr === 'number' ? `${x.pr.toFixed(2)} (${x.pr_band})` : '—')],
      ['Error rate (per decision)', (x) => fixed(x.error_rate)],
      ['Snowie error rate', (x) => fixed(x.snowie_error_rate)],
      ['Rating', (x) => x.rating ?? '—'],
      ['Checker play: errors, blunders', (x) => `${x.checker.errors}, ${x.checker.blunders}`],
      ['Checker play error rate', (x) => `${fixed(x.checker.error_rate)} (${x.checker.rating ?? '—'})`],
      ['Cube: errors, blunders', (x) => `${x.cube.errors}, ${x.cube.blunders}`],
      ['Cube error rate', (x) => (x.cube.close ? `${fixed(x.cube.error_rate)} (${x.cube.rating ?? '—'})` : '—')],
      ['Luck', (x) => signed(x.luck.total)],
    ];
    const table = h('table', { class: 'analysis-summary' });
    const head = h('tr', {}, h('th', {}, h('span', { class: 'visually-hidden', text: 'figure' })));
    for (const side of ['red', 'black']) {
      head.append(h('th', { 'data-side': side }, h('span', { class: `swatch ${side}` }), ` ${p[side].name}`));
    }
    table.append(h('thead', {}, head));
    const body = h('tbody');
    for (const [label, value] of rows) {
      const tr = h('tr', {}, h('th', { text: label }));
      for (const side of ['red', 'black']) tr.append(h('td', { 'data-side': side, text: value(p[side]) }));
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  /** The chart of the match's decisions; a mark picks its decision. */
  chart() {
    return equityChart(this.data.decisions, this.data.players, (n) => this.select(n));
  }

  /** The errors and blunders, each a button that shows its boards. */
  errorList(errors) {
    if (!errors.length) return h('p', { class: 'muted', text: 'None: no decision lost 0.06 or more.' });
    const ol = h('ol', { class: 'analysis-errors' });
    for (const d of errors) {
      const skill = SKILL[d.skill];
      const b = h('button', { type: 'button', class: `link error-item ${skill.cls}`, 'data-n': d.n });
      b.append(
        h('span', { class: 'error-where', text: `game ${d.game}` }),
        ` ${decisionText(d, this.data.players)}`,
        d.best ? h('span', { class: 'muted', text: ` (best ${d.best})` }) : null,
        h('span', { class: 'error-lost', text: ` ${signed(-d.equity_lost)}` }),
        h('span', { class: `skill ${skill.cls}`, text: skill.word }),
      );
      b.addEventListener('click', () => this.select(d.n));
      ol.append(h('li', {}, b));
    }
    return ol;
  }

  /** Shows decision `n`: its boards before (and after a play) and what gnubg says. */
  select(n) {
    const d = this.data?.decisions.find((x) => x.n === n);
    const box = this.root.querySelector('#analysis-position');
    if (!d || !box) return;
    this.selected = n;
    for (const e of this.root.querySelectorAll('.selected[data-n]')) e.classList.remove('selected');
    for (const e of this.root.querySelectorAll(`[data-n="${n}"]`)) e.classList.add('selected');
    const players = this.data.players;
    const skill = SKILL[d.skill];
    const lost = typeof d.equity_lost === 'number' ? signed(-d.equity_lost) : '—';
    box.replaceChildren(
      h('h3', { text: `Game ${d.game}: ${decisionText(d, players)}` }),
      h('p', {}, `Best: ${d.best ?? '—'} · equity lost ${lost}${skill ? ` (${skill.word})` : ''} · ${players[d.side].name}'s equity with the best choice ${signed(d.equity)}`),
      h('p', { class: 'muted ids', text: `Position ID ${d.position_id} · Match ID ${d.match_id}` }),
    );
    const boards = h('div', { class: 'analysis-boards' });
    const drawOne = (label, board, dice) => {
      const fig = h('figure', { class: 'analysis-board' });
      const s = svg('svg', { class: 'board small', role: 'img', 'aria-label': label });
      drawBoard(s, { board, variant: 'standard', bottom: d.side, tutor: true, dice, diceSide: d.side });
      fig.append(s, h('figcaption', { text: label }));
      boards.append(fig);
    };
    drawOne(d.kind === 'move' ? 'before the play' : 'the position', d.board_before, d.kind === 'move' ? d.dice : null);
    if (d.board_after) drawOne(`after ${d.played}`, d.board_after, null);
    box.append(boards);
  }
}

/**
 * The chart of a match: red's equity (EMG) at each of `decisions` (the analysis's, in
 * order), one mark per decision, errors and blunders larger, games separated. A click on
 * a mark calls `onPick(n)` with its decision's `n`; the marks carry `data-n`.
 */
export function equityChart(decisions, players, onPick) {
  const n = decisions.length;
  const W = 760;
  const H = 240;
  const left = 44;
  const right = 10;
  const top = 16;
  const bottom = 26;
  const x = (i) => left + (n <= 1 ? (W - left - right) / 2 : (i * (W - left - right)) / (n - 1));
  const y = (v) => top + ((CLIP - Math.max(-CLIP, Math.min(CLIP, v))) * (H - top - bottom)) / (2 * CLIP);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'analysis-chart', role: 'img',
    'aria-label': "red's equity at each decision, errors marked" });
  svg('rect', { x: left, y: top, width: W - left - right, height: H - top - bottom, class: 'chart-bed' }, root);
  for (const v of [1, 0.5, 0, -0.5, -1]) {
    svg('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: v === 0 ? 'chart-zero' : 'chart-grid' }, root);
    svg('text', { x: left - 6, y: y(v) + 4, class: 'chart-label' }, root, signed(v, 1));
  }
  svg('text', { x: left + 4, y: top + 12, class: 'chart-side red' }, root, `${players.red.name} (red) ahead`);
  svg('text', { x: left + 4, y: H - bottom - 6, class: 'chart-side black' }, root, `${players.black.name} (black) ahead`);
  // Game boundaries.
  let game = 0;
  decisions.forEach((d, i) => {
    if (d.game !== game) {
      game = d.game;
      svg('line', { x1: x(i), x2: x(i), y1: top, y2: H - bottom, class: 'chart-game' }, root);
      svg('text', { x: x(i) + 3, y: H - bottom + 16, class: 'chart-label game' }, root, `game ${game}`);
    }
  });
  // The line through the decisions that have an equity; a decision without one keeps
  // the previous value.
  let last = 0;
  const values = decisions.map((d) => {
    if (typeof d.red_equity === 'number') last = d.red_equity;
    return last;
  });
  svg('polyline', { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '), class: 'chart-line' }, root);
  decisions.forEach((d, i) => {
    const skill = SKILL[d.skill];
    const cls = ['mark', d.side, d.kind === 'move' ? 'play' : 'cube', skill?.cls].filter(Boolean).join(' ');
    const c = svg('circle', { cx: x(i), cy: y(values[i]), r: skill ? 5.5 : 2.6, class: cls, 'data-n': d.n }, root);
    const lost = typeof d.equity_lost === 'number' && d.equity_lost > 0 ? `, ${signed(-d.equity_lost)}` : '';
    svg('title', {}, c, `game ${d.game}, ${decisionText(d, players)}${d.best && d.best !== d.played ? ` (best ${d.best})` : ''}${lost}${skill ? `: ${skill.word}` : ''}`);
    c.addEventListener('click', () => onPick(d.n));
  });
  return root;
}
