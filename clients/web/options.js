// A table's options as controls (issue 27, item 2): variant, match length (free play,
// basis, 1–25), clock (off, or a bank in minutes and a delay in seconds), tutor and
// privacy. The form only says what the player wants; optionLines() turns the changes
// into the chat commands a player could type (`/option match 7`, …), and the server
// checks each as it always does (seated, before /start; privacy: the owner).

import { t } from './i18n.js';

/** What a table starts with (PROTOCOL.md `state.options`). */
export const DEFAULT_OPTIONS = { variant: 'standard', match: 'off', clock: null, tutor: false, private: false };

/** state.options (or a part of it) over the defaults. */
export function optionsOf(options) {
  const o = { ...DEFAULT_OPTIONS, ...(options ?? {}) };
  if (o.match === 0 || o.match === null || o.match === undefined) o.match = 'off';
  if (!o.clock || !o.clock.minutes) o.clock = null;
  return o;
}

/**
 * The lines that turn `current` options into `wanted` ({variant, match: 'off'|'basis'|N,
 * clock: null|{minutes, delay}, tutor, private}), only for what changed: the variant
 * first (a match's options follow it), then the match, the clock, the tutor and the
 * privacy (`withPrivacy`: only the owner may set it).
 */
export function optionLines(current, wanted, { withPrivacy = true } = {}) {
  const c = optionsOf(current);
  const w = optionsOf(wanted);
  const lines = [];
  if (w.variant !== c.variant) lines.push(`/option variant ${w.variant}`);
  if (String(w.match) !== String(c.match)) lines.push(`/option match ${w.match}`);
  const clock = (k) => (k ? `${k.minutes} ${k.delay ?? 12}` : 'off');
  if (clock(w.clock) !== clock(c.clock)) lines.push(`/option clock ${clock(w.clock)}`);
  if (Boolean(w.tutor) !== Boolean(c.tutor)) lines.push(`/option tutor ${w.tutor ? 'on' : 'off'}`);
  if (withPrivacy && Boolean(w.private) !== Boolean(c.private)) lines.push(`/option private ${w.private ? 'on' : 'off'}`);
  return lines;
}

/** A labelled control: <label>text <control></label>. */
function labelled(text, control) {
  const l = document.createElement('label');
  l.append(text, ' ', control);
  return l;
}

function select(name, choices, value) {
  const s = document.createElement('select');
  s.name = name;
  for (const [v, text] of choices) {
    const o = document.createElement('option');
    o.value = String(v);
    o.textContent = text;
    s.append(o);
  }
  s.value = String(value);
  return s;
}

function number(name, value, min, max) {
  const i = document.createElement('input');
  i.type = 'number';
  i.name = name;
  i.min = String(min);
  i.max = String(max);
  i.value = String(value);
  i.required = true;
  return i;
}

function checkbox(name, checked) {
  const i = document.createElement('input');
  i.type = 'checkbox';
  i.name = name;
  i.checked = Boolean(checked);
  return i;
}

/**
 * The options' controls, filled with `current` (state.options or DEFAULT_OPTIONS), in a
 * <fieldset>; read them back with readOptions(). `privacy`: show the private switch
 * (the owner's).
 */
export function optionsFieldset(current, { privacy = true, legend = t('web.options.title') } = {}) {
  const o = optionsOf(current);
  const set = document.createElement('fieldset');
  set.className = 'table-options';
  const lg = document.createElement('legend');
  lg.textContent = legend;
  set.append(lg);
  set.append(labelled(t('web.options.game'), select('variant', [['standard', t('web.variant.standard')], ['long', t('web.variant.long')]], o.variant)));
  const lengths = [['off', t('web.options.free')], ['basis', t('web.options.basis')]];
  for (let n = 1; n <= 25; n += 1) lengths.push([n, t('web.options.match_to', { length: String(n) })]);
  set.append(labelled(t('web.options.match'), select('match', lengths, o.match)));
  const clockOn = checkbox('clock', Boolean(o.clock));
  const minutes = number('clock-minutes', o.clock?.minutes ?? 5, 1, 240);
  const delay = number('clock-delay', o.clock?.delay ?? 12, 0, 120);
  const sync = () => {
    minutes.disabled = !clockOn.checked;
    delay.disabled = !clockOn.checked;
  };
  clockOn.addEventListener('change', sync);
  sync();
  const clockRow = document.createElement('div');
  clockRow.className = 'clock-row';
  clockRow.append(labelled(t('web.options.clock'), clockOn), labelled(t('web.options.minutes'), minutes), labelled(t('web.options.delay'), delay));
  set.append(clockRow);
  set.append(labelled(t('web.options.tutor'), checkbox('tutor', o.tutor)));
  if (privacy) set.append(labelled(t('web.options.private'), checkbox('private', o.private)));
  return set;
}

/** The options a fieldset of optionsFieldset() says now. */
export function readOptions(set) {
  const get = (n) => set.querySelector(`[name="${n}"]`);
  const match = get('match').value;
  return {
    variant: get('variant').value,
    match: match === 'off' || match === 'basis' ? match : Number(match),
    clock: get('clock').checked
      ? { minutes: Number(get('clock-minutes').value), delay: Number(get('clock-delay').value) }
      : null,
    tutor: get('tutor').checked,
    private: get('private') ? get('private').checked : false,
  };
}
