// Moderation in the web client (issue 13): the small menu on a name (seats, spectators,
// chat) with the player's page, ignore / unignore and, for the table's owner, kick; and
// the owner's controls (private on/off, invite a name). The server does the work: the
// menu and the controls only send the commands a player could type.

import { t } from './i18n.js';

/**
 * Opens the menu of `name` under `anchor`. `ctx`: {me, owner (the table's owner or
 * null), atTable (name is at the table on screen), ignored (Set of lower-case names),
 * send(line), openPlayer(name)}. One menu at a time; a click elsewhere or Escape closes it.
 */
export function openNameMenu(name, anchor, ctx) {
  closeNameMenu();
  const menu = document.createElement('div');
  menu.id = 'name-menu';
  menu.className = 'name-menu';
  menu.setAttribute('role', 'menu');
  menu.dataset.name = name;
  const item = (action, label, run) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.action = action;
    b.setAttribute('role', 'menuitem');
    b.textContent = label;
    b.addEventListener('click', () => {
      closeNameMenu();
      run();
    });
    menu.append(b);
  };
  item('profile', t('web.menu.profile'), () => ctx.openPlayer(name));
  if (name !== ctx.me) {
    if (ctx.ignored.has(name.toLowerCase())) item('unignore', t('web.menu.unignore'), () => ctx.send(`/unignore ${name}`));
    else item('ignore', t('web.menu.ignore'), () => ctx.send(`/ignore ${name}`));
    if (ctx.owner === ctx.me && ctx.atTable) item('kick', t('web.menu.kick'), () => ctx.send(`/kick ${name}`));
  }
  document.body.append(menu);
  const r = anchor.getBoundingClientRect();
  menu.style.left = `${Math.max(4, Math.min(r.left + window.scrollX, window.innerWidth - menu.offsetWidth - 4))}px`;
  menu.style.top = `${r.bottom + window.scrollY + 2}px`;
  menu.querySelector('button')?.focus();
  setTimeout(() => {
    document.addEventListener('click', outside, { capture: true });
    document.addEventListener('keydown', escape);
  });
}

function outside(e) {
  if (!e.target.closest?.('#name-menu')) closeNameMenu();
}

function escape(e) {
  if (e.key === 'Escape') closeNameMenu();
}

/** Closes the name menu, if one is open. */
export function closeNameMenu() {
  document.getElementById('name-menu')?.remove();
  document.removeEventListener('click', outside, { capture: true });
  document.removeEventListener('keydown', escape);
}

/**
 * The owner's controls for state `st` in `el` (emptied first): a private/public switch
 * and an invitation field, shown only to the owner (`me`). `send(line)` sends a command.
 */
export function drawOwnerControls(el, st, me, send) {
  el.replaceChildren();
  el.hidden = !st.owner || st.owner !== me;
  if (el.hidden) return;
  const priv = Boolean(st.options?.private);
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.dataset.cmd = 'private';
  toggle.textContent = priv ? t('web.owner.make_public') : t('web.owner.make_private');
  toggle.title = priv ? t('web.owner.public_title') : t('web.owner.private_title');
  toggle.addEventListener('click', () => send(`/option private ${priv ? 'off' : 'on'}`));
  const form = document.createElement('form');
  form.className = 'invite';
  const input = document.createElement('input');
  input.id = 'invite-name';
  input.placeholder = t('web.owner.invite_placeholder');
  input.autocomplete = 'off';
  input.maxLength = 24;
  const go = document.createElement('button');
  go.type = 'submit';
  go.dataset.cmd = 'invite';
  go.textContent = t('web.owner.invite');
  form.append(input, go);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (name) send(`/invite ${name}`);
    input.value = '';
  });
  const label = document.createElement('span');
  label.className = 'hint';
  label.textContent = priv
    ? st.invited?.length ? t('web.owner.private_invited', { names: st.invited.join(', ') }) : t('web.owner.private')
    : t('web.owner.yours');
  el.append(label, toggle, form);
}
