// Draws a table's board in SVG from what the server sent: state.board, dice, cube.
//
// Geometry only, no rules. Board points keep R1's numbering (1..24). The drawing is
// seen from the `bottom` side (the seated player, black for spectators):
// - standard: black's points 1-12 along the bottom (1 at the right), 13-24 along the
//   top (24 at the right); black moves counter-clockwise 24 -> 1 and bears off at the
//   bottom right, red clockwise 1 -> 24, bearing off at the top right (seed 000).
// - long: black starts on 1 (top right) and moves 1 -> 24 (home 19-24 at the bottom
//   right); red starts on 13 (bottom left) and moves 13 -> 24 -> 1 -> 12, bearing off
//   at the top left: both counter-clockwise.
// Seen from red, the picture is turned half a turn, which keeps both directions.

import { svg as el } from './dom.js';
import { boardPlace } from './movelist.js';
import { t as tr } from './i18n.js';

/** The states of a place as one phrase ("can move, picked"). */
function statesText(states) {
  return states.reduce((a, b) => tr('web.board.list', { first: a, second: b }));
}

/** Sizes of the drawing, in SVG units. */
const G = {
  W: 780,
  H: 548,
  edge: 24, // frame above and below the points (room for tutor numbers)
  tray: 60, // off tray column, left and right
  bar: 60,
  pw: 50, // point width
  ph: 230, // point area height
  r: 22, // checker radius
  step: 45, // distance between stacked checkers
};
G.mid = G.H / 2;
G.leftX = G.tray; // left half of the field starts here
G.barX = G.tray + 6 * G.pw; // the bar starts here
G.rightX = G.barX + G.bar;

/** Canonical slot of board point b (black at the bottom): {col 0..11 left to right, top}. */
function canonicalSlot(variant, b) {
  if (variant === 'long') return b <= 12 ? { col: 12 - b, top: true } : { col: b - 13, top: false };
  return b <= 12 ? { col: 12 - b, top: false } : { col: b - 13, top: true };
}

/** Canonical off tray of `side`: {right, top}. */
function canonicalTray(variant, side) {
  if (side === 'black') return { right: true, top: false };
  return { right: variant !== 'long', top: true };
}

/** Where things are drawn for a given variant and bottom side. */
export function layout(variant, bottom) {
  const turn = bottom === 'red';
  return {
    slot(b) {
      const s = canonicalSlot(variant, b);
      return turn ? { col: 11 - s.col, top: !s.top } : s;
    },
    tray(side) {
      const t = canonicalTray(variant, side);
      return turn ? { right: !t.right, top: !t.top } : t;
    },
    /** True when `side`'s checkers on the bar are drawn in the lower half. */
    barLow(side) {
      return side === bottom;
    },
  };
}

function colX(col) {
  return col < 6 ? G.leftX + G.pw / 2 + col * G.pw : G.rightX + G.pw / 2 + (col - 6) * G.pw;
}

/** Centre y of the k-th checker (0 = at the edge) on a top or bottom point. */
function stackY(top, k) {
  return top ? G.edge + G.r + 1 + k * G.step : G.H - G.edge - G.r - 1 - k * G.step;
}

function checker(parent, side, x, y, extra = '') {
  return el('circle', { cx: x, cy: y, r: G.r, class: `checker ${side} ${extra}`.trim() }, parent);
}

/** "3 red checkers", "1 black checker", "no checker". */
function checkersText(count, side) {
  if (count === 0) return tr('web.board.no_checker');
  return tr('web.board.checkers', { count, side });
}

/** Gives group `g` the accessible name `label` (one image to a screen reader). */
function named(g, label) {
  g.setAttribute('role', 'img');
  g.setAttribute('aria-label', label);
  return g;
}

/** One die face. */
function die(parent, x, y, value, side) {
  const g = el('g', { class: `die ${side}`, 'data-value': value }, parent);
  el('rect', { x: x - 19, y: y - 19, width: 38, height: 38, rx: 7 }, g);
  const pips = {
    1: [[0, 0]],
    2: [[-1, -1], [1, 1]],
    3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
    5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  }[value] ?? [];
  for (const [dx, dy] of pips) el('circle', { cx: x + dx * 10, cy: y + dy * 10, r: 3.6, class: 'pip' }, g);
}

/**
 * Draws the board into `svg`.
 * @param {SVGSVGElement} svg
 * @param {object} v  what to draw:
 *   board {points, bar, off}, variant, bottom ('red'|'black'), tutor (bool),
 *   dice [a, b] and diceSide, cube {value, owner, offered_by},
 *   sources (Set of places that can be picked), selected (place or null),
 *   targets (Set of places the selected checker may go to), mover (side or null),
 *   cursor (the place the keyboard's cursor is on, or null),
 *   last (the last play's places, movelist.js playPlaces: {from, to, hits} Sets of
 *   1..24, 'bar', 'off'; marked until the next roll), diceClass ('played': the dice of
 *   a play already made, drawn dimmed)
 */
export function drawBoard(svg, v) {
  const L = layout(v.variant, v.bottom);
  svg.setAttribute('viewBox', `0 0 ${G.W} ${G.H}`);
  svg.replaceChildren();
  svg.dataset.variant = v.variant;
  svg.dataset.bottom = v.bottom;

  // Frame, field, bar, trays.
  el('rect', { x: 0, y: 0, width: G.W, height: G.H, rx: 10, class: 'frame' }, svg);
  el('rect', { x: G.leftX, y: G.edge, width: 6 * G.pw, height: G.H - 2 * G.edge, class: 'field' }, svg);
  el('rect', { x: G.rightX, y: G.edge, width: 6 * G.pw, height: G.H - 2 * G.edge, class: 'field' }, svg);
  el('rect', { x: G.barX, y: 0, width: G.bar, height: G.H, class: 'bar' }, svg);

  const sources = v.sources ?? new Set();
  const targets = v.targets ?? new Set();

  // Points: triangle, hit area, checkers, tutor number.
  for (let b = 1; b <= 24; b++) {
    const { col, top } = L.slot(b);
    const x = colX(col);
    const base = top ? G.edge : G.H - G.edge;
    const apex = top ? G.edge + G.ph - 28 : G.H - G.edge - G.ph + 28;
    const g = el('g', { class: 'point', 'data-place': b }, svg);
    if (v.last?.from.has(b)) g.classList.add('last-from');
    if (v.last?.to.has(b)) g.classList.add('last-to');
    if (sources.has(b)) g.classList.add('source');
    if (v.selected === b) g.classList.add('selected');
    if (targets.has(b)) g.classList.add('target');
    if (v.cursor === b) g.classList.add('cursor');
    el('polygon', {
      points: `${x - G.pw / 2 + 2},${base} ${x + G.pw / 2 - 2},${base} ${x},${apex}`,
      class: `tri ${(col + (top ? 0 : 1)) % 2 === 0 ? 'tri-a' : 'tri-b'}`,
    }, g);
    el('rect', {
      x: x - G.pw / 2, y: top ? G.edge : G.mid, width: G.pw, height: G.mid - G.edge, class: 'hit',
    }, g);
    const n = v.board.points[b - 1];
    const side = n > 0 ? 'red' : 'black';
    const count = Math.abs(n);
    const shown = Math.min(count, 5);
    for (let k = 0; k < shown; k++) {
      const last = k === shown - 1;
      checker(g, side, x, stackY(top, k), last && v.selected === b ? 'lifted' : '');
    }
    if (count > 5) {
      el('text', { x, y: stackY(top, 4) + 1, class: `count ${side}` }, g, String(count));
    }
    if (targets.has(b)) {
      el('circle', { cx: x, cy: stackY(top, Math.min(count, 4)), r: 9, class: 'target-dot' }, g);
    }
    // The last play: a ring on the checker that arrived, a dashed one where it left.
    if (v.last?.to.has(b) && count > 0) {
      el('circle', { cx: x, cy: stackY(top, shown - 1), r: 24, class: 'last-mark to' }, g);
    }
    if (v.last?.from.has(b)) {
      el('circle', { cx: x, cy: stackY(top, Math.min(count, 4)), r: 20, class: 'last-mark from' }, g);
    }
    const states = [sources.has(b) && tr('web.board.can_move'), v.selected === b && tr('web.board.picked'), targets.has(b) && tr('web.board.destination'),
      v.cursor === b && tr('web.board.cursor'), v.last?.from.has(b) && tr('web.board.last_from'), v.last?.to.has(b) && tr('web.board.last_to')]
      .filter(Boolean);
    // (a side's own numbering is its own inverse: boardPlace gives the number of board point b)
    const pointArgs = { point: String(boardPlace(b, v.bottom, v.variant)), checkers: checkersText(count, side) };
    named(g, states.length ? tr('web.board.point_states', { ...pointArgs, states: statesText(states) }) : tr('web.board.point', pointArgs));
    if (v.tutor) {
      el('text', { x, y: top ? G.edge - 7 : G.H - 7, class: 'tutor', 'aria-hidden': 'true' }, svg, String(b));
    }
  }

  // The bar: each side's checkers, the mover's bar as a place to pick.
  const barG = el('g', { class: 'barplace', 'data-place': 'bar' }, svg);
  if (v.last?.from.has('bar')) barG.classList.add('last-from');
  if (v.last?.hits.size) barG.classList.add('last-hit');
  if (sources.has('bar')) barG.classList.add('source');
  if (v.selected === 'bar') barG.classList.add('selected');
  if (v.cursor === 'bar') barG.classList.add('cursor');
  el('rect', { x: G.barX, y: G.edge, width: G.bar, height: G.H - 2 * G.edge, class: 'hit' }, barG);
  for (const side of ['red', 'black']) {
    const count = v.board.bar[side];
    const low = L.barLow(side);
    const cx = G.barX + G.bar / 2;
    for (let k = 0; k < Math.min(count, 3); k++) {
      const cy = low ? G.mid + 26 + 36 + k * G.step : G.mid - 26 - 36 - k * G.step;
      checker(barG, side, cx, cy, `on-bar ${k === 0 && v.selected === 'bar' && side === v.mover ? 'lifted' : ''}`);
    }
    if (count > 1) {
      const cy = low ? G.mid + 62 : G.mid - 62;
      el('text', { x: cx, y: cy + 1, class: `count ${side}` }, barG, String(count));
    }
  }

  const barStates = [sources.has('bar') && tr('web.board.can_move'), v.selected === 'bar' && tr('web.board.picked'), v.cursor === 'bar' && tr('web.board.cursor'),
    v.last?.hits.size && tr('web.board.hit_last')].filter(Boolean);
  const barArgs = { red: checkersText(v.board.bar.red, 'red'), black: checkersText(v.board.bar.black, 'black') };
  named(barG, barStates.length ? tr('web.board.bar_states', { ...barArgs, states: statesText(barStates) }) : tr('web.board.bar', barArgs));

  // Off trays: borne-off checkers as slabs; the mover's tray can be a destination.
  for (const side of ['red', 'black']) {
    const t = L.tray(side);
    const x0 = t.right ? G.rightX + 6 * G.pw : 0;
    const y0 = t.top ? G.edge : G.mid + 8;
    const h = G.mid - G.edge - 8;
    const g = el('g', { class: `tray ${side}`, 'data-place': 'off', 'data-side': side }, svg);
    if (side === v.lastSide && v.last?.to.has('off')) g.classList.add('last-to');
    if (side === v.mover && targets.has('off')) g.classList.add('target');
    if (side === v.mover && v.cursor === 'off') g.classList.add('cursor');
    el('rect', { x: x0 + 8, y: y0, width: G.tray - 16, height: h, rx: 4, class: 'tray-bed' }, g);
    const count = v.board.off[side];
    for (let k = 0; k < count; k++) {
      const y = t.top ? y0 + 3 + k * 14 : y0 + h - 15 - k * 14;
      el('rect', { x: x0 + 12, y, width: G.tray - 24, height: 12, rx: 3, class: `slab ${side}` }, g);
    }
    if (count > 0) {
      el('text', { x: x0 + G.tray / 2, y: t.top ? y0 + h - 6 : y0 + 14, class: 'tray-count' }, g, String(count));
    }
    const trayStates = [side === v.mover && targets.has('off') && tr('web.board.destination'), side === v.mover && v.cursor === 'off' && tr('web.board.cursor')]
      .filter(Boolean);
    named(g, trayStates.length ? tr('web.board.tray_states', { side, count: String(count), states: statesText(trayStates) })
      : tr('web.board.tray', { side, count: String(count) }));
  }

  // Dice: on the right half when the bottom side rolled, on the left half otherwise.
  if (v.dice && v.dice.length === 2) {
    const right = v.diceSide === v.bottom;
    const cx = right ? G.rightX + 3 * G.pw : G.leftX + 3 * G.pw;
    const g = el('g', { class: `dice ${v.diceClass ?? ''}`, 'data-side': v.diceSide }, svg);
    die(g, cx - 26, G.mid, v.dice[0], v.diceSide);
    die(g, cx + 26, G.mid, v.dice[1], v.diceSide);
    const diceArgs = { side: v.diceSide, first: String(v.dice[0]), second: String(v.dice[1]) };
    named(g, v.diceClass === 'played' ? tr('web.board.dice_played', diceArgs) : tr('web.board.dice', diceArgs));
  }

  // The cube: in the middle when centred, at the owner's edge of the bar when owned,
  // beside the doubler's dice place while an offer waits.
  if (v.cube) {
    const cx = G.barX + G.bar / 2;
    let x = cx;
    let y = G.mid;
    let shown = v.cube.value === 1 ? 64 : v.cube.value;
    let cls = 'cube';
    if (v.cube.offered_by) {
      shown = v.cube.value * 2;
      const right = v.cube.offered_by !== v.bottom; // offered to the other side's half
      x = right ? G.rightX + 3 * G.pw : G.leftX + 3 * G.pw;
      cls += ' offered';
    } else if (v.cube.owner === 'red' || v.cube.owner === 'black') {
      y = v.cube.owner === v.bottom ? G.H - G.edge - 24 : G.edge + 24;
    }
    const g = el('g', {
      class: cls, id: 'cube', 'data-value': shown, 'data-owner': v.cube.owner,
    }, svg);
    el('rect', { x: x - 21, y: y - 21, width: 42, height: 42, rx: 6 }, g);
    el('text', { x, y: y + 1 }, g, String(shown));
    named(g, v.cube.offered_by ? tr('web.board.cube_offered', { value: String(shown), side: v.cube.offered_by })
      : v.cube.owner === 'red' || v.cube.owner === 'black' ? tr('web.board.cube_owned', { value: String(v.cube.value), side: v.cube.owner })
        : tr('web.board.cube_middle', { value: String(v.cube.value) }));
  }
}
