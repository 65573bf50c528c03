// The page's address (the History API): one path for each page, so that Back, Forward,
// a reload and a shared link all land where the player was. gammond answers every one of
// these paths with index.html (PROTOCOL.md, "The web client's addresses"); the older
// hash links (#analysis/ID, #match/ID, #TABLE) still open their page.
//
//   /                  the lobby (or the sign-in form)
//   /table/NAME        a table
//   /player/NAME       a player's page
//   /ratings/VARIANT   the ratings list (standard, long)
//   /analysis/ID       a finished match's analysis
//   /match/ID          a finished match's replay
//   /tournaments       the tournaments: upcoming, running, ended
//   /tournament/NAME   a tournament: its rules, players, standings and pairings

/** @typedef {{page: 'lobby'|'table'|'player'|'ratings'|'analysis'|'replay'|'tournaments'|'tournament', arg: string|number|null}} Route */

const enc = encodeURIComponent;

/** The path of route `r` ("/table/t1"). */
export function pathOf(r) {
  switch (r.page) {
    case 'table': return `/table/${enc(r.arg)}`;
    case 'player': return `/player/${enc(r.arg)}`;
    case 'ratings': return `/ratings/${enc(r.arg ?? 'standard')}`;
    case 'analysis': return `/analysis/${r.arg}`;
    case 'replay': return `/match/${r.arg}`;
    case 'tournaments': return '/tournaments';
    case 'tournament': return `/tournament/${enc(r.arg)}`;
    default: return '/';
  }
}

/** A percent-decoded path segment, or null when it is malformed. */
function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** A match id as the server numbers them (1 to 18 digits), or null. */
function matchId(text) {
  return /^\d{1,18}$/.test(text) ? Number(text) : null;
}

/**
 * The route of an address: `pathname` and `hash` as in `location`. An unknown path is
 * the lobby; the older hash links are read as their pages.
 * @returns {Route}
 */
export function routeOf(pathname, hash = '') {
  const m = /^\/(table|player|ratings|analysis|match|tournament)\/([^/]+)\/?$/.exec(pathname);
  if (m) {
    const arg = decoded(m[2]);
    if (arg !== null && arg !== '') {
      if (m[1] === 'analysis' || m[1] === 'match') {
        const id = matchId(arg);
        if (id !== null) return { page: m[1] === 'match' ? 'replay' : 'analysis', arg: id };
      } else if (m[1] === 'ratings') {
        if (arg === 'standard' || arg === 'long') return { page: 'ratings', arg };
      } else {
        return { page: m[1], arg };
      }
    }
  }
  if (pathname === '/ratings' || pathname === '/ratings/') return { page: 'ratings', arg: 'standard' };
  if (pathname === '/tournaments' || pathname === '/tournaments/') return { page: 'tournaments', arg: null };
  // The older links: #analysis/12, #match/12 and #TABLE.
  const h = /^#(analysis|match)\/(\d{1,18})$/.exec(hash);
  if (h) return { page: h[1] === 'match' ? 'replay' : 'analysis', arg: Number(h[2]) };
  if (hash.length > 1) {
    const name = decoded(hash.slice(1));
    if (name && !name.includes('/')) return { page: 'table', arg: name };
  }
  return { page: 'lobby', arg: null };
}

/** Whether two routes are the same page. */
export function sameRoute(a, b) {
  return a.page === b.page && String(a.arg ?? '') === String(b.arg ?? '');
}

/**
 * The browser's history as the page moves: go() pushes (or replaces) an entry for a
 * route; Back and Forward call `onRoute(route)` to show the page of the entry reached.
 * Each entry's state carries its depth in this tab's visit, so that a page's "back"
 * link goes back when there is somewhere to go back to and to the lobby when there is not.
 */
export class Router {
  /**
   * @param {(route: Route) => void} onRoute shows a route reached with Back or Forward
   * @param {{history?: History, location?: Location, window?: Window}} env the browser's
   *   (for tests)
   */
  constructor(onRoute, env = {}) {
    this.onRoute = onRoute;
    this.history = env.history ?? globalThis.history;
    this.location = env.location ?? globalThis.location;
    const win = env.window ?? globalThis;
    // The entry the page was loaded on is depth 0 (a reload keeps its depth).
    this.depth = Number(this.history.state?.depth ?? 0);
    if (this.history.state?.depth === undefined) this.history.replaceState({ depth: 0 }, '', this.currentPath());
    win.addEventListener('popstate', (e) => {
      this.depth = Number(e.state?.depth ?? 0);
      this.onRoute(this.current());
    });
  }

  /** The path and hash of the address now. */
  currentPath() {
    return `${this.location.pathname}${this.location.search ?? ''}${this.location.hash}`;
  }

  /** The route of the address now. */
  current() {
    return routeOf(this.location.pathname, this.location.hash);
  }

  /**
   * Makes `route` the address: a new entry (Back returns to the page before), or with
   * `replace` the same entry (a redirect, or the first page after the sign-in). Nothing
   * changes when the address is already that route's path.
   */
  go(route, { replace = false } = {}) {
    const path = pathOf(route);
    if (this.currentPath() === path) return;
    if (replace) {
      this.history.replaceState({ depth: this.depth }, '', path);
    } else {
      this.depth += 1;
      this.history.pushState({ depth: this.depth }, '', path);
    }
  }

  /** Whether Back stays on this site (a page was opened from another one in this tab). */
  canGoBack() {
    return this.depth > 0;
  }

  /** A page's "back" link: Back when it stays on the site, else the lobby. */
  back() {
    if (this.canGoBack()) this.history.back();
    else {
      this.go({ page: 'lobby' });
      this.onRoute(this.current());
    }
  }
}
