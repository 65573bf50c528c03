// The table on screen (issue 27, item 10): the board drawn from the table's state (the
// play being entered on it, the last play marked, a play from the server shown frame by
// frame), the seats, the banner over the board, the dialogs (cube, resignation, options,
// continue, the end of the match), the buttons for the commands allowed now, the tab's
// title and the "your turn" notification, and Roll for me. Everything is read from the
// state the server sent (PROTOCOL.md): no rule is computed here.

import { drawBoard } from './board.js';
import { MoveInput, applySteps } from './moves.js';
import { playPlaces } from './movelist.js';
import { verifyDice } from './dice.js';
import { ratingChanges } from './account.js';
import { drawOwnerControls } from './moderation.js';
import { drawResignDialog } from './resign.js';
import { formDialog } from './dialogs.js';
import { button, pageLink } from './dom.js';
import { settings } from './settings.js';
import { optionLines, optionsFieldset, readOptions } from './options.js';
import { drawSpectators, drawStrip, matchText, other, sideOf } from './seats.js';
import { sayText, t } from './i18n.js';

const $ = (id) => document.getElementById(id);

/**
 * The table view of the page's state `app` (app.js). `ctx`: sendLine(text, table?),
 * tableNameMenu(name, el), showReplay(id), showAnalysis(id), tokenQuery() (a private
 * match's "?token=…"), sounds (sound.js), busy() (a play is being shown: the table waits)
 * and boardInput() (boardinput.js). Returns {drawTable, drawMoves, drawPlayFrame}.
 */
export function createTableView(ctx) {
  const { app, sendLine, tableNameMenu, showReplay, showAnalysis, tokenQuery, sounds, busy, boardInput } = ctx;

  /** One frame of a play being shown: `board`, with `side`'s `dice`, nothing to pick. */
  function drawPlayFrame(board, dice, side) {
    const st = app.states.get(app.table);
    if (!st || app.view !== 'table') return;
    drawBoard($('board'), {
      board,
      variant: st.variant ?? 'standard',
      bottom: sideOf(st, app.me) ?? 'black',
      tutor: Boolean(st.options?.tutor),
      dice,
      diceSide: side,
      cube: st.cube?.in_play ? st.cube : null,
    });
    $('board').dataset.animating = 'true';
  }

  /** The MoveInput for the current state when it is our play, else null. */
  function currentInput(st, mine) {
    if (st.phase !== 'move' || !mine || st.turn !== mine) {
      app.input = null;
      return null;
    }
    if (app.sentMove) return null;
    if (app.inputSeq !== st.seq || !app.input) {
      app.input = new MoveInput(st.legal ?? [], st.legal_moves ?? [], mine, st.board);
      app.inputSeq = st.seq;
      app.selected = null;
      app.pendingPlay = null;
    }
    return app.input;
  }

  /** Redraws everything of the table on screen from its last state. */
  function drawTable() {
    const st = app.states.get(app.table);
    if (!st || app.view !== 'table') return;
    if (busy()) return; // a play is being shown: drawn when it is done
    delete $('board').dataset.animating;
    const mine = sideOf(st, app.me);
    const bottom = mine ?? 'black';
    const input = currentInput(st, mine);
    const sources = input ? input.sources() : new Set();
    if (app.selected !== null && app.selected !== undefined && !sources.has(app.selected)) app.selected = null;
    const targets = input && app.selected != null ? input.destinations(app.selected) : new Set();
    const board = input && input.steps.length ? applySteps(st.board, mine, input.steps) : st.board;
    const last = app.lastPlay?.table === st.table && st.phase !== 'move' ? app.lastPlay : null;

    drawBoard($('board'), {
      board,
      variant: st.variant ?? 'standard',
      bottom,
      tutor: Boolean(st.options?.tutor),
      dice: st.phase === 'move' ? st.dice : last?.dice ?? null,
      diceSide: st.phase === 'move' ? st.turn : last?.side,
      diceClass: st.phase === 'move' ? '' : 'played',
      last: last ? playPlaces(last.play, last.side, st.variant ?? 'standard') : null,
      lastSide: last?.side ?? null,
      cube: st.cube?.in_play ? st.cube : null, // the server says whether the cube exists
      sources,
      selected: app.selected ?? null,
      cursor: input ? app.cursor ?? null : null,
      targets,
      mover: input ? mine : null,
    });
    $('board').dataset.phase = st.phase;
    $('board').dataset.seq = st.seq;
    // Keyboard play: the first movable checker is under the cursor when none is yet.
    if (input && app.cursor == null && app.pendingPlay === null && document.activeElement === $('board')) {
      app.cursor = boardInput().cursorPlaces()[0] ?? null;
    }
    if (!input) app.cursor = null;
    const said = st ? boardInput().status(st.dice) : '';
    $('board').setAttribute('aria-label', said ? t('web.board.label_said', { said }) : t('web.board.label'));
    if ($('board-status').textContent !== said) $('board-status').textContent = said;

    drawStrip($('strip-top'), st, other(bottom), app.me, tableNameMenu);
    drawStrip($('strip-bottom'), st, bottom, app.me, tableNameMenu);
    $('match-info').textContent = matchText(st);
    drawSpectators(st, tableNameMenu);
    drawBanner(st, mine, input);
    drawDialog(st, mine);
    drawControls(st, mine, input);
    drawOwnerControls($('owner-controls'), st, app.me, (line) => sendLine(line));
    drawTitle(st, mine);
    autoRoll(st, mine);
  }

  /**
   * With the setting "Roll for me": rolls once when it is our roll and we may not double
   * (with the cube to offer the choice stays the player's).
   */
  function autoRoll(st, mine) {
    if (!settings.autoRoll || !mine || st.phase !== 'roll' || st.turn !== mine || st.to_act !== mine || st.may_double) return;
    if (app.autoRolled?.table === st.table && app.autoRolled.seq === st.seq) return;
    app.autoRolled = { table: st.table, seq: st.seq };
    sendLine('/roll', st.table);
  }

  /** The tab's title: the table, and "your turn" first when a move or answer is ours. */
  function drawTitle(st, mine) {
    const myTurn = Boolean(mine) && st.to_act === mine && !['waiting', 'match_over'].includes(st.phase);
    document.title = myTurn ? t('web.table.title_turn', { table: st.table }) : t('web.table.title', { table: st.table });
    notifyTurn(st, myTurn);
  }

  /**
   * With the setting "Notify me" on and the tab in the background: one browser
   * notification when a turn becomes ours (not again while it stays ours).
   */
  function notifyTurn(st, myTurn) {
    // Once a turn: when the move or answer becomes ours, not at each state of it.
    const was = app.myTurn?.table === st.table && app.myTurn.mine;
    app.myTurn = { table: st.table, mine: myTurn };
    if (!myTurn || was) return;
    sounds.play('turn');
    if (!settings.notify || !document.hidden) return;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    const what = st.phase === 'cube_offered' ? t('web.notify.doubled') : st.phase === 'resign_offered' ? t('web.notify.resign') : t('web.notify.turn');
    try {
      const n = new Notification(what, { body: t('web.notify.body', { table: st.table }), tag: `gammond-${st.table}` });
      n.onclick = () => window.focus();
    } catch {
      // Notifications refused by the browser: the title still says it.
    }
  }

  /** The move list of the table on screen, beside the board. */
  function drawMoves() {
    const st = app.states.get(app.table);
    app.moveList.render($('moves'), app.table, st?.players ?? {});
  }

  /** The banner over the board: a pass, a forced play, a game result. */
  function drawBanner(st, mine, input) {
    const el = $('banner');
    let text = '';
    let kind = '';
    const now = Date.now();
    if (app.lastPass && app.lastPass.table === st.table && app.lastPass.until > now) {
      text = t('web.banner.pass', { side: app.lastPass.side, dice: app.lastPass.dice });
      kind = 'pass';
    } else if (app.lastResult && app.lastResult.table === st.table && app.lastResult.until > now && st.phase !== 'match_over') {
      text = sayText(app.lastResult.msg);
      kind = 'result';
    } else if (st.phase === 'move' && (st.legal ?? []).length === 1) {
      text = t('web.banner.forced', { play: st.legal[0] });
      kind = 'forced';
    } else if (st.phase === 'cube_offered' && st.to_act !== mine) {
      text = t('web.banner.doubles', { side: st.cube.offered_by, value: st.cube.value * 2, to_act: st.to_act });
      kind = 'wait';
    } else if (st.phase === 'resign_offered' && st.to_act !== mine && st.resign) {
      text = t('web.banner.resign', { side: st.resign.by, kind: st.resign.kind, to_act: st.to_act });
      kind = 'wait';
    } else if (st.bot_thinking && st.to_act && st.to_act !== mine) {
      // state.bot_thinking: the computer player's answer is on the way, however long.
      text = t('web.banner.thinking', { named: st.players?.[st.to_act] == null ? 'no' : 'yes', name: st.players?.[st.to_act] ?? '' });
      kind = 'wait';
    }
    el.hidden = !text;
    el.textContent = text;
    el.dataset.kind = kind;
  }

  /** Dialogs for a decision that is ours: the cube offer, a resignation, continue?, match end. */
  function drawDialog(st, mine) {
    const el = $('dialog');
    // A form being filled in (resign, options) is not rebuilt by a new state: what was
    // chosen stays until it is sent or cancelled.
    // A new language draws them again (app.relang), with the choices of the state.
    if (!app.relang && app.optionsOpen && el.dataset.kind === 'options' && !el.hidden && (st.phase === 'waiting' || st.phase === 'match_over')) return;
    if (!app.relang && app.resignOpen && el.dataset.kind === 'resign-choice' && !el.hidden && (st.phase === 'roll' || st.phase === 'move')) return;
    el.replaceChildren();
    let kind = null;
    const add = (tag, text, cls = '') => {
      const e = document.createElement(tag);
      e.textContent = text;
      if (cls) e.className = cls;
      el.appendChild(e);
      return e;
    };
    const row = () => {
      const d = document.createElement('div');
      d.className = 'buttons';
      el.appendChild(d);
      return d;
    };
    const mayResign = Boolean(mine) && (st.phase === 'roll' || st.phase === 'move');
    if (app.resignOpen && !mayResign) app.resignOpen = false; // the moment has passed
    const boxClosed = st.phase === 'match_over' && app.closedMatchBox.get(st.table) === (st.last_match_id ?? 'none');
    if (app.optionsOpen && !(st.phase === 'waiting' || st.phase === 'match_over')) app.optionsOpen = false;
    if (app.optionsOpen) {
      kind = 'options';
      drawOptionsDialog(el, st);
    } else if (app.resignOpen) {
      kind = 'resign-choice';
      drawResignDialog(el, st, mine, {
        send: (line) => sendLine(line),
        close: () => {
          app.resignOpen = false;
          drawTable();
        },
      });
    } else if (st.phase === 'cube_offered' && mine && st.to_act === mine) {
      kind = 'cube';
      add('div', String(st.cube.value * 2), 'dialog-cube');
      add('p', t('web.dialog.doubles', { name: st.players[st.cube.offered_by], side: st.cube.offered_by, value: st.cube.value * 2 }));
      add('p', t('web.dialog.take_or_drop', { value: st.cube.value * 2, cube: st.cube.value }), 'muted');
      const r = row();
      r.append(cmdButton('take', t('web.cmd.take')), cmdButton('drop', t('web.cmd.drop')));
    } else if (st.phase === 'resign_offered' && mine && st.to_act === mine && st.resign) {
      kind = 'resign';
      add('p', t('web.dialog.resign_offer', { name: st.players[st.resign.by], side: st.resign.by, kind: st.resign.kind }));
      const r = row();
      r.append(cmdButton('accept', t('web.cmd.accept')), cmdButton('reject', t('web.cmd.reject')));
    } else if (st.phase === 'game_over' && mine && !(st.continuing?.[mine])) {
      kind = 'continue';
      if (st.last_result) add('p', resultText(st), 'muted');
      add('p', t('web.dialog.continue'), 'question');
      const r = row();
      r.append(cmdButton('continue', t('web.cmd.continue')), cmdButton('stop', t('web.cmd.stop_x')));
    } else if (st.phase === 'match_over' && !boxClosed) {
      kind = 'match-over';
      // The box closes to show the final position; the controls' "Match result" reopens it.
      const x = button('✕', () => {
        app.closedMatchBox.set(st.table, st.last_match_id ?? 'none');
        drawTable();
      }, 'close-box');
      x.dataset.cmd = 'close-box';
      x.setAttribute('aria-label', t('web.dialog.close_match_box'));
      el.appendChild(x);
      add('h3', matchOverText(st));
      add('p', t('web.dialog.final_score', { red: String(st.score.red), black: String(st.score.black) }), 'final-score');
      if (st.last_result?.reason === 'time') {
        const loser = other(st.last_result.winner);
        add('p', t('web.dialog.out_of_time', { name: st.players[loser] ?? loser, side: loser }), 'muted on-time');
      }
      if (st.last_match_id && st.dice_commitment) {
        const check = diceCheck(st.last_match_id);
        const p = add('p', t(check.key, check.args), `dice-check ${check.state}`);
        p.id = 'dice-check';
        p.dataset.state = check.state;
      }
      // A rated match: each player's rating before and after (the match_over event's).
      const over = app.lastMatchOver.get(st.table);
      if (over && over.match_id === st.last_match_id) {
        for (const c of ratingChanges(over)) {
          const line = add('p', c.text, `rating-changes ${c.change >= 0 ? 'change-up' : 'change-down'}`);
          line.dataset.name = c.name;
        }
      }
      if (st.last_match_id) {
        const links = document.createElement('p');
        links.className = 'links';
        const a = document.createElement('a');
        a.href = `/matches/${encodeURIComponent(st.last_match_id)}.mat${tokenQuery()}`;
        a.textContent = t('web.dialog.download_mat');
        const id = st.last_match_id;
        links.append(pageLink(`/match/${id}`, t('web.dialog.replay'), () => showReplay(id), 'replay'), ' · ');
        if (st.variant !== 'long') {
          // GNU Backgammon analyses standard matches only (PROTOCOL.md, Match analysis).
          links.append(pageLink(`/analysis/${id}`, t('web.dialog.analysis'), () => showAnalysis(id), 'analysis'), ' · ');
        }
        links.append(a);
        el.appendChild(links);
      }
      if (mine && st.players.red && st.players.black) row().append(cmdButton('start', t('web.cmd.play_again')));
    }
    el.hidden = kind === null;
    el.dataset.kind = kind ?? '';
    if (kind === 'resign-choice' || kind === 'options') {
      el.setAttribute('role', 'dialog');
    } else {
      el.removeAttribute('role');
      el.removeAttribute('aria-labelledby');
    }
  }

  /** The options dialog of a seated player (the owner also sets the privacy). */
  function drawOptionsDialog(el, st) {
    const owner = st.owner === app.me;
    const set = optionsFieldset(st.options, { privacy: owner, legend: t('web.options.next_match') });
    const close = () => {
      app.optionsOpen = false;
      drawTable();
    };
    formDialog(el, {
      id: 'options',
      title: t('web.options.title'),
      content: [set],
      submit: { label: t('web.options.apply'), cmd: 'options-apply' },
      onSubmit: () => {
        const lines = optionLines(st.options, readOptions(set), { withPrivacy: owner });
        app.optionsOpen = false;
        for (const line of lines) sendLine(line);
        drawTable();
      },
      onCancel: close,
    });
  }

  /**
   * The check of match `id`'s dice: started on first use (GET /api/matches/ID, then
   * verifyDice in the page), redrawn when it ends. {state, text}.
   */
  function diceCheck(id) {
    const known = app.diceChecks.get(id);
    if (known) return known;
    // The sentence is drawn from {key, args} each time (the page's language may change).
    const pending = { state: 'checking', key: 'web.dice.checking', args: {} };
    app.diceChecks.set(id, pending);
    const done = (state, key, args) => {
      app.diceChecks.set(id, { state, key, args });
      drawTable();
    };
    fetch(`/api/matches/${encodeURIComponent(id)}${tokenQuery()}`)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(t('web.server_answered', { status: String(r.status) })))))
      .then((record) => verifyDice(record))
      .then((v) => (v.verified
        ? done('verified', 'web.dice.verified', { rolls: v.rolls })
        : done('failed', 'web.dice.failed', { problem: v.problem })))
      .catch((e) => done('failed', 'web.dice.error', { error: e.message }));
    return pending;
  }

  function resultText(st) {
    const r = st.last_result;
    if (!r) return '';
    return t('web.result.text', { name: st.players[r.winner] ?? r.winner, side: r.winner, kind: r.kind, points: r.points });
  }

  function matchOverText(st) {
    const { red, black } = st.score;
    if (red === black && st.match_length === 0) return t('web.result.session_level');
    const w = red > black ? 'red' : 'black';
    return t('web.result.match_won', { name: st.players[w] ?? w, side: w, kind: st.match_length > 0 ? 'match' : 'session',
      high: String(Math.max(red, black)), low: String(Math.min(red, black)) });
  }

  /** A button that sends `/<cmd>` to the table. */
  function cmdButton(cmd, label, arg = '') {
    const b = button(label, () => sendLine(`/${cmd}${arg ? ` ${arg}` : ''}`));
    b.dataset.cmd = cmd;
    return b;
  }

  /** Buttons for the commands allowed now, from phase, turn, to_act, may_double, players. */
  function drawControls(st, mine, input) {
    const el = $('controls');
    el.replaceChildren();
    const p = st.phase;
    const seated = mine !== null;
    const both = Boolean(st.players?.red && st.players?.black);
    if (!seated && (!st.players?.red || !st.players?.black)) el.append(cmdButton('join', t('web.cmd.join')));
    // One of Start / Play again at a time: after a match, "Play again" is in the
    // end-of-match box, and here only while that box is closed (with "Match result").
    const boxClosed = p === 'match_over' && app.closedMatchBox.get(st.table) === (st.last_match_id ?? 'none');
    if (seated && both && p === 'waiting') el.append(cmdButton('start', t('web.cmd.start')));
    if (seated && both && p === 'match_over' && boxClosed) el.append(cmdButton('start', t('web.cmd.play_again')));
    if (boxClosed) {
      const reopen = button(t('web.cmd.match_result'), () => {
        app.closedMatchBox.delete(st.table);
        drawTable();
      });
      reopen.dataset.cmd = 'reopen-box';
      el.append(reopen);
    }
    if (seated && (p === 'opening' || (p === 'roll' && st.turn === mine))) el.append(cmdButton('roll', t('web.cmd.roll')));
    if (seated && p === 'roll' && st.turn === mine && st.may_double) el.append(cmdButton('double', t('web.cmd.double')));
    if (seated && p === 'cube_offered' && st.to_act === mine) el.append(cmdButton('take', t('web.cmd.take')), cmdButton('drop', t('web.cmd.drop')));
    if (seated && p === 'resign_offered' && st.to_act === mine) el.append(cmdButton('accept', t('web.cmd.accept')), cmdButton('reject', t('web.cmd.reject')));
    if (seated && p === 'game_over' && !(st.continuing?.[mine])) el.append(cmdButton('continue', t('web.cmd.continue')), cmdButton('stop', t('web.cmd.stop')));
    if (input) {
      if (app.pendingPlay !== null) {
        const confirm = button(t('web.cmd.confirm', { play: app.pendingPlay }), () => boardInput().confirm(), 'primary');
        confirm.dataset.cmd = 'confirm';
        el.append(confirm);
      }
      const undo = button(t('web.cmd.undo'), () => {
        app.input = app.input.undo();
        app.pendingPlay = null;
        app.selected = null;
        drawTable();
      });
      undo.dataset.cmd = 'undo';
      undo.disabled = input.steps.length === 0;
      el.append(undo);
      const hint = document.createElement('span');
      hint.className = 'hint';
      if (app.pendingPlay !== null) hint.textContent = t('web.hint.confirm');
      else hint.textContent = app.selected != null ? t('web.hint.pick_target') : t('web.hint.pick_checker');
      el.append(hint);
    }
    // Resign opens a dialog (what to offer, what it costs); its own button sends it.
    if (seated && (p === 'roll' || p === 'move') && !app.resignOpen) {
      const resign = button(t('web.cmd.resign'), () => {
        app.resignOpen = true;
        drawTable();
      }, 'quiet');
      resign.dataset.cmd = 'resign';
      resign.setAttribute('aria-haspopup', 'dialog');
      el.append(resign);
    }
    if (seated && (p === 'waiting' || p === 'match_over') && !app.optionsOpen) {
      const opts = button(t('web.cmd.options'), () => {
        app.optionsOpen = true;
        drawTable();
      });
      opts.dataset.cmd = 'options';
      opts.setAttribute('aria-haspopup', 'dialog');
      el.append(opts);
    }
    if (seated && (p === 'waiting' || p === 'match_over')) el.append(cmdButton('leave', t('web.cmd.leave')));
    for (const b of el.querySelectorAll('button[data-cmd="roll"]')) b.classList.add('primary');
    if (!seated && !el.children.length) {
      const s = document.createElement('span');
      s.className = 'hint';
      s.textContent = t('web.hint.watching');
      el.append(s);
    }
  }

  return { drawTable, drawMoves, drawPlayFrame };
}
