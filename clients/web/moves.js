// Move input without rules.
//
// The client knows no backgammon rule: the server sends `state.legal`, every legal
// play of the side on turn as the string `/move` takes, and next to it
// `state.legal_moves`, the same plays as their checker moves: `legal_moves[i]` lists
// the moves of `legal[i]`, each `{from, to, hit}` in board places (1..24 in R1
// numbering, "bar", "off"), in an order in which they can be made, `hit` marking a
// move that sends an opposing blot to the bar (protocol/PROTOCOL.md). This module
// follows that list, one checker at a time:
//
// 1. The *candidates* are the legal plays still consistent with the steps made, each
//    with the moves not made yet.
// 2. A *source* is the `from` of a remaining move of a candidate, on a place where the
//    drawn board has a checker of the mover. The *destinations* of a source are the
//    `to` of those moves and, further, the `to` of the candidate's moves that carry
//    the same checker on (a 6-5 played 24/18/13 is one step to 13, or two).
// 3. Making a step (from, to) keeps the candidates with such a chain of remaining
//    moves and removes its moves from them. Steps can be undone one by one.
// 4. When a candidate has no move left, the play is complete and its legal string
//    is sent verbatim as `/move <play>`.
//
// Nothing here decides what is legal, which checker enters first or what is hit:
// the order of the list is the server's, and a step carries the places the server
// marked `hit` on its moves, so the board can draw the hit blot on the bar before the
// server answers. The server judges the whole play when it is sent.

/**
 * The board after `steps` of `side`, for drawing a play in progress. `board` is
 * state.board (points: + red, − black). Each step's `hits` are board points where the
 * server marked a hit: one opposing checker there goes to its bar.
 */
export function applySteps(board, side, steps) {
  const points = board.points.slice();
  const bar = { ...board.bar };
  const off = { ...board.off };
  const sign = side === 'red' ? 1 : -1;
  const other = side === 'red' ? 'black' : 'red';
  for (const s of steps) {
    if (s.from === 'bar') bar[side] -= 1;
    else points[s.from - 1] -= sign;
    for (const h of s.hits) {
      if (typeof h === 'number' && points[h - 1] * sign < 0) {
        points[h - 1] += sign;
        bar[other] += 1;
      }
    }
    if (s.to === 'off') off[side] += 1;
    else points[s.to - 1] += sign;
  }
  return { points, bar, off };
}

/** Whether `board` has a checker of `side` on `place` (1..24 or "bar"). */
function hasChecker(board, side, place) {
  if (place === 'bar') return (board.bar?.[side] ?? 0) > 0;
  if (typeof place !== 'number') return false;
  const n = board.points[place - 1] ?? 0;
  return side === 'red' ? n > 0 : n < 0;
}

/**
 * The chains of remaining moves `moves` that carry one checker from `from`: each a
 * list of indices into `moves`, the first starting on `from`, each next one starting
 * where the previous ended. Shortest chains first.
 */
function chainsFrom(moves, from) {
  const out = [];
  let frontier = [];
  moves.forEach((m, i) => {
    if (m.from === from) frontier.push([i]);
  });
  while (frontier.length) {
    out.push(...frontier);
    const next = [];
    for (const chain of frontier) {
      const end = moves[chain[chain.length - 1]].to;
      moves.forEach((m, i) => {
        if (m.from === end && !chain.includes(i)) next.push([...chain, i]);
      });
    }
    frontier = next;
  }
  return out;
}

/**
 * The state of one play being entered: the candidate legal plays still consistent
 * with the steps made, and the steps. Immutable: every change returns a new one.
 */
export class MoveInput {
  /**
   * @param {string[]} legal  state.legal
   * @param {Array<Array<{from, to, hit}>>} legalMoves  state.legal_moves (parallel to legal)
   * @param {'red'|'black'} side  the mover (state.turn)
   * @param {{points, bar, off}} board  state.board, the position before the play
   */
  constructor(legal, legalMoves, side, board, steps = [], candidates = null) {
    this.legal = legal;
    this.legalMoves = legalMoves;
    this.side = side;
    this.board = board;
    this.steps = steps;
    this.candidates =
      candidates ??
      legal
        .map((text, i) => ({ text, moves: Array.isArray(legalMoves?.[i]) ? legalMoves[i] : [] }))
        .filter((c) => c.moves.length > 0);
    // The board as drawn with the steps made: where the mover's checkers are now.
    this.drawn = steps.length ? applySteps(board, side, steps) : board;
  }

  /** Places holding a checker of the mover that some candidate play moves next. */
  sources() {
    const out = new Set();
    for (const c of this.candidates) {
      for (const m of c.moves) if (hasChecker(this.drawn, this.side, m.from)) out.add(m.from);
    }
    return out;
  }

  /** Places the checker on `from` may be moved to as one step. */
  destinations(from) {
    const out = new Set();
    if (!hasChecker(this.drawn, this.side, from)) return out;
    for (const c of this.candidates) {
      for (const chain of chainsFrom(c.moves, from)) out.add(c.moves[chain[chain.length - 1]].to);
    }
    return out;
  }

  /** A new input with the step from → to made, or null when no legal play allows it. */
  step(from, to) {
    if (!hasChecker(this.drawn, this.side, from)) return null;
    const kept = [];
    let hits = null;
    for (const c of this.candidates) {
      const chain = chainsFrom(c.moves, from).find((ch) => c.moves[ch[ch.length - 1]].to === to);
      if (!chain) continue;
      if (hits === null) hits = chain.filter((i) => c.moves[i].hit).map((i) => c.moves[i].to);
      kept.push({ text: c.text, moves: c.moves.filter((_, i) => !chain.includes(i)) });
    }
    if (kept.length === 0) return null;
    const steps = [...this.steps, { from, to, hits }];
    return new MoveInput(this.legal, this.legalMoves, this.side, this.board, steps, kept);
  }

  /** A new input without the last step (the same one when there is none). */
  undo() {
    let input = new MoveInput(this.legal, this.legalMoves, this.side, this.board);
    for (const s of this.steps.slice(0, -1)) input = input.step(s.from, s.to);
    return input;
  }

  /** The legal string of a candidate whose moves are all made, else null. */
  complete() {
    const done = this.candidates.find((c) => c.moves.length === 0);
    return done ? done.text : null;
  }
}
