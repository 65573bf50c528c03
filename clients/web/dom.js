// Two small builders of page elements, for the pages drawn from the server's JSON
// (analysis.js, replay.js): h() for HTML and svg() for SVG. Texts go in as text, never
// as markup, so that a name or a play from the server cannot become an element.

import { sayText, t } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';

/**
 * An HTML element `tag` with `attrs` (`class`, `text` for its text, any other attribute;
 * null and undefined are left out) and `children` (elements or strings) appended.
 */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** An SVG element `tag` with `attrs`, appended to `parent` when given, with `text`. */
export function svg(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

/** A button labelled `label` (class `cls`) that calls `onClick` when clicked. */
export function button(label, onClick, cls = '') {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener('click', onClick);
  return b;
}

/**
 * A link to a page of this site (`href`, e.g. "/match/12") that opens it in the page with
 * `open()` (the address changes through router.js); a click with a modifier key, or
 * "open in a new tab", follows the address itself.
 */
export function pageLink(href, text, open, cmd) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  a.dataset.cmd = cmd;
  a.addEventListener('click', (e) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    open();
  });
  return a;
}

/** GET `url` as JSON; rejects with the server's sentence on an error. */
export async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await res.json();
  } catch {
    throw new Error(t('web.server_answered', { status: String(res.status) }));
  }
  if (!res.ok) {
    const said = body?.message || body?.say ? sayText({ ...body, type: 'error' }) : '';
    throw new Error(said || t('web.server_answered', { status: String(res.status) }));
  }
  return body;
}
