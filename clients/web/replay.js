// The replay of a finished match (/match/<id>): every decision of every game, one step at
// a time (the keys ← and →, Home and End, a slider, the game list), with GNU Backgammon's
// verdict and best play beside each decision when the match was analysed, and the
// analysis's equity chart, whose marks jump to their decision. The positions are the
// server's (GET /api/matches/<id>/replay, PROTOCOL.md "Match replay"): no rule here, the
// board is drawn with board.js and the last play marked with movelist.js.

import { drawBoard } from './board.js';
import { h, svg } from './dom.js';
import { SKILL, decisionText, equityChart, signed } from './analysis.js';
import { playPlaces } from './movelist.js';
import { formatDate, sayText, t, tNodes } from './i18n.js';

/** "No analysis: …" for an analysis that is unavailable or failed, with the server's reason when it gave one. */
function noAnalysisText(body) {
  const reason = body.reason_say ? sayText({ say: body.reason_say, text: body.reason }) : body.reason;
  return t('web.analysis.none', { made: reason == null ? 'no' : 'yes', reason: reason ?? '' });
}

/** What a step says, in words: "alice 31: 8/5 6/5", "bob doubles to 2", ... */
export function stepText(step, players) {
  const who = players?.[step.who] ?? step.who;
  const dice = Array.isArray(step.dice) ? step.dice.join('') : '';
  switch (step.what) {
    case 'start': return dice ? t('web.step.start', { name: who, dice }) : t('web.step.start_position');
    case 'play': return t('web.step.play', { name: who, dice, play: step.play });
    case 'pass': return t('web.step.pass', { name: who, dice });
    case 'double': return t('web.step.double', { name: who, value: String(step.cube?.value ?? '') });
    case 'take': return t('web.step.take', { name: who });
    case 'drop': return t('web.step.drop', { name: who });
    case 'resign_offer': return t('web.step.resign_offer', { name: who, kind: step.resign ?? 'none' });
    case 'resign_accept': return t('web.step.resign_accept', { name: who });
    case 'resign_reject': return t('web.step.resign_reject', { name: who });
    case 'forfeit': return t('web.step.forfeit', { name: who });
    default: return t('web.step.other', { name: who, what: step.what });
  }
}

/** "alice wins a gammon (2 points)" for a game's result. */
function resultText(result, players) {
  if (!result) return t('web.replay.not_finished');
  return t('web.replay.result', { name: players?.[result.winner] ?? result.winner, kind: result.kind, reason: result.reason ?? '', points: result.points });
}

/**
 * The analysis decision of each step (its index in `steps`), matched as the server
 * names them: a play by its game, side, Position ID and dice; a cube decision (double,
 * take, drop) by its game and its order among that game's decisions of that kind; a
 * missed double (no_double) goes with the play that followed it. Returns Map step
 * index -> [decisions] and Map decision n -> step index.
 */
export function matchDecisions(steps, decisions) {
  const byStep = new Map();
  const stepOf = new Map();
  const sameDice = (a, b) => Array.isArray(a) && Array.isArray(b) && [...a].sort().join() === [...b].sort().join();
  const counts = new Map(); // `${game}:${kind}` -> how many steps of it so far
  const used = new Set();
  steps.forEach((s, i) => {
    const found = [];
    if (s.what === 'play' && s.position_id) {
      for (const d of decisions) {
        if (used.has(d.n) || d.game !== s.game || d.side !== s.who || d.position_id !== s.position_id) continue;
        if (d.kind === 'move' && sameDice(d.dice, s.dice)) found.push(d);
        else if (d.kind === 'no_double') found.push(d);
      }
    } else if (['double', 'take', 'drop'].includes(s.what)) {
      const key = `${s.game}:${s.what}`;
      const k = counts.get(key) ?? 0;
      counts.set(key, k + 1);
      const d = decisions.filter((x) => x.game === s.game && x.kind === s.what)[k];
      if (d && !used.has(d.n)) found.push(d);
    }
    for (const d of found) {
      used.add(d.n);
      stepOf.set(d.n, i);
    }
    if (found.length) byStep.set(i, found);
  });
  return { byStep, stepOf };
}

/** The replay page, drawn into `root` (an element that is emptied). */
export class ReplayPage {
  /**
   * @param {HTMLElement} root where the page is drawn
   * @param {{onBack: () => void, onAnalysis: (id: number) => void, me: () => string|null,
   *   fetch?: typeof fetch, query?: () => string}} options onBack: the "back" link;
   *   onAnalysis: the "analysis" link; me: the player's name (their side is drawn at the
   *   bottom); query: the query string for a private match's reads ("?token=…")
   */
  constructor(root, { onBack, onAnalysis, me = () => null, fetch: fetchFn = (...a) => fetch(...a), query = () => '' }) {
    this.root = root;
    this.onBack = onBack;
    this.onAnalysis = onAnalysis;
    this.me = me;
    this.fetch = fetchFn;
    this.query = query;
    this.id = null;
    this.data = null; // the replay
    this.steps = []; // every step of every game, with its game number
    this.at = 0;
    this.decisions = null; // the analysis's decisions, once read
    this.byStep = new Map();
    this.stepOf = new Map();
    this.onKey = (e) => this.key(e);
  }

  /** Shows the replay of match `id`, at its first step (or `at`). */
  async show(id, at = 0) {
    this.hide();
    this.id = id;
    this.data = null;
    this.decisions = null;
    this.message('loading', t('web.replay.loading', { id: String(id) }));
    document.addEventListener('keydown', this.onKey);
    let body = null;
    let status = 0;
    try {
      const r = await this.fetch(`/api/matches/${encodeURIComponent(id)}/replay${this.query()}`);
      status = r.status;
      body = await r.json();
    } catch {
      body = null;
    }
    if (this.id !== id) return; // another page meanwhile
    if (status === 404 || !body?.games) {
      this.message(status === 404 ? 'missing' : 'error', (body?.message || body?.say ? sayText({ ...body, type: 'error' }) : null) ?? t('web.replay.unreadable', { id: String(id) }));
      return;
    }
    this.data = body;
    this.steps = body.games.flatMap((g) => g.steps.map((s, i) => ({ ...s, game: g.number, index: i })));
    this.at = Math.max(0, Math.min(this.steps.length - 1, at));
    this.draw();
    this.loadAnalysis(id);
  }

  /** Draws the page again (a new language), at the same step, with the chart. */
  redraw() {
    if (!this.data) {
      if (this.id !== null) this.message('loading', t('web.replay.loading', { id: String(this.id) }));
      return;
    }
    this.draw();
    if (this.id !== null) this.loadAnalysis(this.id);
  }

  /** Leaves the page: the keys are the table's again. */
  hide() {
    document.removeEventListener('keydown', this.onKey);
    this.id = null;
  }

  /** The analysis, when the match has one: the verdicts and the chart are added. */
  async loadAnalysis(id) {
    let body = null;
    try {
      const r = await this.fetch(`/api/matches/${encodeURIComponent(id)}/analysis${this.query()}`);
      if (r.ok) body = await r.json();
    } catch {
      body = null;
    }
    if (this.id !== id || body?.status !== 'done' || !Array.isArray(body.decisions)) {
      this.setAnalysisNote(body?.status === 'pending' ? t('web.replay.still_analysing')
        : body?.status === 'unavailable' || body?.status === 'failed' ? noAnalysisText(body) : '');
      return;
    }
    this.decisions = body.decisions;
    this.analysisPlayers = body.players;
    ({ byStep: this.byStep, stepOf: this.stepOf } = matchDecisions(this.steps, this.decisions));
    const box = this.root.querySelector('.replay-chart');
    if (box) {
      box.replaceChildren(
        h('h3', { text: t('web.analysis.by_decision') }),
        equityChart(this.decisions, body.players, (n) => this.stepOf.has(n) && this.go(this.stepOf.get(n))),
      );
    }
    this.setAnalysisNote('');
    this.drawStep();
  }

  setAnalysisNote(text) {
    const p = this.root.querySelector('.replay-analysis-note');
    if (p) p.textContent = text;
  }

  message(kind, text) {
    this.root.replaceChildren(h('section', { class: 'card replay', 'data-status': kind }, this.head(), h('p', { class: 'replay-message', text })));
  }

  head() {
    const back = h('button', { type: 'button', class: 'link', 'data-cmd': 'back', text: t('web.common.back') });
    back.addEventListener('click', () => this.onBack());
    const m = this.data?.match;
    const title = h('h2', { text: m ? t('web.replay.title', { red: m.players.red, black: m.players.black }) : t('web.analysis.title', { id: String(this.id) }) });
    const parts = [];
    if (m) {
      parts.push(m.length > 0 ? t('web.analysis.length', { length: m.length }) : t('web.replay.no_target'));
      if (m.variant === 'long') parts.push(t('web.variant.long'));
      parts.push(t('web.replay.final_score', { red: String(m.score.red), black: String(m.score.black) }));
      if (m.ended_at) parts.push(t('web.replay.ended', { when: formatDate(m.ended_at, { dateStyle: 'short', timeStyle: 'short' }) }));
    }
    const links = h('span', { class: 'replay-links' });
    if (m && m.variant !== 'long') {
      const a = h('a', { href: `/analysis/${this.id}`, 'data-cmd': 'analysis', text: t('web.account.analysis') });
      a.addEventListener('click', (e) => {
        e.preventDefault();
        this.onAnalysis(this.id);
      });
      links.append(a, ' · ');
    }
    links.append(h('a', { href: `/matches/${encodeURIComponent(this.id)}.mat${this.query()}`, text: t('web.analysis.mat') }));
    return h('div', { class: 'analysis-head' }, back, title, h('span', { class: 'muted', text: parts.join(' · ') }), links);
  }

  draw() {
    const n = this.steps.length;
    const section = h('section', { class: 'card replay', 'data-status': 'ready', 'data-steps': n });
    section.append(this.head());
    const board = svg('svg', { class: 'board', id: 'replay-board', role: 'img', 'aria-label': t('web.replay.board') });
    const slider = h('input', { type: 'range', min: 0, max: Math.max(0, n - 1), value: this.at, id: 'replay-slider',
      'aria-label': t('web.replay.step'), 'aria-valuetext': '' });
    slider.addEventListener('input', () => this.go(Number(slider.value)));
    const button = (cmd, text, label, to) => {
      const b = h('button', { type: 'button', 'data-cmd': cmd, 'aria-label': label, title: label, text });
      b.addEventListener('click', () => this.go(to()));
      return b;
    };
    const controls = h('div', { class: 'replay-controls' },
      button('replay-first', '«', t('web.replay.first'), () => 0),
      button('replay-back', '◀', t('web.replay.back'), () => this.at - 1),
      slider,
      button('replay-forward', '▶', t('web.replay.forward'), () => this.at + 1),
      button('replay-last', '»', t('web.replay.last'), () => n - 1));
    const games = h('ol', { class: 'replay-games' });
    for (const g of this.data.games) {
      const b = h('button', { type: 'button', class: 'link', 'data-game': g.number,
        text: t('web.replay.game', { number: String(g.number), red: String(g.score_before.red), black: String(g.score_before.black),
          crawford: g.crawford ? 'yes' : 'no', result: resultText(g.result, this.data.match.players) }) });
      b.addEventListener('click', () => this.go(this.steps.findIndex((s) => s.game === g.number)));
      const li = h('li', {}, b);
      if (g.problem) li.append(h('span', { class: 'error', text: ` (${g.problem})` }));
      games.append(li);
    }
    if (this.data.truncated) games.append(h('li', { class: 'muted', text: t('web.replay.truncated') }));
    section.append(
      h('div', { class: 'replay-body' },
        h('div', { class: 'replay-board-wrap' }, board),
        h('div', { class: 'replay-side' },
          h('p', { class: 'replay-where', id: 'replay-where' }),
          h('p', { class: 'replay-step', id: 'replay-step', 'aria-live': 'polite' }),
          controls,
          h('p', { class: 'muted small', text: t('web.replay.keys') }),
          h('div', { class: 'replay-verdict', id: 'replay-verdict' }),
          h('p', { class: 'muted replay-analysis-note' }),
          h('h3', { text: t('web.replay.games') }),
          games)),
      h('div', { class: 'replay-chart' }));
    this.root.replaceChildren(section);
    this.drawStep();
  }

  /** Goes to step `i` (clamped). */
  go(i) {
    if (!this.steps.length) return;
    this.at = Math.max(0, Math.min(this.steps.length - 1, i));
    this.drawStep();
  }

  /** ← → Home End, unless a field has the keys or another page is shown. */
  key(e) {
    if (!this.data || this.root.hidden || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t && (t.tagName === 'INPUT' && t.type !== 'range' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
    if (t?.id === 'replay-slider') return; // the slider moves by itself
    const to = { ArrowLeft: this.at - 1, ArrowRight: this.at + 1, Home: 0, End: this.steps.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }

  drawStep() {
    const step = this.steps[this.at];
    const section = this.root.querySelector('section.replay[data-status="ready"]');
    if (!step || !section) return;
    const m = this.data.match;
    const names = m.players;
    const me = this.me();
    const bottom = me === names.black ? 'black' : me === names.red ? 'red' : 'black';
    const played = step.what === 'play' || step.what === 'pass';
    drawBoard(this.root.querySelector('#replay-board'), {
      board: step.board,
      variant: m.variant,
      bottom,
      tutor: true,
      dice: Array.isArray(step.dice) && step.dice.length === 2 ? step.dice : null,
      diceSide: step.who,
      diceClass: played ? 'played' : '',
      // board.js draws an offer at twice the cube's value: the step gives the value offered.
      cube: step.cube?.offered_by ? { ...step.cube, value: step.cube.value / 2 } : step.cube,
      last: step.what === 'play' ? playPlaces(step.play, step.who, m.variant) : null,
    });
    const game = this.data.games.find((g) => g.number === step.game);
    const cube = step.cube ? step.cube.owner && step.cube.owner !== 'center' ? 'owned' : 'center' : 'none';
    this.root.querySelector('#replay-where').textContent = t('web.replay.where', {
      number: String(step.game), step: String(step.index + 1), steps: String(game?.steps.length ?? '?'),
      scored: game ? 'yes' : 'no', red: names.red, black: names.black,
      red_score: String(game?.score_before.red ?? ''), black_score: String(game?.score_before.black ?? ''),
      cube, value: String(step.cube?.value ?? ''), owner: cube === 'owned' ? names[step.cube.owner] : '',
      pips: step.pips ? 'yes' : 'no', red_pips: String(step.pips?.red ?? ''), black_pips: String(step.pips?.black ?? ''),
    });
    // The game's result after its last step: a sentence of its own, in its own element.
    const last = game && step.index === game.steps.length - 1 && game.result
      ? [' — ', h('span', { class: 'replay-result', text: resultText(game.result, names) })] : [];
    this.root.querySelector('#replay-step').replaceChildren(stepText(step, names), ...last);
    section.dataset.at = this.at;
    section.dataset.game = step.game;
    const slider = this.root.querySelector('#replay-slider');
    slider.value = this.at;
    slider.setAttribute('aria-valuetext', t('web.replay.step_value', { step: String(this.at + 1), steps: String(this.steps.length), text: stepText(step, names) }));
    for (const b of this.root.querySelectorAll('.replay-games button')) {
      b.setAttribute('aria-current', String(Number(b.dataset.game) === step.game));
    }
    this.drawVerdict(step);
  }

  /** gnubg's verdict on this step's decision, when there is one; its chart mark selected. */
  drawVerdict(step) {
    const box = this.root.querySelector('#replay-verdict');
    box.replaceChildren();
    for (const e of this.root.querySelectorAll('.replay-chart .selected')) e.classList.remove('selected');
    const found = this.byStep.get(this.at) ?? [];
    for (const d of found) {
      for (const e of this.root.querySelectorAll(`.replay-chart [data-n="${d.n}"]`)) e.classList.add('selected');
      const skill = SKILL[d.skill];
      const lost = typeof d.equity_lost === 'number' ? signed(-d.equity_lost) : '—';
      const best = d.best && d.best !== d.played ? 'play' : d.kind === 'move' ? 'best_play' : 'right_decision';
      box.append(h('p', { class: `verdict ${skill?.cls ?? 'fine'}`, 'data-n': d.n },
        ...tNodes('web.replay.verdict', { gnubg: h('strong', { text: 'GNU Backgammon' }), decision: decisionText(d, this.analysisPlayers), best, play: d.best ?? '', lost }),
        skill ? h('span', { class: `skill ${skill.cls}`, text: ` ${skill.word}` }) : null));
    }
    if (!found.length && this.decisions && (step.what === 'play' || step.what === 'double' || step.what === 'take' || step.what === 'drop')) {
      box.append(h('p', { class: 'muted', text: t('web.replay.no_verdict') }));
    }
  }
}
