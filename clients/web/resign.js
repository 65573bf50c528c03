// The resign dialog (R18): a player picks what to offer (a single game, a gammon, a
// backgammon; long nardy: oyn or mars, L7) and sees what it costs at this cube and
// score before anything is sent. The choices are the rule book's; whether the offer is
// allowed now is the server's (phase roll or move, PROTOCOL.md `/resign`).

import { formDialog } from './dialogs.js';
import { t } from './i18n.js';

/**
 * What each resignation would cost `mine` ('red'|'black') at table state `st`:
 * [{kind, label, points, text}], `points` = the kind's value (1, 2, 3) × the cube's
 * value; `text` says the score it leaves, or that it loses the match when the
 * opponent's score reaches the match length (state.match_length > 0; a basis session
 * and free play have no end by points). Long nardy has no backgammon (L7).
 */
export function resignChoices(st, mine) {
  const cube = st.cube?.in_play === false ? 1 : Math.max(1, st.cube?.value ?? 1);
  const them = mine === 'red' ? 'black' : 'red';
  const long = st.variant === 'long';
  const kinds = long
    ? [['single', t('web.resign.single_long'), 1], ['gammon', t('web.resign.mars'), 2]]
    : [['single', t('web.resign.single'), 1], ['gammon', t('web.resign.gammon'), 2], ['backgammon', t('web.resign.backgammon'), 3]];
  return kinds.map(([kind, label, value]) => {
    const points = value * cube;
    const theirs = (st.score?.[them] ?? 0) + points;
    const length = st.match_length ?? 0;
    // One whole sentence per case: with the cube or not, then the match lost, the
    // score it leaves, or nothing.
    const args = { points, value: String(value), cube: String(cube), mine: String(st.score?.[mine] ?? 0), theirs: String(theirs) };
    let text;
    if (length > 0 && theirs >= length) text = cube > 1 ? t('web.resign.cost_cube_loses', args) : t('web.resign.cost_loses', args);
    else if (length > 0 || st.options?.match === 'basis') text = cube > 1 ? t('web.resign.cost_cube_score', args) : t('web.resign.cost_score', args);
    else text = cube > 1 ? t('web.resign.cost_cube', args) : t('web.resign.cost', args);
    return { kind, label, points, text };
  });
}

/**
 * Fills `el` (the board's dialog box) with the resign dialog for `mine` at `st`: one
 * radio button a kind (single checked), "Resign" that calls send('/resign KIND'), and
 * "Cancel" that calls close(). Nothing is sent before "Resign" is clicked.
 */
export function drawResignDialog(el, st, mine, { send, close }) {
  const set = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = t('web.resign.legend');
  set.append(legend);
  for (const [i, c] of resignChoices(st, mine).entries()) {
    const label = document.createElement('label');
    label.className = 'resign-choice';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'resign-kind';
    radio.value = c.kind;
    radio.checked = i === 0;
    const what = document.createElement('strong');
    what.textContent = c.label;
    const cost = document.createElement('span');
    cost.className = 'cost muted';
    cost.dataset.points = c.points;
    cost.textContent = ` ${c.text}`;
    label.append(radio, ' ', what, cost);
    set.append(label);
  }
  const note = document.createElement('p');
  note.className = 'muted small';
  note.textContent = t('web.resign.note');
  formDialog(el, {
    id: 'resign',
    title: t('web.resign.title'),
    content: [set, note],
    submit: { label: t('web.resign.submit'), cmd: 'resign-confirm', className: 'danger' },
    onSubmit: (form) => {
      const kind = form.querySelector('input[name="resign-kind"]:checked')?.value ?? 'single';
      close();
      send(`/resign ${kind}`);
    },
    onCancel: close,
    focusCancel: true, // the safe answer has the focus
  });
}
