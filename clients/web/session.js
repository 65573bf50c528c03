// Signing in (issue 27, item 1): the hello this browser sends, and the remembered
// sign-in it keeps. A login or registration with "Stay signed in" asks the server for a
// session credential (`remember`); the welcome carries it and it is kept in
// localStorage (per site, across reloads and browser restarts) until the player signs
// out, or the server answers `bad_session` (signed out elsewhere, expired, password
// changed). The password itself is never stored: it goes in one hello and is dropped.
// The tab's resume token (sessionStorage) comes first: it keeps the seats.

const KEY = 'gammond.session';

/** The remembered sign-in: {name, credential}, or null. */
export function rememberedSignIn() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    return s && typeof s.name === 'string' && typeof s.credential === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** Keeps `credential` as the remembered sign-in of `name` (null: forgets it). */
export function remember(name, credential) {
  try {
    if (credential) localStorage.setItem(KEY, JSON.stringify({ name, credential }));
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused: the sign-in lasts for this page only.
  }
}

/** The remembered sign-in when it is `name`'s (any letter case), else null. */
export function canSignIn(name) {
  const kept = rememberedSignIn();
  return kept && kept.name.toLowerCase() === String(name).toLowerCase() ? kept : null;
}

/**
 * The first message of a connection: a registration or login being made (`pending`:
 * {kind, password, remember}), else a resume with this tab's `token`, else the
 * remembered sign-in of `name`, else a guest's hello. `lang`: the language chosen in
 * this browser (issue 31), or null to let the server choose (the account's, else the
 * browser's Accept-Language; the welcome says which).
 */
export function helloFor(name, token, pending, lang = null) {
  if (pending) {
    const m = pending.kind === 'register'
      ? { type: 'register', name, password: pending.password }
      : { type: 'hello', name, password: pending.password };
    if (pending.remember) Object.assign(m, { remember: true, label: 'browser' });
    if (lang) m.lang = lang;
    return m;
  }
  const hello = { type: 'hello', name };
  if (lang) hello.lang = lang;
  // The tab's resume token first: it gives the name and its seats back the way a
  // reconnection must (in a cluster it also finds the seat's node while a dead one is
  // taken over). A token is forgotten once its name holds no seat and has no connection;
  // the server then answers `name_registered`, and the page says hello again with the
  // remembered sign-in (canSignIn()).
  if (token) {
    hello.resume = token;
    return hello;
  }
  const kept = canSignIn(name);
  if (kept) {
    hello.session = kept.credential;
    hello.label = 'browser';
  }
  return hello;
}

/**
 * After `bad_login` for `name`: whether an account of that name exists (GET
 * /api/players/NAME answers 404 for none). Resolves to true, false, or null when the
 * server could not say.
 */
export async function accountExists(name) {
  try {
    const r = await fetch(`/api/players/${encodeURIComponent(name)}`);
    if (r.status === 404) return false;
    if (!r.ok) return null;
    const p = await r.json();
    return p.registered !== false;
  } catch {
    return null;
  }
}

/**
 * Ends the remembered sign-in `kept` ({name, credential}) on the server over a
 * connection of its own (for a page whose own connection is closed or was replaced by
 * another tab): hello with the credential, then /signout. Resolves to true once the
 * server said it ended, false on any failure (within `timeoutMs`).
 */
export function endOnServer(kept, timeoutMs = 5000) {
  return new Promise((resolve) => {
    let ws;
    const done = (ok) => {
      clearTimeout(timer);
      try {
        ws?.close();
      } catch {
        // closing a socket that failed
      }
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    try {
      ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    } catch {
      done(false);
      return;
    }
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', name: kept.name, session: kept.credential, label: 'browser' }));
    ws.onmessage = (e) => {
      let m;
      try {
        m = JSON.parse(e.data);
      } catch {
        return;
      }
      if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'line', text: '/signout', id: 'signout' }));
      else if (m.type === 'info' && m.topic === 'signout') done(true);
      else if (m.type === 'error') done(false); // bad_session: it had ended already
    };
    ws.onerror = () => done(false);
    ws.onclose = () => done(false);
  });
}
