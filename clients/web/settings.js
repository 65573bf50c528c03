// The player's settings in this browser (localStorage, per site): whether a play waits
// for Confirm, whether a turn in a background tab is notified, how fast plays are
// shown, sounds, and rolling for the player. Read with settings.NAME; changed by the
// header's settings panel (setupSettings), which calls onChange after every change.

const KEY = 'gammond.settings';
const DEFAULTS = {
  /** A complete play is sent only when Confirm is clicked (Undo until then). */
  confirmPlay: true,
  /** A browser notification when it is your turn and the tab is in the background. */
  notify: false,
  /** How fast plays from the server are shown (animate.js SPEEDS: off, fast, normal, slow). */
  speed: 'normal',
  /** Sounds for rolls, hits and your turn (sound.js). */
  sound: false,
  /** Roll at once when it is your roll and you cannot double. */
  autoRoll: false,
};

/** The stored settings over the defaults (a damaged entry is ignored). */
function load() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) ?? '{}') };
  } catch {
    return { ...DEFAULTS };
  }
}

/** The current settings: {confirmPlay, notify, sound, autoRoll: bool; speed: string}. */
export const settings = load();

/** Changes setting `name` to `value` and stores every setting. */
export function setSetting(name, value) {
  settings[name] = value;
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // Storage refused: the setting holds for this page only.
  }
}

/**
 * Wires the header's settings button (`toggle`) to its panel (`panel`): each checkbox
 * or select with data-setting="NAME" shows and changes settings[NAME]; onChange()
 * follows.
 */
export function setupSettings(toggle, panel, onChange) {
  const sync = () => {
    for (const box of panel.querySelectorAll('input[type="checkbox"][data-setting]')) {
      box.checked = Boolean(settings[box.dataset.setting]);
    }
    for (const select of panel.querySelectorAll('select[data-setting]')) {
      select.value = String(settings[select.dataset.setting]);
    }
  };
  sync();
  toggle.addEventListener('click', () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute('aria-expanded', String(!panel.hidden));
    if (!panel.hidden) sync();
  });
  panel.addEventListener('change', (e) => {
    const box = e.target.closest('input[data-setting], select[data-setting]');
    if (!box) return;
    setSetting(box.dataset.setting, box.tagName === 'SELECT' ? box.value : box.checked);
    onChange();
  });
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      panel.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
      toggle.focus();
    }
  });
}
