// The lobby (issue 27, item 10): the list of tables (refreshed by /tables) and the
// "Who is online" panel (refreshed by /who). Both draw what the server sends; entering
// a table and opening a player's page are the caller's (app.js, through the router).

import { nameWithRating } from './account.js';
import { button } from './dom.js';
import { t } from './i18n.js';

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
  for (const row of tables) {
    const tr = document.createElement('tr');
    tr.dataset.table = row.name;
    const name = document.createElement('td');
    name.append(button(row.name, () => pages.enterTable(row.name), 'link table-link'));
    tr.appendChild(name);
    for (const side of ['red', 'black']) {
      const td = document.createElement('td');
      td.dataset.side = side;
      const who = row.players?.[side];
      if (who) td.append(nameWithRating(who, row.ratings?.[side] ?? undefined, (name) => pages.openPlayer(name)));
      else td.textContent = '—';
      tr.appendChild(td);
    }
    const cells = [
      optionsText(row.options),
      t('web.lobby.score', { red: String(row.score?.red ?? 0), black: String(row.score?.black ?? 0) }),
      String(row.spectators ?? 0),
      row.phase ? t('web.lobby.phase', { phase: row.phase }) : '',
    ];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = c;
      if (i >= 2) td.className = 'wide-only';
      tr.appendChild(td);
    });
    const td = document.createElement('td');
    const b = button(row.players?.red && row.players?.black ? t('web.lobby.watch') : t('web.lobby.enter'), () => pages.enterTable(row.name));
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
  return t('web.lobby.options', {
    match: m === 'basis' ? 'basis' : !m || m === 'off' || m === 0 ? 'free' : 'points',
    length: String(o.match_length ?? m),
    variant: o.variant === 'long' ? 'long' : 'standard',
    tutor: o.tutor ? 'yes' : 'no',
    clock: o.clock?.minutes ? 'yes' : 'no',
    minutes: String(o.clock?.minutes ?? ''),
    delay: String(o.clock?.delay ?? ''),
  });
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
  $('online-count').textContent = t('web.lobby.online_count', { count: total });
  if (total > list.children.length) {
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = t('web.lobby.more', { count: total - list.children.length });
    list.append(li);
  }
}
