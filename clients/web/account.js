// Accounts in the web client (issue 12): how ratings are shown next to names, the
// player page (ratings, PR and history, from GET /api/players/NAME and .../matches) and
// the leaderboard (GET /api/ratings, with each player's PR and a sort by it: S7). Everything here reads what the server sends; the
// password typed in the login form is never stored (only the resume token is).

import { getJson, pageLink } from './dom.js';
import { formatDate, t } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** The small "computer" label after a computer player's name (issue 14: bots have accounts). */
function botMark() {
  const b = document.createElement('span');
  b.className = 'bot-mark';
  b.textContent = t('web.account.computer');
  return b;
}

/** A rating as players read it: two decimals ("1517.32"). */
export function ratingText(rating) {
  return typeof rating === 'number' ? rating.toFixed(2) : '';
}

/**
 * A performance rating as players read it (RULES.md S7): two decimals and its band,
 * "5.21 (advanced)"; '' when there is none (null: nothing analysed yet).
 */
export function prText(pr, band) {
  if (typeof pr !== 'number') return '';
  return band ? t('web.account.pr', { pr: pr.toFixed(2), band: String(band).replace(/ /g, '_') }) : pr.toFixed(2);
}

/** A rating change with its sign ("+17.32", "-17.32"). */
export function changeText(change) {
  const shown = Math.round(change * 100) / 100;
  return `${shown >= 0 ? '+' : '-'}${Math.abs(shown).toFixed(2)}`;
}

/**
 * A name, with its rating in a span.rating when it has one (registered players; guests
 * have none), as a button that calls `onOpen(name, button)` when `onOpen` is given (the
 * player's page, or the name's menu at a table).
 */
export function nameWithRating(name, rating, onOpen = null) {
  const el = document.createElement(onOpen ? 'button' : 'span');
  if (onOpen) {
    el.type = 'button';
    el.className = 'link player-link';
    el.addEventListener('click', () => onOpen(name, el));
  }
  el.dataset.name = name;
  el.append(name);
  if (typeof rating === 'number') {
    const r = document.createElement('span');
    r.className = 'rating';
    r.textContent = ratingText(rating);
    el.append(' ', r);
  }
  return el;
}

/** The lines of a rated match_over event: "alice 1500.00 → 1517.32 (+17.32)". */
export function ratingChanges(event) {
  const out = [];
  for (const side of ['red', 'black']) {
    const r = event?.ratings?.[side];
    if (!r) continue;
    out.push({ side, name: r.name, text: t('web.account.rating_change', { name: r.name, before: ratingText(r.before), after: ratingText(r.after), change: changeText(r.change) }), change: r.change });
  }
  return out;
}

function cell(tr, text, cls = '') {
  const td = document.createElement('td');
  if (text instanceof Node) td.append(text);
  else td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

/** When a player was last seen ("2026-11-27 20:00" in English), the player's way. */
function lastSeenText(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return formatDate(d, { dateStyle: 'short', timeStyle: 'short' });
}

/**
 * Appends rows for `matches` (GET .../matches) of the player to the history table: date,
 * opponent, match, result, rating, PR (S7; "—" until analysed), and the match's replay,
 * analysis (backgammon only) and .mat links. `pages` opens a player's page, a replay, an analysis.
 */
function addHistoryRows(body, matches, pages) {
  for (const m of matches) {
    const tr = document.createElement('tr');
    tr.dataset.match = m.match_id;
    cell(tr, m.ended_at ? formatDate(m.ended_at, { dateStyle: 'short' }) : '');
    cell(tr, nameWithRating(m.opponent, undefined, (name) => pages.player(name)));
    cell(tr, t('web.account.history_match', { kind: m.kind, length: m.length ?? 0, variant: m.variant === 'long' ? 'long' : 'standard' }));
    const mine = m.score?.[m.side] ?? 0;
    const theirs = m.score?.[m.side === 'red' ? 'black' : 'red'] ?? 0;
    cell(tr, t('web.account.result', { result: m.won === true ? 'won' : m.won === false ? 'lost' : 'level', mine: String(mine), theirs: String(theirs) }));
    if (m.rating) {
      const td = cell(tr, t('web.account.rating_after', { rating: ratingText(m.rating.after), change: changeText(m.rating.change) }), 'num');
      td.classList.add(m.rating.change >= 0 ? 'change-up' : 'change-down');
    } else {
      cell(tr, t('web.account.unrated'), 'muted');
    }
    // S7: the player's PR in the match once GNU Backgammon has analysed it.
    if (typeof m.pr === 'number') cell(tr, prText(m.pr, m.pr_band), 'num pr');
    else cell(tr, '—', 'muted pr');
    const links = document.createElement('span');
    links.className = 'match-links';
    links.append(pageLink(`/match/${m.match_id}`, t('web.account.replay'), () => pages.replay(m.match_id), 'replay'));
    if (m.variant !== 'long') {
      links.append(' · ', pageLink(`/analysis/${m.match_id}`, t('web.account.analysis'), () => pages.analysis(m.match_id), 'analysis'));
    }
    const a = document.createElement('a');
    a.href = m.url;
    a.textContent = '.mat';
    a.title = t('web.account.mat_title');
    links.append(' · ', a);
    cell(tr, links);
    body.appendChild(tr);
  }
}

/**
 * Fills the player page for `name`: its ratings, its PR over the last 30 days and all
 * time (S7: the sums of its analysed matches), and its last matches (10 a page,
 * "older matches" for the next). `pages` opens the pages its links lead to:
 * {player(name), replay(id), analysis(id)}.
 */
export async function showPlayer(name, pages) {
  $('player-name').textContent = name;
  $('player-status').textContent = '';
  $('player-error').textContent = '';
  $('player-ratings').querySelector('tbody').replaceChildren();
  $('player-pr').querySelector('tbody').replaceChildren();
  $('player-pr').hidden = true;
  const history = $('player-history').querySelector('tbody');
  history.replaceChildren();
  $('player-more').hidden = true;
  $('player-empty').hidden = true;
  const page = $('player');
  page.dataset.loaded = '';
  const path = `/api/players/${encodeURIComponent(name)}`;
  try {
    const p = await getJson(path);
    $('player-name').textContent = p.name;
    if (!p.registered) {
      $('player-status').textContent = t('web.player.guest');
      page.dataset.loaded = p.name;
      return;
    }
    if (p.bot) {
      page.dataset.bot = 'true';
      $('player-status').textContent = p.online
        ? t('web.player.bot_online')
        : t('web.player.bot_offline');
    } else {
      delete page.dataset.bot;
      $('player-status').textContent = p.online ? t('web.player.online') : p.last_seen ? t('web.player.last_seen', { when: lastSeenText(p.last_seen) }) : '';
    }
    const body = $('player-ratings').querySelector('tbody');
    for (const v of ['standard', 'long']) {
      const r = p.ratings?.[v];
      if (!r) continue;
      const tr = document.createElement('tr');
      tr.dataset.variant = v;
      cell(tr, t('web.player.variant', { variant: v }));
      cell(tr, ratingText(r.rating), 'num rating-value');
      cell(tr, String(r.experience), 'num');
      cell(tr, String(r.played), 'num');
      cell(tr, String(r.won), 'num');
      body.appendChild(tr);
    }
    const prBody = $('player-pr').querySelector('tbody');
    for (const [period, label] of [['last_30_days', t('web.player.last_30_days')], ['all_time', t('web.player.all_time')]]) {
      const q = p.performance?.[period];
      if (!q) continue;
      const tr = document.createElement('tr');
      tr.dataset.period = period;
      cell(tr, label);
      if (typeof q.pr === 'number') cell(tr, prText(q.pr, q.pr_band), 'num pr-value');
      else cell(tr, t('web.player.no_analysed'), 'muted pr-value');
      cell(tr, String(q.matches ?? 0), 'num');
      prBody.appendChild(tr);
    }
    $('player-pr').hidden = prBody.children.length === 0;
    let before = null;
    const more = async () => {
      const list = await getJson(`${path}/matches?limit=10${before ? `&before=${before}` : ''}`);
      addHistoryRows(history, list.matches ?? [], pages);
      before = list.next_before;
      $('player-more').hidden = before === null || before === undefined;
      $('player-empty').hidden = history.children.length > 0;
    };
    $('player-more').onclick = () => more().catch((e) => { $('player-error').textContent = e.message; });
    await more();
    page.dataset.loaded = p.name;
  } catch (e) {
    $('player-error').textContent = e.message;
    page.dataset.loaded = name;
  }
}

/** The order of the leaderboard: 'rating' (the highest first) or 'pr' (the best PR first). */
let leadersSort = 'rating';

/**
 * Fills the leaderboard of `variant` ('standard' or 'long'), each player with its
 * all-time PR (S7), sorted by `sort` ('rating' or 'pr'; the last one asked when not
 * given).
 */
export async function showLeaders(variant, openPlayer, sort = leadersSort) {
  leadersSort = sort === 'pr' ? 'pr' : 'rating';
  for (const b of document.querySelectorAll('#leaders button.variant')) {
    b.setAttribute('aria-pressed', String(b.dataset.variant === variant));
  }
  for (const b of document.querySelectorAll('#leaders button.sort')) {
    b.setAttribute('aria-pressed', String(b.dataset.sort === leadersSort));
  }
  $('leaders-error').textContent = '';
  const body = $('leaders-table').querySelector('tbody');
  body.replaceChildren();
  const page = $('leaders');
  page.dataset.loaded = '';
  page.dataset.variant = variant;
  page.dataset.sort = leadersSort;
  try {
    const list = await getJson(`/api/ratings?variant=${encodeURIComponent(variant)}&limit=50&pr=1&sort=${leadersSort}`);
    for (const p of list.players ?? []) {
      const tr = document.createElement('tr');
      tr.dataset.name = p.name;
      cell(tr, String(p.rank), 'num');
      const name = cell(tr, nameWithRating(p.name, undefined, openPlayer));
      if (p.bot) {
        tr.dataset.bot = 'true';
        name.append(' ', botMark());
      }
      cell(tr, ratingText(p.rating), 'num rating-value');
      if (typeof p.pr === 'number') cell(tr, prText(p.pr, p.pr_band), 'num pr-value');
      else cell(tr, '—', 'muted pr-value');
      cell(tr, String(p.experience), 'num');
      cell(tr, t('web.leaders.won_played', { won: String(p.won), played: String(p.played) }), 'num');
      body.appendChild(tr);
    }
    $('leaders-empty').hidden = body.children.length > 0;
  } catch (e) {
    $('leaders-error').textContent = e.message;
  }
  page.dataset.loaded = variant;
}
