// The WebSocket to gammond: JSON frames in and out, ids on requests, and reconnecting
// by itself after a drop (the caller says hello again, with its resume token, on
// every open). In a cluster (PROTOCOL.md "Cluster") it follows `moved` + close 4000 to
// the node that owns the table and sends the message again there once welcomed (once:
// not when the page sent the same itself), waits `retry_ms` first when the `moved` has
// it (a node being taken over), and after close 4001 ("node fenced") or a drop it goes
// back to the plain /ws after a short random delay.

/** Delays before reconnect attempts, in ms; the last one repeats. */
const BACKOFF = [300, 1000, 2000, 4000, 8000];

/** `msg` as JSON with its keys in order (a flat message), to compare two messages. */
function canonical(msg) {
  return JSON.stringify(Object.keys(msg).sort().map((k) => [k, msg[k]]));
}

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
    this.origin = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
    this.url = `${this.origin}/ws`;
    /** The last `moved` (path and the message to send again), until its close. */
    this.moved = null;
    /** A message to send again once the next connection is welcomed. */
    this.resend = null;
    /** While a welcome is handled: what the page sent meanwhile (to send `resend` once). */
    this.sentDuring = null;
  }

  /** Opens the socket (again). */
  connect() {
    clearTimeout(this.timer);
    this.stopped = false;
    this.onStatus('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    // A socket replaced by a later connect() (a new sign-in while the page's first
    // hello was on its way) is heard no more: its answers belong to the old attempt.
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.onStatus('open');
      this.onOpen();
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object') return;
      if (msg.type === 'moved' && typeof msg.path === 'string' && msg.path.startsWith('/')) {
        this.moved = msg;
        return;
      }
      if (msg.type === 'welcome' && this.resend) {
        // The message a `moved` answered goes again once, unless the page itself sent
        // the same while it handled the welcome (it enters the table in its address).
        const { id: _old, ...again } = this.resend;
        this.resend = null;
        this.sentDuring = [];
        this.onMessage(msg);
        const already = this.sentDuring.some((m) => canonical(m) === canonical(again));
        this.sentDuring = null;
        if (!already) this.send(again);
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (e.reason === 'replaced by a new connection') {
        this.stopped = true;
        this.onStatus('replaced', e.reason);
        return;
      }
      if (e.code === 4000 && this.moved) {
        // The table lives on another node: go there at once, say hello with the token,
        // then send the message again. While its node is being taken over (`retry_ms`,
        // path /ws) wait that long first, with a little spread.
        this.url = `${this.origin}${this.moved.path}`;
        this.resend = this.moved.re && typeof this.moved.re === 'object' ? this.moved.re : null;
        const wait = Number.isFinite(this.moved.retry_ms) ? Math.min(Math.max(this.moved.retry_ms, 0), 30000) : 0;
        this.moved = null;
        this.onStatus('connecting', 'moved');
        if (this.stopped) return;
        clearTimeout(this.timer);
        if (wait > 0) this.timer = setTimeout(() => this.connect(), wait + Math.floor(Math.random() * 250));
        else this.connect();
        return;
      }
      this.moved = null;
      this.url = `${this.origin}/ws`; // a live node answers, and redirects if need be
      this.onStatus('closed', e.reason);
      if (this.stopped) return;
      if (e.code === 4001 || this.attempt === 0) {
        // Fenced or dropped: a node went away; come back soon, at a random moment so
        // that its players do not all arrive at once.
        clearTimeout(this.timer);
        this.attempt += 1;
        this.timer = setTimeout(() => this.connect(), 200 + Math.floor(Math.random() * 800));
        return;
      }
      this.retry();
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
    if (this.sentDuring) this.sentDuring.push(msg);
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
