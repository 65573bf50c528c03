// The chat panel's log (issue 27, item 10): each table's lines (chat, events, answers)
// and the lobby's, kept in memory (500 a table) and in the tab's sessionStorage (the last
// 200 a table), so that a reload shows them again. A chat line's speaker opens its menu.

import { sayText } from './i18n.js';

/** Lines kept a table in memory, and over a reload. */
const KEPT = 500;
const SAVED = 200;
const KEY = 'gammond.logs';

/** The logs of the tables followed: table ('' = the lobby) -> [{kind, text, from}]. */
export class ChatLog {
  /**
   * @param {HTMLOListElement} list the panel's list (#log)
   * @param {(name: string, el: HTMLElement) => void} onName opens a speaker's menu
   */
  constructor(list, onName) {
    this.list = list;
    this.onName = onName;
    this.logs = ChatLog.load();
    this.saveTimer = null;
    addEventListener('pagehide', () => {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
      this.saveNow();
    });
  }

  /** The logs saved before a reload of this tab (none when damaged). */
  static load() {
    try {
      return new Map(JSON.parse(sessionStorage.getItem(KEY) ?? '[]'));
    } catch {
      return new Map();
    }
  }

  saveNow() {
    try {
      sessionStorage.setItem(KEY, JSON.stringify([...this.logs].map(([t, items]) => [t, items.slice(-SAVED)])));
    } catch {
      // Storage full or refused: the log lives on in memory.
    }
  }

  /** Saves the logs soon, at most once a second. */
  save() {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.saveNow();
    }, 1000);
  }

  /**
   * Adds a line of `kind` ('chat', 'info', 'event moved', ...) to `table`'s log, shown at
   * once when `shown` (that log is on screen); `from` is a chat line's speaker; `say`
   * the server's {key, args} of the line (drawn again in the page's language).
   */
  add(table, kind, text, from = null, shown = false, say = null) {
    if (!this.logs.has(table)) this.logs.set(table, []);
    const log = this.logs.get(table);
    const item = say ? { kind, text, from, say } : { kind, text, from };
    log.push(item);
    if (log.length > KEPT) log.splice(0, log.length - KEPT);
    this.save();
    if (shown) this.append(item);
  }

  /** Appends one line to the panel, keeping it scrolled to the end when it was. */
  append(item) {
    const li = document.createElement('li');
    li.className = item.kind;
    if (item.kind === 'chat' && item.from && item.text.startsWith(`${item.from}: `)) {
      // The speaker's name opens its menu (page, ignore; kick for a table's owner).
      const who = document.createElement('span');
      who.className = 'from';
      who.dataset.name = item.from;
      who.textContent = item.from;
      who.tabIndex = 0;
      who.setAttribute('role', 'button');
      const open = () => this.onName(item.from, who);
      who.addEventListener('click', open);
      who.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') open();
      });
      li.append(who, item.text.slice(item.from.length));
    } else {
      li.textContent = item.say ? sayText({ say: item.say, text: item.text }) : item.text;
    }
    const atEnd = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 30;
    this.list.appendChild(li);
    if (atEnd) this.list.scrollTop = this.list.scrollHeight;
  }

  /** Draws `table`'s log ('' = the lobby's) in the panel. */
  draw(table) {
    this.list.replaceChildren();
    for (const item of this.logs.get(table) ?? []) this.append(item);
    this.list.scrollTop = this.list.scrollHeight;
  }
}
