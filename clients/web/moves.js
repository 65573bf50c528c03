// Move input without rules.
//
// The client knows no backgammon rule: the server sends `state.legal`, every legal
// play of the side on turn as a string in the mover's own numbering ("24/18 13/11",
// "bar/22", "6/off", "13/7*/1", "8/2(2)"). This module turns those strings into what
// the board can offer, one checker at a time:
//
// 1. Each legal play is parsed into parts: a checker's written path (from, any
//    intermediate points written because it hit there, to), "(n)" expanded to n
//    copies. Mover-numbered points become board places (1..24 in R1 numbering, "bar",
//    "off") with the variant's mapping.
// 2. A *source* is the first place of a remaining part of some candidate play. The
//    *destinations* of a source are the later places of those parts: the end and the
//    written intermediate points. A part like 24/13 (6-5 with one checker) is offered
//    as one step to 13 only: finding its intermediate point would need the rules.
// 3. Making a step (from, to) keeps only the candidate plays that have a remaining
//    part from `from` through `to`, and shortens that part (or removes it when `to`
//    is its end). Steps can be undone one by one.
// 4. When a candidate has no part left, the play is complete and its legal string is
//    sent verbatim as `/move <play>`.
//
// The order of a play's parts does not matter to the server (the play is sent
// whole), with one exception kept here: parts from the bar are offered first, as the
// written play enters before it moves anything else.
//
// Steps also carry the places where the part was marked "*" on the way, so the
// board can draw the hit blot on the bar before the server answers.

/** Board place of mover-numbered point `p` (25 = bar, 0 = off) for `side`. */
export function ownToBoard(side, variant, p) {
  if (p === 25) return 'bar';
  if (p === 0) return 'off';
  if (variant === 'long') {
    return side === 'black' ? 25 - p : ((36 - p) % 24) + 1;
  }
  return side === 'black' ? p : 25 - p;
}

/** Mover-numbered point of board point `b` (1..24) for `side`: the inverse of ownToBoard. */
export function boardToOwn(side, variant, b) {
  if (variant === 'long') {
    return side === 'black' ? 25 - b : ((36 - b) % 24) + 1;
  }
  return side === 'black' ? b : 25 - b;
}

/**
 * Parses one play in gnubg notation into its parts, each `{points, hits}` in the
 * mover's numbering (25 = bar, 0 = off), "(n)" expanded. Returns null when unreadable.
 */
export function parsePlay(text) {
  const parts = [];
  for (const token of text.trim().split(/[\s,]+/).filter(Boolean)) {
    const m = /^(.*?)(?:\((\d)\))?$/.exec(token);
    const repeat = m[2] ? Number(m[2]) : 1;
    const points = [];
    const hits = [];
    for (const raw of m[1].split('/')) {
      const pm = /^(bar|off|\d{1,2})(\*)?$/i.exec(raw);
      if (!pm) return null;
      const word = pm[1].toLowerCase();
      points.push(word === 'bar' ? 25 : word === 'off' ? 0 : Number(word));
      hits.push(Boolean(pm[2]));
    }
    if (points.length < 2) return null;
    for (let i = 0; i < repeat; i++) {
      // gnubg marks a hit once on merged parts ("6/2*(2)"): only the first copy hits.
      parts.push({ points, hits: i === 0 ? hits : hits.map(() => false) });
    }
  }
  return parts;
}

/**
 * The state of one play being entered: the candidate legal plays still consistent
 * with the steps made, and the steps. Immutable: every change returns a new one.
 */
export class MoveInput {
  /**
   * @param {string[]} legal  state.legal
   * @param {'red'|'black'} side  the mover
   * @param {string} variant  state.variant ("standard" or "long")
   */
  constructor(legal, side, variant, steps = [], candidates = null) {
    this.legal = legal;
    this.side = side;
    this.variant = variant;
    this.steps = steps;
    this.candidates =
      candidates ??
      legal
        .map((text) => ({ text, parsed: parsePlay(text) }))
        .filter((c) => c.parsed && c.parsed.length > 0)
        .map(({ text, parsed }) => ({
          text,
          parts: parsed.map((part) => ({
            places: part.points.map((p) => ownToBoard(side, variant, p)),
            hits: part.hits,
          })),
        }));
  }

  /** Places holding a checker that some candidate play moves next. */
  sources() {
    const out = new Set();
    for (const c of this.candidates) for (const part of nextParts(c)) out.add(part.places[0]);
    return out;
  }

  /** Places the checker on `from` may be moved to as one step. */
  destinations(from) {
    const out = new Set();
    for (const c of this.candidates) {
      for (const part of nextParts(c)) {
        if (part.places[0] !== from) continue;
        for (const place of part.places.slice(1)) out.add(place);
      }
    }
    return out;
  }

  /** A new input with the step from → to made, or null when no legal play allows it. */
  step(from, to) {
    const kept = [];
    let hitsOnWay = null;
    for (const c of this.candidates) {
      const i = pickPart(c.parts, from, to);
      if (i < 0) continue;
      const part = c.parts[i];
      const at = part.places.indexOf(to, 1);
      const hit = part.places.slice(1, at + 1).filter((_, k) => part.hits[k + 1]);
      if (hitsOnWay === null || hit.length > hitsOnWay.length) hitsOnWay = hit;
      const rest = c.parts.slice();
      if (at === part.places.length - 1) rest.splice(i, 1);
      else rest[i] = { places: part.places.slice(at), hits: part.hits.slice(at) };
      kept.push({ text: c.text, parts: rest });
    }
    if (kept.length === 0) return null;
    const steps = [...this.steps, { from, to, hits: hitsOnWay ?? [] }];
    return new MoveInput(this.legal, this.side, this.variant, steps, kept);
  }

  /** A new input without the last step (the same one when there is none). */
  undo() {
    let input = new MoveInput(this.legal, this.side, this.variant);
    for (const s of this.steps.slice(0, -1)) input = input.step(s.from, s.to);
    return input;
  }

  /** The legal string of a candidate whose parts are all played, else null. */
  complete() {
    const done = this.candidates.find((c) => c.parts.length === 0);
    return done ? done.text : null;
  }
}

/**
 * The parts of candidate `c` that may be played now: its parts from the bar while it
 * has any (a play enters before anything else moves), else all of them.
 */
function nextParts(c) {
  const fromBar = c.parts.filter((p) => p.places[0] === 'bar');
  return fromBar.length ? fromBar : c.parts;
}

/** Index of the part from `from` through `to`: one ending on `to` first, else -1. */
function pickPart(parts, from, to) {
  const barFirst = parts.some((p) => p.places[0] === 'bar');
  let through = -1;
  for (let i = 0; i < parts.length; i++) {
    const places = parts[i].places;
    if (barFirst && places[0] !== 'bar') continue;
    if (places[0] !== from) continue;
    if (places[places.length - 1] === to) return i;
    if (through < 0 && places.indexOf(to, 1) > 0) through = i;
  }
  return through;
}

/**
 * The board after `steps` of `side`, for drawing a play in progress. `board` is
 * state.board (points: + red, − black). A hit moves one opposing checker to its bar.
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
