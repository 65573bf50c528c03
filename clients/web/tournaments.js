// Tournaments (RULES.md S6) in the web client: the list (/tournaments, from GET
// /api/tournaments: upcoming, running, ended) and a tournament's page (/tournament/NAME:
// its rules in words, the players, Register / Withdraw, the standings, a knockout's
// bracket, each round's pairings with a link to watch the tables in play). The page reads
// GET /api/tournaments/NAME at once, and, signed in, sends `/tournament NAME`: the server
// answers with a `tournament` message and pushes one after every change, each drawn with
// update(). Register and Withdraw send `/register NAME` and `/withdraw NAME` to the lobby;
// the answers are `info` topic "tournament" or an `error` (answered()). The server
// decides everything: this module only draws the view it sends.

import { getJson, h, pageLink } from './dom.js';
import { formatDate, sayText, t, tNodes } from './i18n.js';

/** "knockout", "Swiss", "arena". */
export function kindText(kind) {
  return kind ? t('web.tournament.kind', { kind }) : '';
}

/** The matches of a tournament in words: "backgammon, 3 points". */
export function gameText(tm) {
  return t('web.tournament.game', { variant: tm.variant === 'long' ? 'long' : 'standard', points: tm.match });
}

/** A time as the page shows it: "27 Nov, 20:00" in the browser's time zone. */
export function timeText(ms) {
  if (!Number.isFinite(ms) || ms <= 0) return '';
  return formatDate(ms, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** The tournaments of a list in the page's three groups, each in its order. */
export function groupTournaments(list) {
  const groups = { upcoming: [], running: [], ended: [] };
  for (const t of list ?? []) {
    if (t.status === 'registering') groups.upcoming.push(t);
    else if (t.status === 'running') groups.running.push(t);
    else groups.ended.push(t);
  }
  groups.upcoming.sort((a, b) => a.start - b.start);
  groups.running.sort((a, b) => a.start - b.start);
  groups.ended.sort((a, b) => b.start - a.start);
  return groups;
}

/** The status of a tournament in words ("registering: starts 27 Nov, 20:00"). */
export function statusText(tm) {
  switch (tm.status) {
    case 'registering': return t('web.tournament.status_registering', { when: timeText(tm.start) });
    case 'running': return tm.round > 0 ? t('web.tournament.status_round', { round: String(tm.round) }) : t('web.tournament.status_running');
    case 'finished': return t('web.tournament.status_finished');
    case 'cancelled': return tm.end_reason && tm.end_reason !== 'cancelled'
      ? t('web.tournament.status_cancelled_why', { reason: sayText({ say: tm.end_reason_say, text: tm.end_reason }) }) : t('web.tournament.status_cancelled');
    default: return String(tm.status ?? '');
  }
}

/** The result of a pairing in words: "alice won", "in play", "bye", ... */
export function pairingResult(p) {
  if (p.how === 'bye' || p.black === null || p.black === undefined) return t('web.tournament.bye');
  if (p.how === 'unfinished') return t('web.tournament.unfinished');
  if (!p.winner) return t('web.tournament.in_play');
  if (p.how === 'withdrawn') return t('web.tournament.won_withdrew', { name: p.winner });
  if (p.how === 'adjudicated') {
    return p.reason ? t('web.tournament.won_adjudication_why', { name: p.winner, reason: p.reason }) : t('web.tournament.won_adjudication', { name: p.winner });
  }
  return p.won_by && p.won_by !== 'single' ? t('web.tournament.won_by', { name: p.winner, by: p.won_by }) : t('web.tournament.won', { name: p.winner });
}

/**
 * What `me` may do in tournament `view`: 'register' (open for registration, not in it),
 * 'withdraw' (registered or playing, not withdrawn), or null.
 */
export function registrationOf(view, me) {
  if (!view || !me) return null;
  const key = me.toLowerCase();
  const entrant = (view.entrants ?? []).find((e) => String(e.name).toLowerCase() === key);
  const playing = entrant ? !entrant.withdrawn : (view.players ?? []).some((n) => String(n).toLowerCase() === key);
  if (view.status === 'registering') return playing ? 'withdraw' : 'register';
  if (view.status === 'running' && playing) return 'withdraw';
  return null;
}

/** A knockout round's name: "Final", "Semi-finals", "Quarter-finals", else "Round N". */
export function knockoutRoundName(round, players) {
  const total = players > 1 ? Math.ceil(Math.log2(players)) : 1;
  const left = total - round;
  if (left === 0) return t('web.tournament.final');
  if (left === 1) return t('web.tournament.semi_finals');
  if (left === 2) return t('web.tournament.quarter_finals');
  return t('web.tournament.round', { round: String(round) });
}

/** A cell of `tr` holding `content` (text or a node). */
function cell(tr, content, cls = null, tag = 'td') {
  const td = h(tag, { class: cls });
  td.append(content);
  tr.append(td);
  return td;
}

/**
 * The list of tournaments (/tournaments) in `root` (a <main>): upcoming, running and
 * ended, each a table of links to the tournament's page. `pages`: {tournament(name),
 * back()}.
 */
export class TournamentList {
  constructor(root, pages) {
    this.root = root;
    this.pages = pages;
    this.timer = null;
  }

  /** Draws the list now and every 10 s while it is shown. */
  show() {
    clearInterval(this.timer);
    this.load();
    this.timer = setInterval(() => this.load(), 10000);
  }

  /** Stops refreshing. */
  hide() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async load() {
    let list = null;
    let error = '';
    try {
      list = (await getJson('/api/tournaments')).tournaments ?? [];
    } catch (e) {
      error = e.message;
    }
    if (this.timer === null && this.root.hidden) return; // left meanwhile
    this.draw(list ?? [], error);
  }

  draw(list, error = '') {
    const back = h('button', { class: 'link back', type: 'button', text: t('web.common.back') });
    back.addEventListener('click', () => this.pages.back());
    const groups = groupTournaments(list);
    const section = h('section', { class: 'card page tournaments-page' },
      h('div', { class: 'page-head' }, back, h('h2', { text: t('web.tournaments.title') })));
    const titles = { upcoming: t('web.tournaments.upcoming'), running: t('web.tournaments.running'), ended: t('web.tournaments.ended') };
    const empty = {
      upcoming: t('web.tournaments.none_upcoming'),
      running: t('web.tournaments.none_running'),
      ended: t('web.tournaments.none_ended'),
    };
    for (const [group, items] of Object.entries(groups)) {
      const id = `tournaments-${group}`;
      section.append(h('h3', { id: `${id}-title`, text: titles[group] }));
      if (items.length === 0) {
        section.append(h('p', { class: 'muted', id, text: empty[group] }));
        continue;
      }
      const when = group === 'upcoming' ? t('web.tournaments.col_starts') : group === 'running' ? t('web.tournaments.col_round') : t('web.tournaments.col_result');
      const cols = [t('web.tournaments.col_tournament'), t('web.tournaments.col_kind'), t('web.tournaments.col_matches'), t('web.tournaments.col_players'), when];
      const table = h('table', { class: 'list', id, 'aria-labelledby': `${id}-title` },
        h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col', text: c })))));
      const body = h('tbody');
      for (const tm of items) {
        const tr = h('tr', { 'data-name': tm.name, 'data-status': tm.status });
        cell(tr, pageLink(`/tournament/${encodeURIComponent(tm.name)}`, tm.name, () => this.pages.tournament(tm.name), 'tournament'));
        cell(tr, kindText(tm.kind));
        cell(tr, gameText(tm));
        cell(tr, tm.max ? t('web.tournaments.registered_max', { registered: String(tm.registered), max: String(tm.max) })
          : t('web.tournaments.registered', { registered: String(tm.registered) }), 'num');
        cell(tr, group === 'upcoming' ? timeText(tm.start) : group === 'running' ? String(tm.round)
          : t('web.tournaments.ended_status', { status: tm.status }));
        body.append(tr);
      }
      table.append(body);
      section.append(h('div', { class: 'table-scroll' }, table));
    }
    section.append(h('p', { class: 'muted small', text: t('web.tournaments.about') }));
    section.append(h('p', { class: 'error', role: 'alert', text: error }));
    this.root.replaceChildren(section);
    this.root.dataset.loaded = 'yes';
  }
}

/**
 * A tournament's page (/tournament/NAME) in `root` (a <main>). `env`: {me() (our name or
 * null), sendLine(text) (to the lobby; the id sent, or null), back(), openTable(name),
 * openPlayer(name), openReplay(id), signIn() (the lobby's sign-in form)}.
 */
export class TournamentPage {
  constructor(root, env) {
    this.root = root;
    this.env = env;
    this.name = null; // the tournament shown
    this.view = null; // its last view
    this.live = false; // a `tournament` message came for it (newer than the API's)
    this.sent = null; // the id of our last /register or /withdraw
    this.note = ''; // the answer to it
    this.noteError = false;
  }

  /** Whether `name` is the tournament on the page (names compare without case). */
  isShowing(name) {
    return this.name !== null && String(name).toLowerCase() === this.name.toLowerCase();
  }

  /** Shows tournament `name`: its view from the API, then the pushed ones. */
  async show(name) {
    this.name = name;
    this.view = null;
    this.live = false;
    this.note = '';
    this.draw();
    this.subscribe();
    try {
      const view = await getJson(`/api/tournaments/${encodeURIComponent(name)}`);
      if (this.isShowing(name) && !this.live) {
        this.view = view;
        this.draw();
      }
    } catch (e) {
      if (this.isShowing(name) && !this.live) this.draw(e.message);
    }
  }

  /** Asks the server for the tournament's news (again after a reconnection). */
  subscribe() {
    if (this.name !== null && this.env.me()) this.env.sendLine(`/tournament ${this.name}`);
  }

  /** Leaves the page. */
  hide() {
    this.name = null;
    this.view = null;
  }

  /** A `tournament` message's view: drawn when it is the tournament shown. */
  update(view) {
    if (!view || !this.isShowing(view.name)) return;
    this.view = view;
    this.live = true;
    this.draw();
  }

  /**
   * An `info` topic "tournament" or an `error` that answers our /register or /withdraw
   * (`re` is its id): its sentence under the buttons. Returns whether it was ours.
   */
  answered(msg) {
    if (this.sent === null || msg.re !== this.sent) return false;
    this.sent = null;
    this.note = sayText(msg);
    this.noteError = msg.type === 'error';
    this.draw();
    return true;
  }

  /** Sends /register or /withdraw for the tournament shown. */
  act(what) {
    const id = this.env.sendLine(`/${what} ${this.view?.name ?? this.name}`);
    if (id !== null) {
      this.sent = id;
      this.note = what === 'register' ? t('web.tournament.registering') : t('web.tournament.withdrawing');
      this.noteError = false;
      this.draw();
    }
  }

  draw(error = '') {
    const v = this.view;
    const back = h('button', { class: 'link back', type: 'button', text: t('web.common.back') });
    back.addEventListener('click', () => this.env.back());
    const head = h('div', { class: 'page-head' }, back, h('h2', { id: 'tournament-name', text: v?.name ?? this.name ?? '' }));
    if (v) head.append(h('span', { id: 'tournament-status', class: 'muted', 'data-status': v.status, text: statusText(v) }));
    const section = h('section', { class: 'card page tournament-page' }, head);
    this.root.replaceChildren(section);
    this.root.dataset.loaded = v ? v.name : '';
    if (!v) {
      section.append(h('p', { class: error ? 'error' : 'muted', role: error ? 'alert' : null, text: error || t('web.tournament.loading') }));
      return;
    }
    this.root.dataset.status = v.status;
    section.append(h('p', { id: 'tournament-rules', class: 'rules', text: sayText({ say: v.rules_say, text: v.rules ?? '' }) }));
    section.append(this.facts(v));
    section.append(this.registration(v));
    if (v.status === 'finished' && v.standings?.length) {
      const first = v.standings.find((s) => s.rank === 1);
      if (first) section.append(h('p', { id: 'tournament-winner', class: 'winner', text: t('web.tournament.winner', { name: first.name }) }));
    }
    if (v.standings?.length && v.status !== 'registering') section.append(...this.standings(v));
    if (v.kind === 'knockout' && (v.bracket ?? v.rounds)?.length) section.append(...this.bracket(v));
    else if (v.rounds?.length) section.append(...this.rounds(v));
    section.append(...this.players(v));
  }

  /** The terms: kind, matches, clock, start, size, creator. */
  facts(v) {
    const terms = v.terms ?? {};
    const dl = h('dl', { class: 'facts' });
    const add = (term, text) => dl.append(h('dt', { text: term }), h('dd', { text }));
    let kind = kindText(v.kind);
    if (v.kind === 'swiss' && terms.rounds) kind = t('web.tournament.kind_rounds', { kind: v.kind, rounds: terms.rounds });
    if (v.kind === 'arena' && terms.minutes) kind = t('web.tournament.kind_minutes', { kind: v.kind, minutes: terms.minutes });
    add(t('web.tournament.fact_kind'), kind);
    add(t('web.tournament.fact_matches'), t('web.tournament.matches', { variant: v.variant === 'long' ? 'long' : 'standard', points: v.match, clock: terms.clock ? 'yes' : 'no',
      minutes: String(terms.clock?.minutes ?? ''), delay: String(terms.clock?.delay ?? ''), rated: terms.rated === false ? 'no' : 'yes' }));
    add(v.status === 'registering' ? t('web.tournament.fact_starts') : t('web.tournament.fact_started'),
      timeText(v.status === 'registering' ? v.start : v.started || v.start));
    if (v.ended) add(t('web.tournament.fact_ended'), timeText(v.ended));
    add(t('web.tournament.fact_players'), t('web.tournament.players_count', { registered: String(v.registered),
      max: v.max ? String(v.max) : 'none', min: terms.min ? String(terms.min) : 'none' }));
    add(t('web.tournament.fact_creator'), v.creator ?? '');
    return dl;
  }

  /** Register / Withdraw and the answer, or why there is none. */
  registration(v) {
    const box = h('div', { class: 'registration', id: 'tournament-registration' });
    const me = this.env.me();
    const can = registrationOf(v, me);
    if (!me && v.status === 'registering') {
      const sign = h('button', { type: 'button', 'data-cmd': 'sign-in', text: t('web.tournament.sign_in') });
      sign.addEventListener('click', () => this.env.signIn());
      box.append(sign, ' ', h('span', { class: 'muted', text: t('web.tournament.sign_in_how') }));
    } else if (can) {
      const b = h('button', { type: 'button', class: can === 'register' ? 'primary' : '', 'data-cmd': can,
        text: can === 'register' ? t('web.tournament.register') : t('web.tournament.withdraw') });
      b.addEventListener('click', () => this.act(can));
      box.append(b);
      if (can === 'withdraw') {
        box.append(' ', h('span', { class: 'muted', text: v.status === 'running'
          ? t('web.tournament.playing')
          : t('web.tournament.registered') }));
      }
    }
    box.append(h('p', { id: 'tournament-answer', role: 'status', class: this.noteError ? 'error' : 'muted', text: this.note }));
    return box;
  }

  /** The standings table (final results once finished). */
  standings(v) {
    const arena = v.kind === 'arena';
    const title = h('h3', { id: 'tournament-standings-title', text: v.status === 'finished' ? t('web.tournament.final_results') : t('web.tournament.standings') });
    const cols = [t('web.tournament.col_rank'), t('web.tournament.col_player'), t('web.tournament.col_wins'), t('web.tournament.col_points'),
      t('web.tournament.col_buchholz'), ...(arena ? [t('web.tournament.col_streak')] : [])];
    const table = h('table', { class: 'list', id: 'tournament-standings', 'aria-labelledby': 'tournament-standings-title' },
      h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col', text: c })))));
    const body = h('tbody');
    for (const s of v.standings) {
      const tr = h('tr', { 'data-name': s.name, 'data-rank': s.rank });
      cell(tr, String(s.rank), 'num');
      const name = h('button', { type: 'button', class: 'link player-link', text: s.name });
      name.addEventListener('click', () => this.env.openPlayer(s.name));
      cell(tr, name);
      cell(tr, String(s.wins), 'num');
      cell(tr, String(s.points), 'num');
      cell(tr, String(s.buchholz), 'num');
      if (arena) cell(tr, String(s.streak ?? 0), 'num');
      body.append(tr);
    }
    table.append(body);
    return [title, h('div', { class: 'table-scroll' }, table)];
  }

  /** A pairing's links: watch the table in play, or the finished match's replay. */
  links(p) {
    const span = h('span', { class: 'match-links' });
    if (p.table && !p.winner && p.how !== 'bye' && p.how !== 'unfinished') {
      span.append(pageLink(`/table/${encodeURIComponent(p.table)}`, t('web.tournament.watch', { table: p.table }), () => this.env.openTable(p.table), 'watch'));
    } else if (p.match_id && p.how === 'played') {
      span.append(pageLink(`/match/${p.match_id}`, t('web.tournament.replay'), () => this.env.openReplay(p.match_id), 'replay'));
    }
    return span;
  }

  /** A knockout's bracket: one column per round, each match with its result. */
  bracket(v) {
    const rounds = v.bracket ?? v.rounds;
    const size = (v.entrants ?? []).length || v.registered;
    const list = h('ol', { class: 'bracket', id: 'tournament-bracket', 'aria-labelledby': 'tournament-bracket-title' });
    rounds.forEach((pairings, i) => {
      const title = knockoutRoundName(i + 1, size);
      const matches = h('ul', { class: 'bracket-round', 'aria-label': title });
      for (const p of pairings) {
        const who = (name) => h('span', { class: name && name === p.winner ? 'won' : '', text: name ?? '—' });
        matches.append(h('li', { class: 'bracket-match', 'data-table': p.table ?? '' },
          ...(p.black ? tNodes('web.tournament.pairing', { red: who(p.red), black: who(p.black) }) : [who(p.red), ' ']),
          h('span', { class: 'muted result', text: ` · ${pairingResult(p)}` }), ' ', this.links(p)));
      }
      list.append(h('li', {}, h('h4', { text: title }), matches));
    });
    return [h('h3', { id: 'tournament-bracket-title', text: t('web.tournament.bracket') }), list];
  }

  /** Each round's pairings (Swiss, arena), newest first. */
  rounds(v) {
    const out = [h('h3', { text: v.kind === 'arena' ? t('web.tournament.matches_title') : t('web.tournament.rounds') })];
    for (let i = v.rounds.length - 1; i >= 0; i -= 1) {
      const id = `tournament-round-${i + 1}`;
      if (v.kind !== 'arena') out.push(h('h4', { id: `${id}-title`, text: t('web.tournament.round', { round: String(i + 1) }) }));
      const table = h('table', { class: 'list pairings', id, 'aria-labelledby': v.kind !== 'arena' ? `${id}-title` : null,
        'aria-label': v.kind === 'arena' ? t('web.tournament.matches_label') : null },
        h('thead', {}, h('tr', {}, ...[t('web.tournament.col_table'), t('web.side.red'), t('web.side.black'), t('web.tournament.col_result'),
          t('web.tournament.col_links')].map((c) => h('th', { scope: 'col', text: c })))));
      const body = h('tbody');
      for (const p of [...v.rounds[i]].reverse()) {
        const tr = h('tr', { 'data-table': p.table ?? '' });
        cell(tr, p.table ?? '—');
        cell(tr, p.red);
        cell(tr, p.black ?? '—');
        cell(tr, pairingResult(p));
        cell(tr, this.links(p));
        body.append(tr);
      }
      table.append(body);
      out.push(h('div', { class: 'table-scroll' }, table));
    }
    return out;
  }

  /** The players, with the rating they registered with; the withdrawn marked. */
  players(v) {
    const list = h('ul', { class: 'tournament-players', id: 'tournament-players', 'aria-labelledby': 'tournament-players-title' });
    const entrants = v.entrants ?? (v.players ?? []).map((name) => ({ name }));
    for (const e of entrants) {
      const li = h('li', { 'data-name': e.name });
      const name = h('button', { type: 'button', class: 'link player-link', text: e.name });
      name.addEventListener('click', () => this.env.openPlayer(e.name));
      li.append(name);
      if (typeof e.rating === 'number') li.append(' ', h('span', { class: 'rating', text: e.rating.toFixed(0) }));
      if (e.withdrawn) li.append(' ', h('span', { class: 'muted', text: t('web.tournament.withdrew') }));
      list.append(li);
    }
    if (entrants.length === 0) list.append(h('li', { class: 'muted', text: t('web.tournament.nobody') }));
    return [h('h3', { id: 'tournament-players-title', text: t('web.tournament.players', { count: v.registered }) }), list];
  }
}
