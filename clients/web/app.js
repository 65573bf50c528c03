// The gammond browser client: a thin client. It draws what the server pushes and
// sends command lines; every legal play comes from state.legal and its checker moves
// from state.legal_moves, whether the cube is drawn from state.cube.in_play, and every
// allowed action from phase, to_act, turn, may_double and players
// (protocol/PROTOCOL.md). The clocks tick from state.clock (clock.js); a finished
// match's dice are re-derived in the page from its record (dice.js).

import { Connection } from './net.js';
import { drawBoard } from './board.js';
import { MoveInput, applySteps } from './moves.js';
import { tickClocks } from './clock.js';
import { verifyDice } from './dice.js';
import { AnalysisPage } from './analysis.js';
import { nameWithRating, ratingChanges, showPlayer, showLeaders } from './account.js';
import { openNameMenu, closeNameMenu, drawOwnerControls } from './moderation.js';
import { playedTable, setupPlayComputer } from './bots.js';
import { drawResignDialog } from './resign.js';
import { formDialog } from './dialogs.js';
import { button, pageLink } from './dom.js';
import { drawOnline, drawTables } from './lobby.js';
import { drawSpectators, drawStrip, matchText } from './seats.js';
import { settings, setupSettings } from './settings.js';
import { accountExists, canSignIn, endOnServer, helloFor, remember, rememberedSignIn } from './session.js';
import { optionLines, optionsFieldset, optionsOf, readOptions } from './options.js';
import { MoveList, playPlaces } from './movelist.js';
import { Router } from './router.js';
import { ReplayPage } from './replay.js';
import { PlayAnimator, SPEEDS, showOwnStep } from './animate.js';
import { Sounds } from './sound.js';
import { ChatLog } from './chatlog.js';

const $ = (id) => document.getElementById(id);
const store = {
  // The resume token lives per tab (sessionStorage survives a reload); the name is
  // also remembered for the next visit.
  get token() { return sessionStorage.getItem('gammond.resume'); },
  set token(v) { v ? sessionStorage.setItem('gammond.resume', v) : sessionStorage.removeItem('gammond.resume'); },
  get name() { return sessionStorage.getItem('gammond.name'); },
  set name(v) { sessionStorage.setItem('gammond.name', v); localStorage.setItem('gammond.name', v); },
};

/** Everything the client knows. */
const app = {
  me: null, // our name once welcomed
  view: 'login',
  table: null, // the table on screen
  states: new Map(), // table -> last state
  input: null, // MoveInput for the play being entered, or null
  inputSeq: -1, // state.seq the input was built for
  sentMove: false, // a /move is on its way
  pendingPlay: null, // a complete play waiting for Confirm (settings.confirmPlay), or null
  resignOpen: false, // the resign dialog is open (nothing is sent before its Resign)
  optionsOpen: false, // the table's options dialog is open (options.js)
  newTable: null, // {name, options}: a table made with the lobby's "New table…", until its options are sent
  moveList: new MoveList(), // the plays of the tables followed (movelist.js)
  lastPlay: null, // {table, side, dice, play}: the last play, marked until the next roll
  closedMatchBox: new Map(), // table -> the last_match_id whose end-of-match box was closed
  lastLine: null, // {text, table}: the last chat or command line typed, for a throttled chat
  lastPass: null, // {table, text, until}
  lastResult: null, // {table, text}: the last game_over/match_over sentence
  tablesTimer: null,
  whoTimer: null, // the lobby's /who every 15 s (the online panel)
  whoRequest: null, // the id of the panel's last /who
  diceChecks: new Map(), // match id -> {state: 'checking'|'verified'|'failed', text}
  // Accounts (issue 12): the password typed for the next hello or register, kept in
  // memory until the welcome (never stored); the account of the welcome; each table's
  // last match_over (its rating changes); the view a player or ratings page returns to.
  pending: null, // {kind: 'login' | 'register', password}
  account: null,
  lastMatchOver: new Map(),
  back: 'lobby',
  playComputer: null, // the lobby's "Play the computer" form (bots.js)
  ignored: new Set(), // issue 13: lower-case names we /ignore (from the server's answers)
};

/**
 * "?token=…" with this tab's resume token ("" without one): a private table's match
 *  (every /play bot table's) is read only with a token of its players (PROTOCOL.md).
 */
function tokenQuery() { return store.token ? `?token=${encodeURIComponent(store.token)}` : ''; }

/** The page's address: Back and Forward show the page of the entry reached (router.js). */
const router = new Router((route) => showRoute(route, { fromHistory: true }));
app.router = router;

/** The analysis page (/analysis/<id>), shown without the chat. */
const analysis = new AnalysisPage(document.getElementById('analysis'), {
  onBack: () => router.back(),
  onReplay: (id) => showReplay(id),
  query: tokenQuery,
});
app.analysis = analysis;

/** The chat panel's log of each table and of the lobby, kept over a reload (chatlog.js). */
const chatLog = new ChatLog(document.getElementById('log'), (name, el) => tableNameMenu(name, el));
app.logs = chatLog.logs; // table ('' = lobby) -> [{kind, text, from}] (the console, the tests)

/** Adds a line to `table`'s log, shown at once when that log is on screen. */
function addLog(table, kind, text, from = null) {
  chatLog.add(table, kind, text, from, (app.table ?? '') === table && app.view !== 'login');
}

/** Draws the log of the table on screen (or the lobby's). */
function drawLog() {
  chatLog.draw(app.table ?? '');
}

/** The table's sounds (setting "Sounds"). */
const sounds = new Sounds(() => settings.sound);
app.sounds = sounds;

/**
 * Plays from the server shown checker by checker at the pace of the setting "Show
 * plays" (animate.js); the table is drawn from its state again when it is done.
 */
const animator = new PlayAnimator({
  svg: document.getElementById('board'),
  draw: (board, dice, side) => drawPlayFrame(board, dice, side),
  done: () => drawTable(),
  speed: () => settings.speed,
  onHit: () => sounds.play('hit'),
});
app.animator = animator;

/** The replay page (/match/<id>), shown without the chat. */
const replay = new ReplayPage(document.getElementById('replay'), {
  onBack: () => router.back(),
  onAnalysis: (id) => showAnalysis(id),
  me: () => app.me,
  query: tokenQuery,
});
app.replay = replay;

const conn = new Connection({
  onOpen: sayHello,
  onMessage: receive,
  onStatus: (s, why) => {
    const el = $('status');
    el.dataset.status = s;
    el.textContent = {
      connecting: 'connecting…',
      open: 'online',
      closed: 'offline, reconnecting…',
      replaced: 'opened in another window',
    }[s];
    if (s === 'replaced') showError(`disconnected: ${why}. Reload to take this window back.`);
  },
});
app.conn = conn;
app.redraw = () => drawTable(); // the table on screen drawn again (the console, the tests)
window.gammond = app; // for the console and the end-to-end test

// ---------------------------------------------------------------- connection

/** The first message of a connection (session.js): a login, a resume, a remembered sign-in. */
function sayHello() {
  conn.send(helloFor(store.name, store.token, app.pending));
}

function send(msg) {
  const id = conn.send(msg);
  if (id === null) showError('not connected: trying again…');
  return id;
}

/** Sends a command or chat line to the table on screen (or the lobby). */
function sendLine(text, table = app.table) {
  const msg = { type: 'line', text };
  if (table) msg.table = table;
  return send(msg);
}

function receive(msg) {
  switch (msg.type) {
    case 'welcome': return onWelcome(msg);
    case 'state': return onState(msg);
    case 'event': return onEvent(msg);
    case 'chat': return addLog(msg.table ?? '', 'chat', `${msg.from}: ${msg.text}`, msg.from);
    case 'broadcast': return onBroadcast(msg);
    case 'info': return onInfo(msg);
    case 'tables': return drawTables(msg.tables, { enterTable: (name) => enterTable(name), openPlayer: (name) => openPlayer(name) });
    case 'error': return onError(msg);
    default: return undefined; // pong and anything newer
  }
}

function onWelcome(msg) {
  const loggedIn = app.pending;
  app.me = msg.name;
  app.pending = null;
  // A remembered sign-in is kept (or renewed); a login without "Stay signed in" forgets
  // an older one of this browser.
  if (msg.session) remember(msg.name, msg.session);
  else if (loggedIn) remember(null);
  $('login-password').value = '';
  $('login-hint').hidden = true;
  app.account = msg.account ?? null;
  store.name = msg.name;
  store.token = msg.resume;
  drawWho();
  $('nav').hidden = false;
  $('login-error').textContent = '';
  // The page of the address (a reconnection enters its table again); a page that reads
  // the API only (a player, the ratings, an analysis, a replay) is left as it is.
  const route = router.current();
  if (route.page === 'lobby' || route.page === 'table' || app.view === 'login') showRoute(route, { replace: true });
}

/**
 * Shows the page of `route` (router.js). `fromHistory`: reached with Back or Forward,
 * the address is already the route's; `replace`: the address is replaced, not pushed (a
 * redirect, an older #link). The lobby and the tables need a name: before the welcome
 * they wait behind the sign-in form, and onWelcome shows them.
 */
function showRoute(route, nav = {}) {
  switch (route.page) {
    case 'analysis': return showAnalysis(route.arg, nav);
    case 'replay': return showReplay(route.arg, nav);
    case 'player': return openPlayer(route.arg, nav);
    case 'ratings': return openLeaders(route.arg, nav);
    default:
      if (!app.me) {
        if (!nav.fromHistory) router.go(route, { replace: true });
        return show('login');
      }
      if (route.page === 'table') return enterTable(route.arg, nav);
      return showLobby(nav);
  }
}

/** Makes the address `route`'s unless it came from Back or Forward (showRoute's `nav`). */
function address(route, nav) {
  if (!nav.fromHistory) router.go(route, { replace: Boolean(nav.replace) });
}

/** Errors that refuse a hello or a registration: back to the login form. */
const LOGIN_ERRORS = ['bad_name', 'name_taken', 'already_hello', 'name_registered', 'bad_login',
  'login_locked', 'weak_password', 'bad_password', 'too_many_accounts', 'auth_busy', 'reserved_name', 'banned',
  'register_limited', 'name_confusable', 'bad_session'];
/** Errors that keep us out of a table (issue 13): back to the lobby, with the sentence. */
const TABLE_REFUSALS = ['kicked', 'private_table'];

function onError(msg) {
  app.playComputer?.done();
  // name_registered also comes after a reload whose token the server forgot: an
  // account's name needs its password again.
  // A resume token the server forgot (the name held no seat): the remembered sign-in
  // logs the account in instead, once.
  if (msg.code === 'name_registered' && !app.pending && store.token && canSignIn(store.name)) {
    store.token = null;
    sayHello();
    return;
  }
  if (LOGIN_ERRORS.includes(msg.code) && (!app.me || msg.code === 'name_registered' || msg.code === 'bad_session')) {
    const tried = app.pending;
    conn.stop();
    store.token = null;
    app.me = null;
    app.pending = null;
    if (msg.code === 'bad_session') remember(null); // signed out elsewhere, expired, new password
    $('login-error').textContent = msg.message;
    if (msg.code === 'name_registered' || msg.code === 'bad_session') $('login-password').focus();
    show('login');
    // A new name with a password: say there is no such account and offer to create it
    // (the password typed stays in its box).
    if (msg.code === 'bad_login' && tried?.kind === 'login') offerNewAccount(store.name);
    return;
  }
  if (TABLE_REFUSALS.includes(msg.code) && app.view === 'table' && !app.states.has(app.table)) {
    showLobby();
    showError(msg.message);
    return;
  }
  if (msg.code === 'bad_resume') {
    // The server forgot the token (no seat held any more): hello again by name.
    store.token = null;
    sayHello();
    return;
  }
  if (app.sentMove) {
    app.sentMove = false;
    app.inputSeq = -1; // start the play again
    if (app.table) drawTable();
  }
  // A chat line refused for speed goes back in the box (unless something new is typed
  // there), to be sent again once the wait the sentence gives is over.
  if (msg.code === 'chat_throttled' && app.lastLine && !$('line').value) {
    $('line').value = app.lastLine.text;
    $('line').dataset.throttled = 'yes';
  }
  showError(msg.message);
}

/** An administrator's /broadcast: in the log on screen (table or lobby) and as a banner. */
function onBroadcast(msg) {
  const text = `${msg.from} (administrator): ${msg.text}`;
  addLog(app.table ?? '', 'broadcast', text);
  if (app.table) addLog('', 'broadcast', text);
  showError(text);
}

/** The menu of a name at the table on screen (issue 13): page, ignore, kick; a bot's page. */
function tableNameMenu(name, anchor) {
  const st = app.states.get(app.table);
  // A computer player neither chats nor needs kicking from a menu: its name opens its page.
  const bot = ['red', 'black'].some((side) => st?.players?.[side] === name && st?.bots?.[side]);
  if (bot) return openPlayer(name);
  const atTable = Boolean(st && (st.players?.red === name || st.players?.black === name || (st.spectators ?? []).includes(name)));
  openNameMenu(name, anchor, {
    me: app.me,
    owner: st?.owner ?? null,
    atTable,
    ignored: app.ignored,
    send: (line) => sendLine(line),
    openPlayer,
  });
}

/** Asks who is online for the lobby's panel (its answer is drawn, not logged). */
function askWho() {
  app.whoRequest = sendLine('/who', null);
}

function onInfo(msg) {
  if (msg.topic === 'who' && !msg.table && msg.data) {
    drawOnline(msg.data, app.me, (name) => openPlayer(name));
    if (msg.re !== undefined && msg.re === app.whoRequest) return; // the panel's own question
  }
  if (msg.topic === 'ignore' && Array.isArray(msg.data?.ignored)) app.ignored = new Set(msg.data.ignored.map((n) => n.toLowerCase()));
  // A password change hands out the session's new resume token (the old one is dead),
  // and a new remembered sign-in when this browser had one (all the others ended).
  if (msg.topic === 'password' && typeof msg.data?.resume === 'string') store.token = msg.data.resume;
  if (msg.topic === 'password' && typeof msg.data?.session === 'string') remember(app.me, msg.data.session);
  // /signout (the header's button or typed) that ended this browser's sign-in.
  if (msg.topic === 'signout' && (msg.data?.current || msg.data?.all)) {
    finishSignOut(msg.text);
    return;
  }
  // Moderation answers and invitations (issue 13) carry no table: shown where we are.
  const here = ['ignore', 'ban', 'unban', 'close', 'invitation'].includes(msg.topic) ? app.table ?? '' : '';
  addLog(msg.table ?? here, 'info', msg.text);
  const table = playedTable(msg); // the answer to "Play the computer": go to its table
  if (table) {
    app.playComputer?.done();
    enterTable(table);
  }
}

/**
 * After a failed login of `name`: when no account has that name, "No account named
 * NAME: create it?" with a button that registers it with the password still typed.
 */
async function offerNewAccount(name) {
  const exists = await accountExists(name);
  if (exists !== false || app.me || $('login-name').value.trim() !== name) return;
  $('login-error').textContent = '';
  $('login-hint-text').textContent = `No account named ${name}: create it?`;
  $('login-hint').hidden = false;
  $('login-create').textContent = `Create the account ${name}`;
}

/** The header's "Sign out": ends this browser's remembered sign-in on the server first. */
function signOut() {
  const kept = rememberedSignIn();
  if (kept && conn.isOpen && app.me) {
    sendLine('/signout', null); // answered by info topic signout: finishSignOut()
    setTimeout(() => app.me && finishSignOut(''), 3000); // no answer: sign out here anyway
    return;
  }
  // This page's connection is down (or another tab took the name over): the sign-in is
  // ended over a connection of its own, then forgotten here.
  if (kept) endOnServer(kept).finally(() => finishSignOut(''));
  else finishSignOut('');
}

/** Forgets the sign-in here (credential, resume token) and shows the login form. */
function finishSignOut(text) {
  remember(null);
  store.token = null;
  sessionStorage.removeItem('gammond.name'); // a reload shows the login form (the name stays in it)
  app.me = null;
  app.account = null;
  app.pending = null;
  app.table = null;
  conn.stop();
  drawWho();
  $('nav').hidden = true;
  show('login');
  $('login-error').textContent = text ? `${text}` : 'signed out';
}

/** The header's name, with the account's standard rating. */
function drawWho() {
  const who = $('who');
  who.replaceChildren();
  $('signout').hidden = !app.me || !app.account?.registered; // a guest has nothing to sign out of
  if (!app.me) return;
  const registered = app.account?.registered;
  who.append(nameWithRating(app.me, registered ? app.account.rating?.standard : undefined));
  who.title = registered ? 'your page: ratings and matches' : 'playing as a guest';
  who.dataset.registered = registered ? 'yes' : 'no';
}

/** Opens the page of player `name` (ratings and matches), /player/NAME. */
function openPlayer(name, nav = {}) {
  address({ page: 'player', arg: name }, nav);
  document.title = `${name} — gammond`;
  show('player');
  showPlayer(name, { player: (other) => openPlayer(other), replay: (id) => showReplay(id), analysis: (id) => showAnalysis(id) });
}

/** Opens the ratings list of `variant`, /ratings/VARIANT. */
function openLeaders(variant = 'standard', nav = {}) {
  address({ page: 'ratings', arg: variant }, nav);
  document.title = 'ratings — gammond';
  show('leaders');
  showLeaders(variant, (name) => openPlayer(name));
}

/** The page's "back" links: Back when it stays on the site, else the lobby. */
function goBack() {
  router.back();
}

/** Leaves the table on screen (the server stops sending its states). */
function leaveTable() {
  animator.clear();
  if (!app.table) return;
  send({ type: 'exit', table: app.table });
  app.table = null;
}

function showError(text) {
  const el = $('error');
  el.textContent = text;
  if (app.view === 'login') $('login-error').textContent = text;
}

// ---------------------------------------------------------------- views

function show(view) {
  app.view = view;
  for (const v of ['login', 'lobby', 'table', 'analysis', 'replay', 'player', 'leaders']) $(v).hidden = v !== view;
  $('moves-box').hidden = view !== 'table';
  if (view === 'table') drawMoves();
  $('chat').hidden = view === 'login' || view === 'analysis' || view === 'replay' || !app.me;
  if (view !== 'analysis') analysis.hide();
  if (view !== 'replay') replay.hide();
  document.body.dataset.view = view;
  clearInterval(app.tablesTimer);
  clearInterval(app.whoTimer);
  if (view === 'lobby') {
    sendLine('/tables', null);
    app.tablesTimer = setInterval(() => sendLine('/tables', null), 4000);
    askWho();
    app.whoTimer = setInterval(askWho, 15000);
  }
  $('chat-title').textContent = view === 'table' && app.table ? `Table ${app.table}: chat and events` : 'Lobby chat';
  drawLog();
}

/** The lobby, /. */
function showLobby(nav = {}) {
  leaveTable();
  address({ page: 'lobby' }, nav);
  document.title = 'gammond';
  show('lobby');
}

/** Shows the analysis of match `id` (a link, the match-over box), /analysis/ID. */
function showAnalysis(id, nav = {}) {
  leaveTable();
  address({ page: 'analysis', arg: id }, nav);
  document.title = `analysis of match ${id} — gammond`;
  show('analysis');
  analysis.show(id);
}

/** Shows the replay of match `id` (a history row, the match-over box, a link), /match/ID. */
function showReplay(id, nav = {}) {
  leaveTable();
  address({ page: 'replay', arg: id }, nav);
  document.title = `match ${id} — gammond`;
  show('replay');
  replay.show(id);
}

/** Enters table `name` (sits as a spectator until a /join), /table/NAME. */
function enterTable(name, nav = {}) {
  if (app.table && app.table !== name) leaveTable();
  if (app.table !== name) animator.clear();
  app.table = name;
  app.input = null;
  app.inputSeq = -1;
  address({ page: 'table', arg: name }, nav);
  $('table-name').textContent = name;
  send({ type: 'enter', table: name });
  show('table');
  if (app.states.has(name)) drawTable();
}

// ---------------------------------------------------------------- events and state

function onEvent(msg) {
  addLog(msg.table, `event ${msg.event}`, msg.text);
  // Sent away from a table (kicked, or closed by an administrator): back to the lobby.
  if ((msg.event === 'kicked' && msg.name === app.me && !msg.bot) || msg.event === 'closed') {
    app.states.delete(msg.table);
    if (app.table === msg.table && app.view === 'table') {
      closeNameMenu();
      showLobby();
      showError(msg.text);
    }
    return;
  }
  if (msg.event === 'analysis_ready') analysis.ready(msg.match_id);
  // The move list, and the last play marked on the board (with its dice) until a roll.
  if (app.moveList.onEvent(msg) && msg.table === app.table) drawMoves();
  if (msg.event === 'moved') {
    app.lastPlay = { table: msg.table, side: msg.side, dice: msg.dice, play: msg.play };
    showPlay(msg);
  }
  if ((msg.event === 'rolled' || msg.event === 'opening_roll') && msg.table === app.table && app.view === 'table') sounds.play('roll');
  if (['rolled', 'opening_roll', 'game_started', 'started'].includes(msg.event) && app.lastPlay?.table === msg.table) app.lastPlay = null;
  // A pass's banner goes with the next roll (the opponent's dice are news of their own).
  if (msg.event === 'rolled' && app.lastPass?.table === msg.table) app.lastPass = null;
  if (msg.event === 'passed') {
    app.lastPass = {
      table: msg.table,
      text: `no legal move: pass (${msg.side} rolled ${(msg.dice ?? []).join('-')})`,
      until: Date.now() + 4000,
    };
    setTimeout(() => app.table === msg.table && drawTable(), 4100);
  }
  if (msg.event === 'match_over') {
    app.lastMatchOver.set(msg.table, msg);
    // Our own new rating goes to the header at once.
    const variant = app.states.get(msg.table)?.variant ?? 'standard';
    for (const side of ['red', 'black']) {
      const r = msg.ratings?.[side];
      if (r && r.name === app.me && app.account?.rating) {
        app.account.rating[variant] = r.after;
        drawWho();
      }
    }
  }
  if (msg.event === 'game_over' || msg.event === 'match_over') {
    app.lastResult = { table: msg.table, text: msg.text, until: Date.now() + 5000 };
    setTimeout(() => app.table === msg.table && drawTable(), 5100);
  }
  if (msg.table === app.table) drawTable();
}

/**
 * A play from the server (event moved) shown checker by checker on the table on screen,
 * from the position drawn before it; not one's own play made on this board, which the
 * board showed step by step already. A hit sounds (the animator's, or at once).
 */
function showPlay(msg) {
  const st = app.states.get(msg.table);
  const shown = msg.table === app.table && app.view === 'table' && st;
  const own = st && sideOf(st, app.me) === msg.side && app.sentMove;
  const animated = shown && !own && animator.add({
    table: msg.table, board: st.board, side: msg.side, dice: msg.dice, play: msg.play, variant: st.variant ?? 'standard',
  });
  if (shown && !animated && String(msg.play ?? '').includes('*')) sounds.play('hit');
}

/** One frame of a play being shown: `board`, with `side`'s `dice`, nothing to pick. */
function drawPlayFrame(board, dice, side) {
  const st = app.states.get(app.table);
  if (!st || app.view !== 'table') return;
  drawBoard($('board'), {
    board,
    variant: st.variant ?? 'standard',
    bottom: sideOf(st, app.me) ?? 'black',
    tutor: Boolean(st.options?.tutor),
    dice,
    diceSide: side,
    cube: st.cube?.in_play ? st.cube : null,
  });
  $('board').dataset.animating = 'true';
}

function onState(st) {
  app.states.set(st.table, st);
  if (app.newTable?.name === st.table) setUpNewTable(st);
  if (st.table === app.table) {
    app.sentMove = false;
    drawTable();
  }
}

/**
 * The lobby's "New table…": once its table's state is here, sit down (a new table's
 * first person owns it), then send the options chosen, as the chat commands.
 */
function setUpNewTable(st) {
  const wanted = app.newTable;
  const mine = sideOf(st, app.me);
  if (!mine) {
    if (st.phase === 'waiting' && (!st.players?.red || !st.players?.black) && !wanted.joined) {
      wanted.joined = true;
      sendLine('/join', st.table);
      return;
    }
    if (wanted.joined) return; // the seat is on its way
    app.newTable = null;
    showError(`table ${st.table} exists already: its options are its players'`);
    return;
  }
  app.newTable = null;
  for (const line of optionLines(st.options, wanted.options, { withPrivacy: st.owner === app.me })) sendLine(line, st.table);
}

/** The side `name` sits on at table state `st`, or null. */
function sideOf(st, name) {
  if (st.players?.red === name) return 'red';
  if (st.players?.black === name) return 'black';
  return null;
}

const other = (side) => (side === 'red' ? 'black' : 'red');

/** The MoveInput for the current state when it is our play, else null. */
function currentInput(st, mine) {
  if (st.phase !== 'move' || !mine || st.turn !== mine) {
    app.input = null;
    return null;
  }
  if (app.sentMove) return null;
  if (app.inputSeq !== st.seq || !app.input) {
    app.input = new MoveInput(st.legal ?? [], st.legal_moves ?? [], mine, st.board);
    app.inputSeq = st.seq;
    app.selected = null;
    app.pendingPlay = null;
  }
  return app.input;
}

/** Redraws everything of the table on screen from its last state. */
function drawTable() {
  const st = app.states.get(app.table);
  if (!st || app.view !== 'table') return;
  if (animator.busy) return; // a play is being shown: drawn when it is done
  delete $('board').dataset.animating;
  const mine = sideOf(st, app.me);
  const bottom = mine ?? 'black';
  const input = currentInput(st, mine);
  const sources = input ? input.sources() : new Set();
  if (app.selected !== null && app.selected !== undefined && !sources.has(app.selected)) app.selected = null;
  const targets = input && app.selected != null ? input.destinations(app.selected) : new Set();
  const board = input && input.steps.length ? applySteps(st.board, mine, input.steps) : st.board;
  const last = app.lastPlay?.table === st.table && st.phase !== 'move' ? app.lastPlay : null;

  drawBoard($('board'), {
    board,
    variant: st.variant ?? 'standard',
    bottom,
    tutor: Boolean(st.options?.tutor),
    dice: st.phase === 'move' ? st.dice : last?.dice ?? null,
    diceSide: st.phase === 'move' ? st.turn : last?.side,
    diceClass: st.phase === 'move' ? '' : 'played',
    last: last ? playPlaces(last.play, last.side, st.variant ?? 'standard') : null,
    lastSide: last?.side ?? null,
    cube: st.cube?.in_play ? st.cube : null, // the server says whether the cube exists
    sources,
    selected: app.selected ?? null,
    cursor: input ? app.cursor ?? null : null,
    targets,
    mover: input ? mine : null,
  });
  $('board').dataset.phase = st.phase;
  $('board').dataset.seq = st.seq;
  // Keyboard play: the first movable checker is under the cursor when none is yet.
  if (input && app.cursor == null && app.pendingPlay === null && document.activeElement === $('board')) {
    app.cursor = cursorPlaces()[0] ?? null;
  }
  if (!input) app.cursor = null;
  const said = boardStatus();
  $('board').setAttribute('aria-label', said ? `backgammon board: ${said}` : 'backgammon board');
  if ($('board-status').textContent !== said) $('board-status').textContent = said;

  drawStrip($('strip-top'), st, other(bottom), app.me, tableNameMenu);
  drawStrip($('strip-bottom'), st, bottom, app.me, tableNameMenu);
  $('match-info').textContent = matchText(st);
  drawSpectators(st, tableNameMenu);
  drawBanner(st, mine, input);
  drawDialog(st, mine);
  drawControls(st, mine, input);
  drawOwnerControls($('owner-controls'), st, app.me, (line) => sendLine(line));
  drawTitle(st, mine);
  autoRoll(st, mine);
}

/**
 * With the setting "Roll for me": rolls once when it is our roll and we may not double
 * (with the cube to offer the choice stays the player's).
 */
function autoRoll(st, mine) {
  if (!settings.autoRoll || !mine || st.phase !== 'roll' || st.turn !== mine || st.to_act !== mine || st.may_double) return;
  if (app.autoRolled?.table === st.table && app.autoRolled.seq === st.seq) return;
  app.autoRolled = { table: st.table, seq: st.seq };
  sendLine('/roll', st.table);
}

/** The tab's title: the table, and "your turn" first when a move or answer is ours. */
function drawTitle(st, mine) {
  const myTurn = Boolean(mine) && st.to_act === mine && !['waiting', 'match_over'].includes(st.phase);
  document.title = `${myTurn ? '● your turn — ' : ''}${st.table} — gammond`;
  notifyTurn(st, myTurn);
}

/**
 * With the setting "Notify me" on and the tab in the background: one browser
 * notification when a turn becomes ours (not again while it stays ours).
 */
function notifyTurn(st, myTurn) {
  // Once a turn: when the move or answer becomes ours, not at each state of it.
  const was = app.myTurn?.table === st.table && app.myTurn.mine;
  app.myTurn = { table: st.table, mine: myTurn };
  if (!myTurn || was) return;
  sounds.play('turn');
  if (!settings.notify || !document.hidden) return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const what = st.phase === 'cube_offered' ? 'you are doubled' : st.phase === 'resign_offered' ? 'a resignation is offered' : 'your turn';
  try {
    const n = new Notification(`gammond: ${what}`, { body: `at table ${st.table}`, tag: `gammond-${st.table}` });
    n.onclick = () => window.focus();
  } catch {
    // Notifications refused by the browser: the title still says it.
  }
}

/** The move list of the table on screen, beside the board. */
function drawMoves() {
  const st = app.states.get(app.table);
  app.moveList.render($('moves'), app.table, st?.players ?? {});
}

/** The banner over the board: a pass, a forced play, a game result. */
function drawBanner(st, mine, input) {
  const el = $('banner');
  let text = '';
  let kind = '';
  const now = Date.now();
  if (app.lastPass && app.lastPass.table === st.table && app.lastPass.until > now) {
    text = app.lastPass.text;
    kind = 'pass';
  } else if (app.lastResult && app.lastResult.table === st.table && app.lastResult.until > now && st.phase !== 'match_over') {
    text = app.lastResult.text;
    kind = 'result';
  } else if (st.phase === 'move' && (st.legal ?? []).length === 1) {
    text = `forced play: ${st.legal[0]}`;
    kind = 'forced';
  } else if (st.phase === 'cube_offered' && st.to_act !== mine) {
    text = `${st.cube.offered_by} doubles to ${st.cube.value * 2}: ${st.to_act} to take or drop`;
    kind = 'wait';
  } else if (st.phase === 'resign_offered' && st.to_act !== mine && st.resign) {
    text = `${st.resign.by} offers to resign (${st.resign.kind}): ${st.to_act} to answer`;
    kind = 'wait';
  } else if (st.bot_thinking && st.to_act && st.to_act !== mine) {
    // state.bot_thinking: the computer player's answer is on the way, however long.
    text = `${st.players?.[st.to_act] ?? 'the computer'} is thinking…`;
    kind = 'wait';
  }
  el.hidden = !text;
  el.textContent = text;
  el.dataset.kind = kind;
}

/** Dialogs for a decision that is ours: the cube offer, a resignation, continue?, match end. */
function drawDialog(st, mine) {
  const el = $('dialog');
  // A form being filled in (resign, options) is not rebuilt by a new state: what was
  // chosen stays until it is sent or cancelled.
  if (app.optionsOpen && el.dataset.kind === 'options' && !el.hidden && (st.phase === 'waiting' || st.phase === 'match_over')) return;
  if (app.resignOpen && el.dataset.kind === 'resign-choice' && !el.hidden && (st.phase === 'roll' || st.phase === 'move')) return;
  el.replaceChildren();
  let kind = null;
  const add = (tag, text, cls = '') => {
    const e = document.createElement(tag);
    e.textContent = text;
    if (cls) e.className = cls;
    el.appendChild(e);
    return e;
  };
  const row = () => {
    const d = document.createElement('div');
    d.className = 'buttons';
    el.appendChild(d);
    return d;
  };
  const mayResign = Boolean(mine) && (st.phase === 'roll' || st.phase === 'move');
  if (app.resignOpen && !mayResign) app.resignOpen = false; // the moment has passed
  const boxClosed = st.phase === 'match_over' && app.closedMatchBox.get(st.table) === (st.last_match_id ?? 'none');
  if (app.optionsOpen && !(st.phase === 'waiting' || st.phase === 'match_over')) app.optionsOpen = false;
  if (app.optionsOpen) {
    kind = 'options';
    drawOptionsDialog(el, st);
  } else if (app.resignOpen) {
    kind = 'resign-choice';
    drawResignDialog(el, st, mine, {
      send: (line) => sendLine(line),
      close: () => {
        app.resignOpen = false;
        drawTable();
      },
    });
  } else if (st.phase === 'cube_offered' && mine && st.to_act === mine) {
    kind = 'cube';
    add('div', String(st.cube.value * 2), 'dialog-cube');
    add('p', `${st.players[st.cube.offered_by]} (${st.cube.offered_by}) doubles to ${st.cube.value * 2}.`);
    add('p', `Take, and play on for ${st.cube.value * 2} with the cube on your side, or drop and lose ${st.cube.value}.`, 'muted');
    const r = row();
    r.append(cmdButton('take', 'Take'), cmdButton('drop', 'Drop'));
  } else if (st.phase === 'resign_offered' && mine && st.to_act === mine && st.resign) {
    kind = 'resign';
    add('p', `${st.players[st.resign.by]} (${st.resign.by}) offers to resign a ${st.resign.kind}.`);
    const r = row();
    r.append(cmdButton('accept', 'Accept'), cmdButton('reject', 'Reject'));
  } else if (st.phase === 'game_over' && mine && !(st.continuing?.[mine])) {
    kind = 'continue';
    if (st.last_result) add('p', resultText(st), 'muted');
    add('p', 'Continue?', 'question');
    const r = row();
    r.append(cmdButton('continue', 'Continue'), cmdButton('stop', '✕ Stop'));
  } else if (st.phase === 'match_over' && !boxClosed) {
    kind = 'match-over';
    // The box closes to show the final position; the controls' "Match result" reopens it.
    const x = button('✕', () => {
      app.closedMatchBox.set(st.table, st.last_match_id ?? 'none');
      drawTable();
    }, 'close-box');
    x.dataset.cmd = 'close-box';
    x.setAttribute('aria-label', 'close: show the final position');
    el.appendChild(x);
    add('h3', matchOverText(st));
    add('p', `score: red ${st.score.red} – black ${st.score.black}`, 'final-score');
    if (st.last_result?.reason === 'time') {
      const loser = other(st.last_result.winner);
      add('p', `${st.players[loser] ?? loser} (${loser}) ran out of time`, 'muted on-time');
    }
    if (st.last_match_id && st.dice_commitment) {
      const check = diceCheck(st.last_match_id);
      const p = add('p', check.text, `dice-check ${check.state}`);
      p.id = 'dice-check';
      p.dataset.state = check.state;
    }
    // A rated match: each player's rating before and after (the match_over event's).
    const over = app.lastMatchOver.get(st.table);
    if (over && over.match_id === st.last_match_id) {
      for (const c of ratingChanges(over)) {
        const line = add('p', c.text, `rating-changes ${c.change >= 0 ? 'change-up' : 'change-down'}`);
        line.dataset.name = c.name;
      }
    }
    if (st.last_match_id) {
      const links = document.createElement('p');
      links.className = 'links';
      const a = document.createElement('a');
      a.href = `/matches/${encodeURIComponent(st.last_match_id)}.mat${tokenQuery()}`;
      a.textContent = 'download the match (.mat)';
      const id = st.last_match_id;
      links.append(pageLink(`/match/${id}`, 'replay the match', () => showReplay(id), 'replay'), ' · ');
      if (st.variant !== 'long') {
        // GNU Backgammon analyses standard matches only (PROTOCOL.md, Match analysis).
        links.append(pageLink(`/analysis/${id}`, 'GNU Backgammon’s analysis', () => showAnalysis(id), 'analysis'), ' · ');
      }
      links.append(a);
      el.appendChild(links);
    }
    if (mine && st.players.red && st.players.black) row().append(cmdButton('start', 'Play again'));
  }
  el.hidden = kind === null;
  el.dataset.kind = kind ?? '';
  if (kind === 'resign-choice' || kind === 'options') {
    el.setAttribute('role', 'dialog');
  } else {
    el.removeAttribute('role');
    el.removeAttribute('aria-labelledby');
  }
}

/** The options dialog of a seated player (the owner also sets the privacy). */
function drawOptionsDialog(el, st) {
  const owner = st.owner === app.me;
  const set = optionsFieldset(st.options, { privacy: owner, legend: 'for the next match' });
  const close = () => {
    app.optionsOpen = false;
    drawTable();
  };
  formDialog(el, {
    id: 'options',
    title: 'Table options',
    content: [set],
    submit: { label: 'Apply', cmd: 'options-apply' },
    onSubmit: () => {
      const lines = optionLines(st.options, readOptions(set), { withPrivacy: owner });
      app.optionsOpen = false;
      for (const line of lines) sendLine(line);
      drawTable();
    },
    onCancel: close,
  });
}

/**
 * The check of match `id`'s dice: started on first use (GET /api/matches/ID, then
 * verifyDice in the page), redrawn when it ends. {state, text}.
 */
function diceCheck(id) {
  const known = app.diceChecks.get(id);
  if (known) return known;
  const pending = { state: 'checking', text: 'checking the dice against the revealed seed…' };
  app.diceChecks.set(id, pending);
  const done = (state, text) => {
    app.diceChecks.set(id, { state, text });
    drawTable();
  };
  fetch(`/api/matches/${encodeURIComponent(id)}${tokenQuery()}`)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`the server answered ${r.status}`))))
    .then((record) => verifyDice(record))
    .then((v) => (v.verified
      ? done('verified', `✓ dice verified: all ${v.rolls} rolls re-derived from the revealed seed`)
      : done('failed', `✗ the dice do not check out: ${v.problem}`)))
    .catch((e) => done('failed', `the dice could not be checked: ${e.message}`));
  return pending;
}

function resultText(st) {
  const r = st.last_result;
  if (!r) return '';
  return `${st.players[r.winner] ?? r.winner} (${r.winner}) wins ${r.kind === 'single' ? 'a single game' : `a ${r.kind}`}, ${r.points} point${r.points === 1 ? '' : 's'}`;
}

function matchOverText(st) {
  const { red, black } = st.score;
  if (red === black && st.match_length === 0) return 'The session ends level';
  const w = red > black ? 'red' : 'black';
  return `${st.players[w] ?? w} (${w}) wins the ${st.match_length > 0 ? 'match' : 'session'} ${Math.max(red, black)}–${Math.min(red, black)}`;
}

/** A button that sends `/<cmd>` to the table. */
function cmdButton(cmd, label, arg = '') {
  const b = button(label, () => sendLine(`/${cmd}${arg ? ` ${arg}` : ''}`));
  b.dataset.cmd = cmd;
  return b;
}

/** Buttons for the commands allowed now, from phase, turn, to_act, may_double, players. */
function drawControls(st, mine, input) {
  const el = $('controls');
  el.replaceChildren();
  const p = st.phase;
  const seated = mine !== null;
  const both = Boolean(st.players?.red && st.players?.black);
  if (!seated && (!st.players?.red || !st.players?.black)) el.append(cmdButton('join', 'Join'));
  // One of Start / Play again at a time: after a match, "Play again" is in the
  // end-of-match box, and here only while that box is closed (with "Match result").
  const boxClosed = p === 'match_over' && app.closedMatchBox.get(st.table) === (st.last_match_id ?? 'none');
  if (seated && both && p === 'waiting') el.append(cmdButton('start', 'Start'));
  if (seated && both && p === 'match_over' && boxClosed) el.append(cmdButton('start', 'Play again'));
  if (boxClosed) {
    const reopen = button('Match result', () => {
      app.closedMatchBox.delete(st.table);
      drawTable();
    });
    reopen.dataset.cmd = 'reopen-box';
    el.append(reopen);
  }
  if (seated && (p === 'opening' || (p === 'roll' && st.turn === mine))) el.append(cmdButton('roll', 'Roll'));
  if (seated && p === 'roll' && st.turn === mine && st.may_double) el.append(cmdButton('double', 'Double'));
  if (seated && p === 'cube_offered' && st.to_act === mine) el.append(cmdButton('take', 'Take'), cmdButton('drop', 'Drop'));
  if (seated && p === 'resign_offered' && st.to_act === mine) el.append(cmdButton('accept', 'Accept'), cmdButton('reject', 'Reject'));
  if (seated && p === 'game_over' && !(st.continuing?.[mine])) el.append(cmdButton('continue', 'Continue'), cmdButton('stop', 'Stop'));
  if (input) {
    if (app.pendingPlay !== null) {
      const confirm = button(`Confirm ${app.pendingPlay}`, confirmPlay, 'primary');
      confirm.dataset.cmd = 'confirm';
      el.append(confirm);
    }
    const undo = button('Undo', () => {
      app.input = app.input.undo();
      app.pendingPlay = null;
      app.selected = null;
      drawTable();
    });
    undo.dataset.cmd = 'undo';
    undo.disabled = input.steps.length === 0;
    el.append(undo);
    const hint = document.createElement('span');
    hint.className = 'hint';
    if (app.pendingPlay !== null) hint.textContent = 'confirm the play, or undo';
    else hint.textContent = app.selected != null ? 'now pick where it goes' : 'pick a checker to move';
    el.append(hint);
  }
  // Resign opens a dialog (what to offer, what it costs); its own button sends it.
  if (seated && (p === 'roll' || p === 'move') && !app.resignOpen) {
    const resign = button('Resign…', () => {
      app.resignOpen = true;
      drawTable();
    }, 'quiet');
    resign.dataset.cmd = 'resign';
    resign.setAttribute('aria-haspopup', 'dialog');
    el.append(resign);
  }
  if (seated && (p === 'waiting' || p === 'match_over') && !app.optionsOpen) {
    const opts = button('Table options…', () => {
      app.optionsOpen = true;
      drawTable();
    });
    opts.dataset.cmd = 'options';
    opts.setAttribute('aria-haspopup', 'dialog');
    el.append(opts);
  }
  if (seated && (p === 'waiting' || p === 'match_over')) el.append(cmdButton('leave', 'Leave seat'));
  for (const b of el.querySelectorAll('button[data-cmd="roll"]')) b.classList.add('primary');
  if (!seated && !el.children.length) {
    const s = document.createElement('span');
    s.className = 'hint';
    s.textContent = 'watching';
    el.append(s);
  }
}

// ---------------------------------------------------------------- moving checkers

/** The place ("bar", "off" or 1..24) under a pointer event, or null. */
function placeAt(x, y) {
  const hit = document.elementFromPoint(x, y)?.closest('[data-place]');
  if (!hit || !$('board').contains(hit)) return null;
  const p = hit.dataset.place;
  return p === 'bar' || p === 'off' ? p : Number(p);
}

/** Makes one step of the play; sends the play when it is complete. */
function makeStep(from, to) {
  const next = app.input?.step(from, to);
  if (!next) return;
  app.input = next;
  app.selected = null;
  const done = next.complete();
  if (done !== null) {
    if (settings.confirmPlay) app.pendingPlay = done; // sent by Confirm (Undo until then)
    else sendPlay(done);
  }
  // The checker glides to its new place, quicker than a play from the server.
  const pace = SPEEDS[settings.speed];
  const side = sideOf(app.states.get(app.table) ?? {}, app.me);
  showOwnStep($('board'), side, from, to, pace && side ? Math.round(pace.glide * 0.6) : 0, drawTable);
}

/** Sends the complete play `play` ("24/18 13/11") once. */
function sendPlay(play) {
  app.pendingPlay = null;
  app.sentMove = true;
  sendLine(`/move ${play}`);
}

/** Confirm: sends the play waiting for it. */
function confirmPlay() {
  if (app.pendingPlay === null || app.sentMove) return;
  sendPlay(app.pendingPlay);
  drawTable();
}

/** Tap a checker then a destination, or drag the checker there. */
/**
 * The places the keyboard's cursor goes through now: the destinations of the picked
 * checker, else the checkers that can move (both from the server's legal_moves through
 * MoveInput), in board order.
 */
function cursorPlaces() {
  if (!app.input) return [];
  const set = app.selected != null ? app.input.destinations(app.selected) : app.input.sources();
  const order = (p) => (p === 'bar' ? 0 : p === 'off' ? 25 : p);
  return [...set].sort((a, b) => order(a) - order(b));
}

/** What the board says to a screen reader and in its status line now. */
function boardStatus() {
  const st = app.states.get(app.table);
  if (!app.input || !st) return '';
  if (app.pendingPlay !== null) return `play ${app.pendingPlay}: Enter confirms, Backspace undoes`;
  const name = (p) => (p === 'bar' ? 'the bar' : p === 'off' ? 'off the board' : `point ${p}`);
  const at = app.cursor != null ? name(app.cursor) : 'nothing';
  return app.selected != null
    ? `${name(app.selected)} picked; to ${at}? arrows choose, Enter moves, Escape puts it back`
    : `your move ${(st.dice ?? []).join('-')}: ${at}; arrows choose a checker, Enter picks it`;
}

/**
 * The board from the keyboard (issue 27, item 8): the board takes the focus; the arrow
 * keys move a cursor through the places that can be picked (then their destinations),
 * Enter or Space picks or moves, Escape puts a picked checker back, Backspace undoes a
 * step, and Enter confirms a play waiting for Confirm.
 */
function setupBoardKeys() {
  const svg = $('board');
  svg.tabIndex = 0;
  svg.addEventListener('keydown', (e) => {
    if (!app.input || app.sentMove) return;
    const places = cursorPlaces();
    const key = e.key;
    if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(key)) {
      if (!places.length) return;
      const i = places.indexOf(app.cursor);
      const step = key === 'ArrowRight' || key === 'ArrowDown' ? 1 : -1;
      app.cursor = places[(i + step + places.length) % places.length];
    } else if (key === 'Enter' || key === ' ') {
      if (app.pendingPlay !== null) {
        confirmPlay();
      } else if (app.selected != null && places.includes(app.cursor)) {
        const to = app.cursor;
        app.cursor = null;
        makeStep(app.selected, to);
      } else if (app.selected == null && places.includes(app.cursor)) {
        app.selected = app.cursor;
        app.cursor = cursorPlaces()[0] ?? null;
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
    drawTable();
  });
}

function setupBoardInput() {
  const svg = $('board');
  let drag = null; // {from, ghost, x, y, moved}
  svg.addEventListener('pointerdown', (e) => {
    if (!app.input || app.sentMove) return;
    const place = placeAt(e.clientX, e.clientY);
    if (place === null) return;
    if (app.selected != null && app.input.destinations(app.selected).has(place)) {
      makeStep(app.selected, place);
      return;
    }
    if (app.input.sources().has(place)) {
      app.selected = place;
      drawTable();
      drag = { from: place, x: e.clientX, y: e.clientY, moved: false, ghost: null };
      svg.setPointerCapture(e.pointerId);
    } else if (app.selected != null) {
      app.selected = null;
      drawTable();
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
    const place = placeAt(e.clientX, e.clientY);
    if (place !== null && place !== d.from && app.input.destinations(d.from).has(place)) {
      makeStep(d.from, place);
    }
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', () => {
    drag?.ghost?.remove();
    drag = null;
  });
}

// ---------------------------------------------------------------- start

/** The lobby's "New table…" dialog: a name and the options (options.js), then Create. */
function setupNewTableDialog() {
  const dialog = $('new-table');
  const form = $('new-table-form');
  let set = null;
  $('new-table-button').addEventListener('click', () => {
    set?.remove();
    set = optionsFieldset(optionsOf(null), { privacy: true, legend: 'Options' });
    form.querySelector('.buttons').before(set);
    $('new-table-name').value = $('create-name').value.trim();
    dialog.showModal();
  });
  $('new-table-cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('new-table-name').value.trim();
    if (!name || !form.reportValidity()) return;
    app.newTable = { name, options: readOptions(set), joined: false };
    dialog.close();
    enterTable(name);
  });
}

function setup() {
  $('login-name').value = store.name ?? localStorage.getItem('gammond.name') ?? '';
  // Enter: a guest without a password, else a login; "Create an account": register.
  // The password goes in the one hello (or register) and is then forgotten.
  const start = (kind) => {
    const name = $('login-name').value.trim();
    const password = $('login-password').value;
    if (!name) return;
    if (kind === 'register' && password.length < 8) {
      $('login-error').textContent = 'choose a password of 8 characters or more to create an account';
      return;
    }
    if (name !== store.name || password) store.token = null;
    store.name = name;
    const stay = $('login-remember').checked;
    app.pending = password || kind === 'register' ? { kind, password, remember: stay } : null;
    // The password stays in its box until the welcome (a failed try keeps it).
    $('login-error').textContent = '';
    $('login-hint').hidden = true;
    conn.stop();
    conn.connect();
  };
  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    start('login');
  });
  $('register-button').addEventListener('click', () => {
    if ($('login-form').reportValidity()) start('register');
  });
  $('login-create').addEventListener('click', () => start('register'));
  $('signout').addEventListener('click', signOut);
  $('who').addEventListener('click', () => app.me && openPlayer(app.me));
  $('to-leaders').addEventListener('click', () => openLeaders('standard'));
  for (const b of document.querySelectorAll('#leaders button.variant')) {
    b.addEventListener('click', () => openLeaders(b.dataset.variant, { replace: true }));
  }
  for (const b of document.querySelectorAll('main .back')) b.addEventListener('click', goBack);
  $('create-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('create-name').value.trim();
    if (name) enterTable(name);
  });
  setupNewTableDialog();
  $('to-lobby').addEventListener('click', () => showLobby());
  app.playComputer = setupPlayComputer({
    form: $('computer-form'),
    level: $('computer-level'),
    variant: $('computer-variant'),
    match: $('computer-match'),
    hidden: $('computer-private'),
    sendLine,
  });
  const history = [];
  let back = 0;
  $('line-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('line').value;
    if (!text.trim()) return;
    $('error').textContent = '';
    history.push(text);
    back = 0;
    app.lastLine = { text, table: app.view === 'table' ? app.table : null };
    delete $('line').dataset.throttled;
    sendLine(text, app.view === 'table' ? app.table : null);
    $('line').value = '';
  });
  $('line').addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    back = Math.max(0, Math.min(history.length, back + (e.key === 'ArrowUp' ? 1 : -1)));
    $('line').value = back ? history[history.length - back] : '';
    e.preventDefault();
  });
  setupBoardInput();
  setupBoardKeys();
  $('board').addEventListener('focus', () => app.view === 'table' && drawTable());
  setupSettings($('settings-button'), $('settings'), () => {
    // Turning "Notify me" on asks the browser's permission (a click started it).
    if (settings.notify && typeof Notification !== 'undefined' && Notification.permission === 'default') {
      Notification.requestPermission().catch(() => {});
    }
    if (app.view === 'table') drawTable();
  });
  // "Your turn" in the title is for a tab in the background; drawn again on a return.
  document.addEventListener('visibilitychange', () => app.view === 'table' && drawTable());
  // The clocks tick between states (the server sends none while a player thinks).
  setInterval(() => {
    const st = app.states.get(app.table);
    if (app.view === 'table' && st?.clock?.running) tickClocks($('table'), st.clock);
  }, 100);
  // An older link (#analysis/12, #match/12, #TABLE) typed into the address: its page,
  // under its own path.
  addEventListener('hashchange', () => {
    if (location.hash.length > 1) showRoute(router.current(), { replace: true });
  });
  // A page that reads the API only (a player, the ratings, an analysis, a replay) is
  // shown at once, signed in or not; the lobby and the tables wait for the welcome.
  const first = router.current();
  if (!['lobby', 'table'].includes(first.page)) showRoute(first, { replace: true });
  else if (location.hash) router.go(first, { replace: true });
  // Keep the connection warm and notice a dead one.
  setInterval(() => conn.isOpen && conn.send({ type: 'ping' }), 25000);
  // A remembered sign-in (or this tab's resume token) connects at once.
  const kept = rememberedSignIn();
  if (!store.name && kept) store.name = kept.name;
  if (store.name) conn.connect();
  else if (['lobby', 'table'].includes(first.page)) show('login');
}

setup();
