// The lobby (issue 27, item 10): the list of tables (refreshed by /tables) and the
// "Who is online" panel (refreshed by /who). Both draw what the server sends; entering
// a table and opening a player's page are the caller's (app.js, through the router).

import { nameWithRating } from './account.js';
import { button } from './dom.js';

const $ = (id) => document.getElementById(id);

/**
 * Draws the lobby's list of tables (the `tables` message's rows: name, players,
 * ratings, options, score, spectators, phase). `pages.enterTable(name)` enters a table;
 * `pages.openPlayer(name)` opens a player's page.
 */
export function drawTables(tables, pages) {
  const body = $('tables').querySelector('tbody');
  body.replaceChildren();
  $('no-tables').hidden = tables.length > 0;
  for (const t of tables) {
    const tr = document.createElement('tr');
    tr.dataset.table = t.name;
    const name = document.createElement('td');
    name.append(button(t.name, () => pages.enterTable(t.name), 'link table-link'));
    tr.appendChild(name);
    for (const side of ['red', 'black']) {
      const td = document.createElement('td');
      td.dataset.side = side;
      const who = t.players?.[side];
      if (who) td.append(nameWithRating(who, t.ratings?.[side] ?? undefined, (name) => pages.openPlayer(name)));
      else td.textContent = '—';
      tr.appendChild(td);
    }
    const cells = [
      optionsText(t.options),
      `${t.score?.red ?? 0}–${t.score?.black ?? 0}`,
      String(t.spectators ?? 0),
      t.phase ?? '',
    ];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = c;
      if (i >= 2) td.className = 'wide-only';
      tr.appendChild(td);
    });
    const td = document.createElement('td');
    const b = button(t.players?.red && t.players?.black ? 'watch' : 'enter', () => pages.enterTable(t.name));
    b.dataset.cmd = 'enter';
    td.appendChild(b);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

/** "match to 3, long" from a table's options object (state.options, a lobby row's). */
export function optionsText(o) {
  if (!o) return '';
  const m = o.match;
  const parts = [];
  if (m === 'basis') parts.push('basis');
  else if (!m || m === 'off' || m === 0) parts.push('free play');
  else parts.push(`match to ${o.match_length ?? m}`);
  if (o.variant && o.variant !== 'standard') parts.push(o.variant);
  if (o.tutor) parts.push('tutor');
  if (o.clock?.minutes) parts.push(`clock ${o.clock.minutes} min + ${o.clock.delay} s`);
  return parts.join(', ');
}

/**
 * The lobby's "Who is online" panel from `/who`'s data {online: [names], total}: each
 * name opens its page (`openPlayer(name)`); `me` is marked.
 */
export function drawOnline(data, me, openPlayer) {
  const list = $('online');
  list.replaceChildren();
  for (const name of data.online ?? []) {
    const li = document.createElement('li');
    li.append(nameWithRating(name, undefined, (n) => openPlayer(n)));
    if (name === me) li.dataset.me = 'true';
    list.append(li);
  }
  const total = Number(data.total ?? list.children.length);
  $('online-count').textContent = `(${total})`;
  if (total > list.children.length) {
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = `and ${total - list.children.length} more`;
    list.append(li);
  }
}
