// Moving checkers on the table's board (issue 27, items 4 and 8): a tap on a checker
// and then on a highlighted destination, a drag, or the keyboard (a cursor through the
// places that can be picked, then their destinations; Enter, Escape, Backspace). The
// choices are the server's (state.legal_moves through moves.js's MoveInput); a complete
// play waits for Confirm (the setting) and is sent as one /move. The play in progress
// lives in the page's state object (`app`: input, selected, cursor, pendingPlay,
// sentMove), which the tests read too.

import { SPEEDS, showOwnStep } from './animate.js';
import { settings } from './settings.js';
import { t } from './i18n.js';

/** The input on `svg` (the table's board) for the page's state `app`. */
export class BoardInput {
  /**
   * @param {{svg: SVGSVGElement, app: object, redraw: () => void,
   *   sendLine: (text: string) => void, side: () => string|null}} options redraw: the
   *   table drawn again; sendLine: a line to the table; side: the player's side there
   */
  constructor({ svg, app, redraw, sendLine, side }) {
    this.svg = svg;
    this.app = app;
    this.redraw = redraw;
    this.sendLine = sendLine;
    this.side = side;
  }

  /** Listens to the board's pointer and keys. */
  setup() {
    this.setupPointer();
    this.setupKeys();
  }

  /** The place ("bar", "off" or 1..24) under a pointer event, or null. */
  placeAt(x, y) {
    const hit = document.elementFromPoint(x, y)?.closest('[data-place]');
    if (!hit || !this.svg.contains(hit)) return null;
    const p = hit.dataset.place;
    return p === 'bar' || p === 'off' ? p : Number(p);
  }

  /** Makes one step of the play; sends the play when it is complete (or waits for Confirm). */
  makeStep(from, to) {
    const app = this.app;
    const next = app.input?.step(from, to);
    if (!next) return;
    app.input = next;
    app.selected = null;
    const done = next.complete();
    if (done !== null) {
      if (settings.confirmPlay) app.pendingPlay = done; // sent by Confirm (Undo until then)
      else this.sendPlay(done);
    }
    // The checker glides to its new place, quicker than a play from the server.
    const pace = SPEEDS[settings.speed];
    const side = this.side();
    showOwnStep(this.svg, side, from, to, pace && side ? Math.round(pace.glide * 0.6) : 0, this.redraw);
  }

  /** Sends the complete play `play` ("24/18 13/11") once. */
  sendPlay(play) {
    this.app.pendingPlay = null;
    this.app.sentMove = true;
    this.sendLine(`/move ${play}`);
  }

  /** Confirm: sends the play waiting for it. */
  confirm() {
    if (this.app.pendingPlay === null || this.app.sentMove) return;
    this.sendPlay(this.app.pendingPlay);
    this.redraw();
  }

  /**
   * The places the keyboard's cursor goes through now: the destinations of the picked
   * checker, else the checkers that can move (both from the server's legal_moves through
   * MoveInput), in board order.
   */
  cursorPlaces() {
    const app = this.app;
    if (!app.input) return [];
    const set = app.selected != null ? app.input.destinations(app.selected) : app.input.sources();
    const order = (p) => (p === 'bar' ? 0 : p === 'off' ? 25 : p);
    return [...set].sort((a, b) => order(a) - order(b));
  }

  /** What the board says to a screen reader and in its status line now (dice: the roll). */
  status(dice) {
    const app = this.app;
    if (!app.input) return '';
    if (app.pendingPlay !== null) return t('web.input.pending', { play: app.pendingPlay });
    const name = (p) => (p === 'bar' ? t('web.input.bar') : p === 'off' ? t('web.input.off') : t('web.input.point', { point: String(p) }));
    const at = app.cursor != null ? name(app.cursor) : t('web.input.nothing');
    return app.selected != null
      ? t('web.input.picked', { place: name(app.selected), at })
      : t('web.input.turn', { dice: (dice ?? []).join('-'), at });
  }

  /**
   * The board from the keyboard: the board takes the focus; the arrow keys move a cursor
   * through the places that can be picked (then their destinations), Enter or Space
   * picks or moves, Escape puts a picked checker back, Backspace undoes a step, and
   * Enter confirms a play waiting for Confirm.
   */
  setupKeys() {
    const app = this.app;
    this.svg.tabIndex = 0;
    this.svg.addEventListener('keydown', (e) => {
      if (!app.input || app.sentMove) return;
      const places = this.cursorPlaces();
      const key = e.key;
      if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(key)) {
        if (!places.length) return;
        const i = places.indexOf(app.cursor);
        const step = key === 'ArrowRight' || key === 'ArrowDown' ? 1 : -1;
        app.cursor = places[(i + step + places.length) % places.length];
      } else if (key === 'Enter' || key === ' ') {
        if (app.pendingPlay !== null) {
          this.confirm();
        } else if (app.selected != null && places.includes(app.cursor)) {
          const to = app.cursor;
          app.cursor = null;
          this.makeStep(app.selected, to);
        } else if (app.selected == null && places.includes(app.cursor)) {
          app.selected = app.cursor;
          app.cursor = this.cursorPlaces()[0] ?? null;
        } else {
          return;
        }
      } else if (key === 'Escape' && app.selected != null) {
        app.cursor = app.selected;
        app.selected = null;
      } else if (key === 'Backspace' && app.input.steps.length) {
        app.input = app.input.undo();
        app.pendingPlay = null;
        app.selected = null;
        app.cursor = null;
      } else {
        return;
      }
      e.preventDefault();
      this.redraw();
    });
  }

  /** Tap a checker then a destination, or drag the checker there. */
  setupPointer() {
    const app = this.app;
    const svg = this.svg;
    let drag = null; // {from, ghost, x, y, moved}
    svg.addEventListener('pointerdown', (e) => {
      if (!app.input || app.sentMove) return;
      const place = this.placeAt(e.clientX, e.clientY);
      if (place === null) return;
      if (app.selected != null && app.input.destinations(app.selected).has(place)) {
        this.makeStep(app.selected, place);
        return;
      }
      if (app.input.sources().has(place)) {
        app.selected = place;
        this.redraw();
        drag = { from: place, x: e.clientX, y: e.clientY, moved: false, ghost: null };
        svg.setPointerCapture(e.pointerId);
      } else if (app.selected != null) {
        app.selected = null;
        this.redraw();
      }
    });
    svg.addEventListener('pointermove', (e) => {
      if (!drag) return;
      if (!drag.moved && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 8) return;
      drag.moved = true;
      if (!drag.ghost) {
        drag.ghost = document.createElement('div');
        drag.ghost.className = `ghost ${app.input.side}`;
        document.body.appendChild(drag.ghost);
      }
      drag.ghost.style.left = `${e.clientX}px`;
      drag.ghost.style.top = `${e.clientY}px`;
    });
    const end = (e) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      d.ghost?.remove();
      if (!d.moved || !app.input) return;
      const place = this.placeAt(e.clientX, e.clientY);
      if (place !== null && place !== d.from && app.input.destinations(d.from).has(place)) {
        this.makeStep(d.from, place);
      }
    };
    svg.addEventListener('pointerup', end);
    svg.addEventListener('pointercancel', () => {
      drag?.ghost?.remove();
      drag = null;
    });
  }
}
