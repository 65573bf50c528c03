// Plays seen as they happen (issue 27, item 3): a play that arrives from the server (the
// opponent's, the computer's, or one's own typed in the chat) is shown checker by
// checker: the mover's dice first, then each checker gliding from its point to the next,
// a hit blot gliding to the bar. The computer answers in milliseconds; here its play
// takes a human pace. The plays are the server's (`moved` events); this module only
// draws them move by move (movelist.js playSteps, moves.js applySteps), and the table's
// next state is drawn when it is done.

import { playSteps } from './movelist.js';
import { applySteps } from './moves.js';
import { svg } from './dom.js';

/** The pace of each speed setting: the dice shown first, then each checker's glide (ms). */
export const SPEEDS = {
  off: null,
  fast: { dice: 250, glide: 160 },
  normal: { dice: 550, glide: 320 },
  slow: { dice: 900, glide: 600 },
};

/** Plays waiting at most (more, and the oldest are dropped: the board catches up). */
const MAX_QUEUE = 4;

/** A promise resolved after `ms` milliseconds. */
const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The centre of the checker of `side` drawn topmost at `place` of the SVG `board` (1..24, 'bar'),
 * or the newest slab of its tray ('off'); null when none is drawn.
 */
function checkerAt(board, place, side) {
  if (place === 'off') {
    const slabs = board.querySelectorAll(`.tray.${side} rect.slab`);
    const s = slabs[slabs.length - 1];
    return s ? { el: s, x: Number(s.getAttribute('x')) + Number(s.getAttribute('width')) / 2, y: Number(s.getAttribute('y')) + 6 } : null;
  }
  const group = place === 'bar' ? board.querySelector('.barplace') : board.querySelector(`.point[data-place="${place}"]`);
  const all = group ? group.querySelectorAll(`circle.checker.${side}`) : [];
  // On a point the top of the stack is drawn last; on the bar the first is nearest the middle.
  const c = place === 'bar' ? all[0] : all[all.length - 1];
  return c ? { el: c, x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) } : null;
}

/**
 * Moves a copy of a checker of `side` from `a` to `b` (SVG coordinates) over `ms`
 * milliseconds, on top of everything in the SVG `board`; resolves when it is there.
 */
function glide(board, side, a, b, ms) {
  const c = svg('circle', { class: `checker ${side} glide`, r: a.el?.getAttribute('r') ?? '17', cx: a.x, cy: a.y }, board);
  const start = performance.now();
  return new Promise((resolve) => {
    const frame = (now) => {
      const t = Math.min(1, (now - start) / ms);
      const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2; // ease in and out
      c.setAttribute('cx', (a.x + (b.x - a.x) * e).toFixed(1));
      c.setAttribute('cy', (a.y + (b.y - a.y) * e).toFixed(1));
      if (t < 1) requestAnimationFrame(frame);
      else {
        c.remove();
        resolve();
      }
    };
    requestAnimationFrame(frame);
  });
}

/**
 * One step of the player's own play, made on this board: `redraw()` draws the board
 * with it, and the checker that moved glides there from `from` over `ms` milliseconds
 * (0: it is simply there). Nothing waits for it: the next click may come at once.
 */
export function showOwnStep(board, side, from, to, ms, redraw) {
  const a = ms > 0 ? checkerAt(board, from, side) : null;
  redraw();
  const b = a ? checkerAt(board, to, side) : null;
  if (!a || !b) return;
  b.el.style.visibility = 'hidden';
  glide(board, side, a, b, ms).then(() => {
    b.el.style.visibility = '';
  });
}

/**
 * The table's plays shown one at a time. `draw(board, dice, side)` draws the table's
 * board with that position and the mover's dice (nothing to pick); `done()` draws the
 * table from its last state again; `speed()` names the setting (SPEEDS); `onHit()` is
 * called at each hit (a sound).
 */
export class PlayAnimator {
  constructor({ svg, draw, done, speed, onHit = () => {} }) {
    this.svg = svg;
    this.draw = draw;
    this.done = done;
    this.speed = speed;
    this.onHit = onHit;
    this.queue = [];
    this.running = false;
    this.table = null;
  }

  /** Whether a play is being shown (the table waits to be drawn). */
  get busy() {
    return this.running;
  }

  /** Drops what waits (another table on screen, the page hidden). */
  clear() {
    this.queue = [];
    this.table = null;
  }

  /**
   * Shows play `play` of `side` with `dice` at `table`, from `board` (the position
   * drawn before it) in `variant`; plays that come meanwhile wait their turn. Returns
   * false (nothing to show) when the setting is off or the page is hidden.
   */
  add({ table, board, side, dice, play, variant }) {
    const pace = SPEEDS[this.speed()];
    if (!pace || document.hidden || !board) return false;
    if (this.table !== table) this.clear();
    this.table = table;
    this.queue.push({ board, side, dice, play, variant });
    if (this.queue.length > MAX_QUEUE) this.queue.splice(0, this.queue.length - MAX_QUEUE);
    if (!this.running) this.run();
    return true;
  }

  async run() {
    this.running = true;
    try {
      while (this.queue.length) {
        const p = this.queue.shift();
        const pace = SPEEDS[this.speed()];
        if (!pace || document.hidden) break;
        // The board as the play starts: the table's last state before the play's event.
        let board = p.board;
        this.draw(board, p.dice, p.side);
        await wait(pace.dice);
        for (const step of playSteps(p.play, p.side, p.variant)) {
          if (this.table === null) break;
          const other = p.side === 'red' ? 'black' : 'red';
          const from = checkerAt(this.svg, step.from, p.side);
          const victim = step.hits.length ? checkerAt(this.svg, step.to, other) : null;
          const next = applySteps(board, p.side, [step]);
          const hit = next.bar[other] > board.bar[other];
          board = next;
          this.draw(board, p.dice, p.side);
          const to = checkerAt(this.svg, step.to, p.side);
          const onBar = hit ? checkerAt(this.svg, 'bar', other) : null;
          if (!from || !to) continue;
          // The checkers that arrive are hidden while their copies glide there.
          to.el.style.visibility = 'hidden';
          if (onBar) onBar.el.style.visibility = 'hidden';
          const moving = [glide(this.svg, p.side, from, to, pace.glide)];
          if (hit && victim && onBar) {
            this.onHit();
            moving.push(glide(this.svg, other, victim, onBar, pace.glide));
          }
          await Promise.all(moving);
          to.el.style.visibility = '';
          if (onBar) onBar.el.style.visibility = '';
        }
        await wait(pace.glide / 2);
      }
    } finally {
      this.running = false;
      this.queue = [];
      this.done();
    }
  }
}
