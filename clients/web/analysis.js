// The analysis page of a finished match (#analysis/<id>): GNU Backgammon's summary per
// player, the list of errors and blunders (pick one to see the board before and after
// it), and an SVG chart of the match: red's equity at each decision, with the errors
// marked. Everything comes from GET /api/matches/<id>/analysis (protocol/PROTOCOL.md,
// "Match analysis"); while the analysis is pending the page asks again every few
// seconds. No rules here: the boards are the server's, drawn with board.js.

import { drawBoard } from './board.js';
import { h, pageLink, svg } from './dom.js';
import { sayText, t } from './i18n.js';
import { prText } from './account.js';

/** How often a pending analysis is asked for again, in milliseconds. */
const POLL_MS = 2000;
/** The chart's equity range: beyond it a value is drawn at the edge. */
const CLIP = 1.2;

/** gnubg's words for a decision's skill, as the page shows them. */
export const SKILL = {
  doubtful: { cls: 'doubtful', get word() { return t('web.skill.doubtful'); } },
  bad: { cls: 'error', get word() { return t('web.skill.error'); } },
  'very bad': { cls: 'blunder', get word() { return t('web.skill.blunder'); } },
};

const fixed = (x, n = 1) => (typeof x === 'number' ? x.toFixed(n) : '—');
export const signed = (x, n = 3) => (typeof x === 'number' ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(n)}` : '—');

/** GNU Backgammon's word for a player's play ("World class", "Casual player"), in the page's language. */
function ratingWord(word) {
  if (!word) return '—';
  return t('analysis.rating', { rating: String(word).toLowerCase().replace(/!/g, '').trim().replace(/\s+/g, '_') });
}

/** "alice 42: 24/22 5/1" or "alice drops" for a decision. */
export function decisionText(d, players) {
  const who = players?.[d.side]?.name ?? d.side;
  if (d.kind === 'move') return t('web.decision.move', { name: who, dice: d.dice?.join('') ?? '', play: d.played });
  if (d.kind === 'no_double') return t('web.decision.no_double', { name: who });
  if (d.kind === 'double') return t('web.decision.double', { name: who });
  if (d.kind === 'take') return t('web.decision.take', { name: who });
  if (d.kind === 'drop') return t('web.decision.drop', { name: who });
  return t('web.decision.other', { name: who, kind: d.kind });
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
    this.drawMessage('loading', t('web.analysis.loading', { id: String(id) }));
    this.load();
  }

  /** Draws the page again (a new language): the analysis, or the last message. */
  redraw() {
    if (this.data) this.draw();
    else if (this.id !== null) this.drawMessage('loading', t('web.analysis.loading', { id: String(this.id) }));
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
      this.drawMessage('missing', (body?.message || body?.say ? sayText({ ...body, type: 'error' }) : null) ?? t('web.analysis.missing', { id: String(id) }));
      return;
    }
    if (!body || status !== 200) {
      this.drawMessage('error', t('web.analysis.unreadable'));
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
    const back = h('button', { type: 'button', class: 'link', 'data-cmd': 'back', text: t('web.common.back') });
    back.addEventListener('click', () => this.onBack());
    const title = h('h2', { text: t('web.analysis.title', { id: String(this.id) }) });
    const parts = [];
    const m = d?.match;
    if (m) {
      parts.push(t('web.analysis.players', { red: m.players.red, black: m.players.black }));
      parts.push(m.length > 0 ? t('web.analysis.length', { length: m.length }) : m.variant === 'long' ? t('web.variant.long') : t('web.analysis.money'));
      parts.push(t('web.analysis.final', { red: String(m.score.red), black: String(m.score.black) }));
      if (m.table) parts.push(t('web.analysis.table', { table: m.table }));
    }
    const mat = h('a', {
      href: `/matches/${encodeURIComponent(this.id)}.mat${this.query()}`,
      text: t('web.analysis.mat'),
    });
    const links = h('span', { class: 'replay-links' });
    if (this.onReplay) {
      const id = this.id;
      links.append(pageLink(`/match/${id}`, t('web.analysis.replay'), () => this.onReplay(id), 'replay'), ' · ');
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
      this.drawMessage('pending', t('web.analysis.pending'));
      return;
    }
    if (d.status !== 'done') {
      const reason = d.reason_say ? sayText({ say: d.reason_say, text: d.reason }) : d.reason;
      this.drawMessage(d.status, t('web.analysis.none', { made: reason == null ? 'no' : 'yes', reason: reason ?? '' }));
      return;
    }
    const section = h('section', { class: 'card analysis', 'data-status': 'done' }, this.head());
    section.append(h('p', { class: 'muted', text: t('web.analysis.about', { level: d.level }) }));
    section.append(this.summary());
    section.append(h('h3', { text: t('web.analysis.by_decision') }));
    section.append(this.chart());
    const errors = d.decisions.filter((x) => x.skill === 'bad' || x.skill === 'very bad');
    section.append(h('h3', { text: t('web.analysis.errors', { count: errors.length }) }));
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
      [t('web.analysis.row_pr'), (x) => (typeof x.pr === 'number' ? prText(x.pr, x.pr_band) : '—')],
      [t('web.analysis.row_error_rate'), (x) => fixed(x.error_rate)],
      [t('web.analysis.row_snowie'), (x) => fixed(x.snowie_error_rate)],
      [t('web.analysis.row_rating'), (x) => ratingWord(x.rating)],
      [t('web.analysis.row_checker'), (x) => `${x.checker.errors}, ${x.checker.blunders}`],
      [t('web.analysis.row_checker_rate'), (x) => `${fixed(x.checker.error_rate)} (${ratingWord(x.checker.rating)})`],
      [t('web.analysis.row_cube'), (x) => `${x.cube.errors}, ${x.cube.blunders}`],
      [t('web.analysis.row_cube_rate'), (x) => (x.cube.close ? `${fixed(x.cube.error_rate)} (${ratingWord(x.cube.rating)})` : '—')],
      [t('web.analysis.row_luck'), (x) => signed(x.luck.total)],
    ];
    const table = h('table', { class: 'analysis-summary' });
    const head = h('tr', {}, h('th', {}, h('span', { class: 'visually-hidden', text: t('web.analysis.figure') })));
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
    if (!errors.length) return h('p', { class: 'muted', text: t('web.analysis.no_errors') });
    const ol = h('ol', { class: 'analysis-errors' });
    for (const d of errors) {
      const skill = SKILL[d.skill];
      const b = h('button', { type: 'button', class: `link error-item ${skill.cls}`, 'data-n': d.n });
      b.append(
        h('span', { class: 'error-where', text: t('web.analysis.game', { number: String(d.game) }) }),
        ` ${decisionText(d, this.data.players)}`,
        d.best ? ' ' : null,
        d.best ? h('span', { class: 'muted', text: t('web.analysis.best_play', { play: d.best }) }) : null,
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
      h('h3', { text: t('web.analysis.selected', { number: String(d.game), decision: decisionText(d, players) }) }),
      h('p', {}, skill
        ? t('web.analysis.verdict_skill', { best: d.best ?? '—', lost, skill: skill.word, name: players[d.side].name, equity: signed(d.equity) })
        : t('web.analysis.verdict', { best: d.best ?? '—', lost, name: players[d.side].name, equity: signed(d.equity) })),
      h('p', { class: 'muted ids', text: t('web.analysis.ids', { position: d.position_id, match: d.match_id }) }),
    );
    const boards = h('div', { class: 'analysis-boards' });
    const drawOne = (label, board, dice) => {
      const fig = h('figure', { class: 'analysis-board' });
      const s = svg('svg', { class: 'board small', role: 'img', 'aria-label': label });
      drawBoard(s, { board, variant: 'standard', bottom: d.side, tutor: true, dice, diceSide: d.side });
      fig.append(s, h('figcaption', { text: label }));
      boards.append(fig);
    };
    drawOne(d.kind === 'move' ? t('web.analysis.before') : t('web.analysis.position'), d.board_before, d.kind === 'move' ? d.dice : null);
    if (d.board_after) drawOne(t('web.analysis.after', { play: d.played }), d.board_after, null);
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
    'aria-label': t('web.analysis.chart') });
  svg('rect', { x: left, y: top, width: W - left - right, height: H - top - bottom, class: 'chart-bed' }, root);
  for (const v of [1, 0.5, 0, -0.5, -1]) {
    svg('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: v === 0 ? 'chart-zero' : 'chart-grid' }, root);
    svg('text', { x: left - 6, y: y(v) + 4, class: 'chart-label' }, root, signed(v, 1));
  }
  svg('text', { x: left + 4, y: top + 12, class: 'chart-side red' }, root, t('web.analysis.red_ahead', { name: players.red.name }));
  svg('text', { x: left + 4, y: H - bottom - 6, class: 'chart-side black' }, root, t('web.analysis.black_ahead', { name: players.black.name }));
  // Game boundaries.
  let game = 0;
  decisions.forEach((d, i) => {
    if (d.game !== game) {
      game = d.game;
      svg('line', { x1: x(i), x2: x(i), y1: top, y2: H - bottom, class: 'chart-game' }, root);
      svg('text', { x: x(i) + 3, y: H - bottom + 16, class: 'chart-label game' }, root, t('web.analysis.game', { number: String(game) }));
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
    const shown = typeof d.equity_lost === 'number' && d.equity_lost > 0;
    const markArgs = {
      number: String(d.game), decision: decisionText(d, players), best: d.best && d.best !== d.played ? 'yes' : 'no', play: d.best ?? '',
      lost_shown: shown ? 'yes' : 'no', lost: shown ? signed(-d.equity_lost) : '',
    };
    svg('title', {}, c, skill ? t('web.analysis.mark_skill', { ...markArgs, skill: skill.word }) : t('web.analysis.mark', markArgs));
    c.addEventListener('click', () => onPick(d.n));
  });
  return root;
}
