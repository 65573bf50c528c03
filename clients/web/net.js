// The WebSocket to gammond: JSON frames in and out, ids on requests, and reconnecting
// by itself after a drop (the caller says hello again, with its resume token, on
// every open).

/** Delays before reconnect attempts, in ms; the last one repeats. */
const BACKOFF = [300, 1000, 2000, 4000, 8000];

export class Connection {
  /**
   * @param {object} handlers
   *   onOpen()            the socket is open: say hello
   *   onMessage(msg)      one JSON object from the server
   *   onStatus(s, why)    'connecting' | 'open' | 'closed' | 'replaced'
   */
  constructor({ onOpen, onMessage, onStatus }) {
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.nextId = 1;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  }

  /** Opens the socket (again). */
  connect() {
    clearTimeout(this.timer);
    this.stopped = false;
    this.onStatus('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.onStatus('open');
      this.onOpen();
    };
    ws.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object') this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (e.reason === 'replaced by a new connection') {
        this.stopped = true;
        this.onStatus('replaced', e.reason);
        return;
      }
      this.onStatus('closed', e.reason);
      if (!this.stopped) this.retry();
    };
  }

  retry() {
    const delay = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** True while the socket can send. */
  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends `msg` with a fresh id; returns the id, or null when not connected. */
  send(msg) {
    if (!this.isOpen) return null;
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  /** Closes for good (no reconnect). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}
