// The frame of a dialog over the board that asks something and sends on its own button
// only (the resign dialog, the table's options): a titled <form> with the content, a
// submit button and a Cancel that Escape presses too.

import { t } from './i18n.js';

/**
 * Fills `el` (the board's dialog box) with a form: an <h2> `title` (id `id`-title, the
 * box's accessible name), the nodes of `content`, then the buttons `submit` ({label,
 * cmd, className}) and Cancel (data-cmd `id`-cancel). Submitting (when the form is
 * valid) calls onSubmit(form); Cancel and Escape call onCancel(). `focusCancel`: the
 * safe answer gets the focus. Returns the form.
 */
export function formDialog(el, { id, title, content, submit, onSubmit, onCancel, focusCancel = false }) {
  const h = document.createElement('h2'); // the page's headings go h1 > h2
  h.className = 'dialog-title';
  h.id = `${id}-title`;
  h.textContent = title;
  el.setAttribute('aria-labelledby', h.id);
  const form = document.createElement('form');
  form.className = `${id}-form`;
  const buttons = document.createElement('div');
  buttons.className = 'buttons';
  const yes = document.createElement('button');
  yes.type = 'submit';
  if (submit.className) yes.className = submit.className;
  yes.dataset.cmd = submit.cmd;
  yes.textContent = submit.label;
  const no = document.createElement('button');
  no.type = 'button';
  no.dataset.cmd = `${id}-cancel`;
  no.textContent = t('web.common.cancel');
  no.addEventListener('click', onCancel);
  buttons.append(yes, no);
  form.append(...content, buttons);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (form.reportValidity()) onSubmit(form);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') onCancel();
  });
  el.append(h, form);
  if (focusCancel) queueMicrotask(() => no.focus());
  return form;
}
