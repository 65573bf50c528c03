// Every sentence on the page, in the player's language (issue 31). The catalogues are
// i18n/lang/<tag>/*.json in the repository, served merged by gammond as
// /i18n/<tag>.json (and the list of languages as /i18n/languages.json): one flat object
// from a stable key to an ICU MessageFormat message, e.g.
//   "web.lobby.players": "{count, plural, one {# player} other {# players}}"
// t(key, args) formats one; the page's static text carries data-i18n="key" (its text),
// data-i18n-title, data-i18n-aria-label and data-i18n-placeholder (those attributes),
// which translatePage() fills. A server message with `say` {key, args} is drawn from
// the same catalogue (sayText), so that changing language redraws everything.
// Plural forms come from Intl.PluralRules, numbers and dates from Intl in the player's
// language. The same parser is used by scripts/check-i18n.

const STORE_KEY = 'gammond.lang';
const SOURCE = 'en';

/** The state of this page: the language, its catalogue and English's for fallback. */
const current = { tag: SOURCE, messages: {}, english: {}, languages: [{ tag: SOURCE, name: 'English' }] };
const listeners = new Set();

// ---------------------------------------------------------------------------------
// ICU MessageFormat (the subset the catalogues use): {arg}, {arg, number},
// {arg, plural, [offset:N] =N {...} one {...} other {...}} with #, {arg, select, a {...}
// other {...}}, and apostrophe quoting ('' is one apostrophe; '{' starts a literal).

/** Parses `text` into parts: strings and {arg, type, options}. Throws Error on bad syntax. */
export function parseMessage(text) {
  let i = 0;
  const parts = parseParts(false);
  if (i < text.length) throw new Error(`unexpected "}" at ${i}`);
  return parts;

  function parseParts(inPlural) {
    const out = [];
    let lit = '';
    while (i < text.length) {
      const c = text[i];
      if (c === "'") {
        const next = text[i + 1];
        if (next === "'") { lit += "'"; i += 2; continue; }
        if (next === '{' || next === '}' || (inPlural && next === '#')) {
          const end = text.indexOf("'", i + 1);
          if (end < 0) { lit += text.slice(i + 1); i = text.length; continue; }
          lit += text.slice(i + 1, end).replace(/''/g, "'");
          i = end + 1;
          continue;
        }
        lit += c; i++; continue;
      }
      if (c === '}') break;
      if (c === '#' && inPlural) { if (lit) out.push(lit); lit = ''; out.push({ hash: true }); i++; continue; }
      if (c === '{') { if (lit) out.push(lit); lit = ''; i++; out.push(parseArg()); continue; }
      lit += c; i++;
    }
    if (lit) out.push(lit);
    return out;
  }

  function word() {
    while (/\s/.test(text[i] ?? '')) i++;
    const m = /^[^\s,{}]+/.exec(text.slice(i));
    if (!m) throw new Error(`a name is wanted at ${i}`);
    i += m[0].length;
    while (/\s/.test(text[i] ?? '')) i++;
    return m[0];
  }

  function parseArg() {
    const arg = word();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(arg)) throw new Error(`bad argument name "${arg}"`);
    if (text[i] === '}') { i++; return { arg }; }
    if (text[i] !== ',') throw new Error(`"," or "}" wanted after ${arg}`);
    i++;
    const type = word();
    if (type === 'number') {
      if (text[i] !== '}') throw new Error(`"}" wanted after ${arg}, number`);
      i++;
      return { arg, type };
    }
    if (type !== 'plural' && type !== 'select') throw new Error(`unknown argument type "${type}"`);
    if (text[i] !== ',') throw new Error(`"," wanted after ${arg}, ${type}`);
    i++;
    const options = {};
    let offset = 0;
    for (;;) {
      while (/\s/.test(text[i] ?? '')) i++;
      if (text[i] === '}') { i++; break; }
      if (i >= text.length) throw new Error(`unclosed ${type} of ${arg}`);
      let selector = word();
      if (type === 'plural' && selector.startsWith('offset:')) {
        offset = Number(selector.slice(7));
        continue;
      }
      if (text[i] !== '{') throw new Error(`"{" wanted after ${selector}`);
      i++;
      options[selector] = parseParts(type === 'plural');
      if (text[i] !== '}') throw new Error(`unclosed option ${selector} of ${arg}`);
      i++;
    }
    if (!('other' in options)) throw new Error(`${type} of ${arg} has no "other"`);
    return { arg, type, options, offset };
  }
}

/** The names of the arguments message `parts` uses (a Set). */
export function argumentsOf(parts, into = new Set()) {
  for (const p of parts) {
    if (typeof p === 'string' || p.hash) continue;
    into.add(p.arg);
    if (p.options) for (const o of Object.values(p.options)) argumentsOf(o, into);
  }
  return into;
}

const parsed = new Map();

/** Formats message text `text` with `args` for language `tag`. A bad message is returned as it is. */
export function formatMessage(text, args = {}, tag = current.tag) {
  let parts = parsed.get(text);
  if (!parts) {
    try {
      parts = parseMessage(text);
    } catch {
      return text;
    }
    parsed.set(text, parts);
  }
  return write(parts, args, tag, null);
}

function write(parts, args, tag, hashValue) {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') { out += p; continue; }
    if (p.hash) { out += formatNumber(hashValue ?? 0, tag); continue; }
    const v = args[p.arg];
    if (!p.type || p.type === 'number') {
      out += v === undefined ? `{${p.arg}}` : typeof v === 'number' ? formatNumber(v, tag) : String(v);
      continue;
    }
    if (p.type === 'select') {
      out += write(p.options[String(v)] ?? p.options.other, args, tag, hashValue);
      continue;
    }
    const n = Number(v ?? 0);
    const exact = p.options[`=${n}`];
    const rule = new Intl.PluralRules(tag).select(n - p.offset);
    out += write(exact ?? p.options[rule] ?? p.options.other, args, tag, n - p.offset);
  }
  return out;
}

// ---------------------------------------------------------------------------------
// The page's language

/** The language on the page ("fr"). */
export function lang() {
  return current.tag;
}

/** The languages gammond offers: [{tag, name}], English first. */
export function languages() {
  return current.languages;
}

/** Message `key` with `args` in the page's language (English, then the key, when missing). */
export function t(key, args = {}) {
  const text = current.messages[key] ?? current.english[key];
  return text === undefined ? key : formatMessage(text, args);
}

/**
 * Message `key` as a list of strings and nodes, for a sentence with elements inside
 * (a name with its menu, a strong word): each argument that is a DOM node takes its
 * place whole, e.g. tNodes('web.tournament.pairing', {red: span, black: span}) gives
 * [span, ' vs ', span]. Append the result with el.append(...parts).
 */
export function tNodes(key, args = {}) {
  const nodes = [];
  const plain = {};
  for (const [k, v] of Object.entries(args)) {
    if (v && typeof v === 'object' && 'nodeType' in v) {
      plain[k] = `\u0000${nodes.length}\u0000`;
      nodes.push(v);
    } else {
      plain[k] = v;
    }
  }
  return t(key, plain).split('\u0000').map((s, i) => (i % 2 ? nodes[Number(s)] : s)).filter((s) => s !== '');
}

/** True when the page's catalogue (or English's) has `key`. */
export function hasKey(key) {
  return key in current.messages || key in current.english;
}

/**
 * The sentence of server message `m` in the page's language: its `say` {key, args}
 * from the catalogue when known, else the sentence the server wrote (`text`, or
 * `message` in an error).
 */
export function sayText(m) {
  if (m?.say?.key && hasKey(m.say.key)) return t(m.say.key, sayArgs(m.say.args ?? {}));
  return m?.type === 'error' ? m.message ?? '' : m?.text ?? '';
}

/**
 * The args of a `say` with every nested sentence {key, args} (an argument that is itself
 * a catalogue message, e.g. why a computer player gave up) rendered first, as the
 * server's i18n::say_in does; at most 4 deep.
 */
function sayArgs(args, depth = 0) {
  const out = {};
  for (const [name, v] of Object.entries(args)) {
    const nested = v && typeof v === 'object' && typeof v.key === 'string';
    out[name] = nested && depth < 4 ? t(v.key, sayArgs(v.args ?? {}, depth + 1)) : v;
  }
  return out;
}

/** A number written the player's way (Intl.NumberFormat). */
export function formatNumber(n, tag = current.tag) {
  return new Intl.NumberFormat(tag).format(n);
}

/** A date and time (ms since 1970, or a Date) written the player's way. */
export function formatDate(when, options = { dateStyle: 'medium', timeStyle: 'short' }) {
  return new Intl.DateTimeFormat(current.tag, options).format(new Date(when));
}

/** The language chosen in this browser before (localStorage), or null. */
export function storedLanguage() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** The best of `offered` tags for this browser: the stored choice, else navigator.languages, else English. */
export function preferredLanguage(offered) {
  const tags = offered.map((l) => l.tag);
  const want = [storedLanguage(), ...(navigator.languages ?? [navigator.language])].filter(Boolean);
  for (const w of want) {
    const tag = w.toLowerCase();
    if (tags.includes(tag)) return tag;
    const primary = tag.split('-')[0];
    if (tags.includes(primary)) return primary;
  }
  return SOURCE;
}

async function fetchCatalogue(tag) {
  const r = await fetch(`/i18n/${encodeURIComponent(tag)}.json`);
  if (!r.ok) throw new Error(`no catalogue for ${tag}`);
  return r.json();
}

/** Loads the list of languages and English; then `tag` (or the browser's preference). */
export async function startLanguage(tag = null) {
  try {
    const r = await fetch('/i18n/languages.json');
    if (r.ok) current.languages = await r.json();
    current.english = await fetchCatalogue(SOURCE);
  } catch {
    // Offline or an old server: English as written in the page.
  }
  await setLanguage(tag ?? preferredLanguage(current.languages), false);
}

/**
 * Puts the page in language `tag`: loads its catalogue, fills every data-i18n element,
 * and calls each onLanguage listener (which redraw what they drew). `remember` keeps the
 * choice in this browser. An unknown tag falls back to English.
 */
export async function setLanguage(tag, remember = true) {
  let messages = current.english;
  if (tag !== SOURCE) {
    try {
      messages = await fetchCatalogue(tag);
    } catch {
      tag = SOURCE;
    }
  }
  current.tag = tag;
  current.messages = messages;
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, tag);
    } catch {
      // Storage refused: the choice holds for this page.
    }
  }
  translatePage(document);
  for (const f of listeners) f(tag);
}

/**
 * Uses `messages` as language `tag`'s catalogue and `english` as English's, without
 * fetching or touching a page (Node's unit tests of the modules that draw text).
 */
export function useCatalogues(tag, messages, english = messages) {
  current.tag = tag;
  current.messages = messages;
  current.english = english;
}

/** Calls `f(tag)` after every change of language. */
export function onLanguage(f) {
  listeners.add(f);
}

const ATTRIBUTES = [
  ['i18nTitle', 'title'],
  ['i18nAriaLabel', 'aria-label'],
  ['i18nPlaceholder', 'placeholder'],
  ['i18nAlt', 'alt'],
  ['i18nAriaRoledescription', 'aria-roledescription'],
];

/** Fills every element under `root` that carries data-i18n (text) or data-i18n-* (attributes). */
export function translatePage(root) {
  if (root === document) document.documentElement.lang = current.tag;
  // A key no catalogue has (no catalogue could be read) leaves the page's English.
  for (const el of root.querySelectorAll('[data-i18n]')) {
    if (hasKey(el.dataset.i18n)) el.textContent = t(el.dataset.i18n);
  }
  // A count of match points in a menu ("3 points"): data-i18n-points="3".
  if (hasKey('web.form.points')) {
    for (const el of root.querySelectorAll('[data-i18n-points]')) el.textContent = t('web.form.points', { count: Number(el.dataset.i18nPoints) });
  }
  for (const [data, attr] of ATTRIBUTES) {
    const sel = `[data-${data.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`;
    for (const el of root.querySelectorAll(sel)) {
      if (hasKey(el.dataset[data])) el.setAttribute(attr, t(el.dataset[data]));
    }
  }
}
