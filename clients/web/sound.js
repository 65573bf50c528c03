// The table's sounds (issue 27, item 3): dice rolling, a hit, and "your turn", made with
// the Web Audio API (short tones, no sound files), only with the setting "Sounds" on.
// A browser may keep the audio suspended until the page has been clicked; the sound is
// then silent and nothing else changes.

/** Each sound: its tones, [frequency in Hz, start s, length s, wave]. */
const TONES = {
  roll: [[520, 0, 0.035, 'square'], [430, 0.06, 0.035, 'square'], [610, 0.12, 0.04, 'square']],
  hit: [[140, 0, 0.16, 'triangle'], [90, 0.05, 0.18, 'sine']],
  turn: [[660, 0, 0.12, 'sine'], [880, 0.13, 0.18, 'sine']],
};

/** How many sounds the record keeps (for the tests and the console). */
const KEPT = 20;

/** The sounds of the page; `enabled()` reads the setting. */
export class Sounds {
  constructor(enabled) {
    this.enabled = enabled;
    this.context = null;
    /** The last sounds asked for while enabled, oldest first: ['roll', 'turn', ...]. */
    this.played = [];
  }

  /** Plays sound `kind` ('roll', 'hit' or 'turn') when the setting is on. */
  play(kind) {
    const tones = TONES[kind];
    if (!tones || !this.enabled()) return;
    this.played.push(kind);
    if (this.played.length > KEPT) this.played.shift();
    try {
      const Ctx = globalThis.AudioContext ?? globalThis.webkitAudioContext;
      if (!Ctx) return;
      this.context ??= new Ctx();
      const ctx = this.context;
      if (ctx.state === 'suspended') ctx.resume().catch(() => {});
      const now = ctx.currentTime;
      for (const [freq, start, length, wave] of tones) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = wave;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, now + start);
        gain.gain.exponentialRampToValueAtTime(0.18, now + start + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(now + start);
        osc.stop(now + start + length + 0.02);
      }
    } catch {
      // No audio here: silence.
    }
  }
}
