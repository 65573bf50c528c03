// The gammond browser client: a thin client. It draws what the server pushes and
// sends command lines; every legal play comes from state.legal and its checker moves
// from state.legal_moves, whether the cube is drawn from state.cube.in_play, and every
// allowed action from phase, to_act, turn, may_double and players
// (protocol/PROTOCOL.md). The clocks tick from state.clock (clock.js); a finished
// match's dice are re-derived in the page from its record (dice.js).

import { Connection } from './net.js';
import { tickClocks } from './clock.js';
import { AnalysisPage } from './analysis.js';
import { nameWithRating, showPlayer, showLeaders } from './account.js';
import { openNameMenu, closeNameMenu } from './moderation.js';
import { playedTable, setupPlayComputer } from './bots.js';
import { setupSeek } from './seek.js';
import { TournamentList, TournamentPage } from './tournaments.js';
import { button } from './dom.js';
import { drawOnline, drawTables } from './lobby.js';
import { sideOf } from './seats.js';
import { createTableView } from './tableview.js';
import { settings, setupSettings } from './settings.js';
import { accountExists, canSignIn, endOnServer, helloFor, remember, rememberedSignIn } from './session.js';
import { optionLines, optionsFieldset, optionsOf, readOptions } from './options.js';
import { MoveList } from './movelist.js';
import { Router } from './router.js';
import { ReplayPage } from './replay.js';
import { PlayAnimator } from './animate.js';
import { BoardInput } from './boardinput.js';
import { Sounds } from './sound.js';
import { ChatLog } from './chatlog.js';
import { lang, languages, onLanguage, sayText, setLanguage, startLanguage, storedLanguage, t } from './i18n.js';

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
  input: null, // the play being entered (moves.js MoveInput), or null
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
  afterSignIn: null, // the page to return to after the sign-in form ("Sign in to register")
  noticeTimer: null,
  playComputer: null, // the lobby's "Play the computer" form (bots.js)
  seek: null, // the lobby's "Play now" form and its waiting line (seek.js)
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

/** The tournaments' list (/tournaments) and a tournament's page (/tournament/NAME). */
const tournamentList = new TournamentList(document.getElementById('tournaments'), {
  tournament: (name) => openTournament(name),
  back: () => router.back(),
});
const tournamentPage = new TournamentPage(document.getElementById('tournament'), {
  me: () => app.me,
  sendLine: (text) => sendLine(text, null),
  back: () => router.back(),
  openTable: (name) => enterTable(name),
  openPlayer: (name) => openPlayer(name),
  openReplay: (id) => showReplay(id),
  // "Sign in to register": the sign-in form, then back to the tournament (onWelcome).
  signIn: () => {
    app.afterSignIn = router.current();
    showRoute({ page: 'lobby', arg: null });
  },
});
app.tournamentPage = tournamentPage;

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

/**
 * Adds a line to `table`'s log, shown at once when that log is on screen. `say`: the
 * server's {key, args} of the line, drawn again in the page's language when it changes.
 */
function addLog(table, kind, text, from = null, say = null) {
  chatLog.add(table, kind, text, from, (app.table ?? '') === table && app.view !== 'login', say);
}

/** Adds server message `msg`'s sentence (its `say` when it has one) to `table`'s log. */
function logSaid(table, kind, msg) {
  addLog(table, kind, sayText(msg), null, msg?.say?.key ? msg.say : null);
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
  draw: (board, dice, side) => view.drawPlayFrame(board, dice, side),
  done: () => drawTable(),
  speed: () => settings.speed,
  onHit: () => sounds.play('hit'),
});
app.animator = animator;

/** The table on screen: board, seats, dialogs and buttons (tableview.js). */
const view = createTableView({
  app,
  sendLine: (text, table) => sendLine(text, table),
  tableNameMenu: (name, el) => tableNameMenu(name, el),
  showReplay: (id) => showReplay(id),
  showAnalysis: (id) => showAnalysis(id),
  tokenQuery,
  sounds,
  busy: () => animator.busy,
  boardInput: () => boardInput,
});

/** Redraws everything of the table on screen from its last state. */
function drawTable() {
  view.drawTable();
}

/** The move list of the table on screen, beside the board. */
function drawMoves() {
  view.drawMoves();
}

/** Moving checkers on the table's board: taps, drags and keys (boardinput.js). */
const boardInput = new BoardInput({
  svg: document.getElementById('board'),
  app,
  redraw: () => drawTable(),
  sendLine: (text) => sendLine(text),
  side: () => sideOf(app.states.get(app.table) ?? {}, app.me),
});

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
    app.status = s;
    drawStatus();
    if (s === 'replaced') showError(t('web.status.disconnected', { why }));
  },
});
app.conn = conn;
app.redraw = () => drawTable(); // the table on screen drawn again (the console, the tests)
window.gammond = app; // for the console and the end-to-end test

/** The header's connection status, in the page's language. */
function drawStatus() {
  const el = $('status');
  const s = app.status;
  if (!s) return;
  el.dataset.status = s;
  el.textContent = {
    connecting: t('web.status.connecting'),
    open: t('web.status.open'),
    closed: t('web.status.closed'),
    replaced: t('web.status.replaced'),
  }[s];
}

// ---------------------------------------------------------------- connection

/** The first message of a connection (session.js): a login, a resume, a remembered sign-in. */
function sayHello() {
  // The language goes with the hello when this browser chose one; else the server picks
  // (the account's, then Accept-Language) and the welcome says it (onWelcome).
  conn.send(helloFor(store.name, store.token, app.pending, storedLanguage() ? lang() : null));
}

function send(msg) {
  const id = conn.send(msg);
  if (id === null) showError(t('web.error.not_connected'));
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
    case 'chat':
      // A private message (/tell, or a FIBS client's tell): in the lobby's log, marked.
      if (msg.to) return addLog('', 'chat private', `${msg.from} → ${msg.to}: ${msg.text}`, msg.from);
      return addLog(msg.table ?? '', 'chat', `${msg.from}: ${msg.text}`, msg.from);
    case 'broadcast': return onBroadcast(msg);
    case 'info': return onInfo(msg);
    case 'tables':
      app.seek?.update(msg); // its `seeking` count
      return drawTables(msg.tables, { enterTable: (name) => enterTable(name), openPlayer: (name) => openPlayer(name) });
    case 'lobby': return app.seek?.update(msg); // the count of players waiting, pushed
    case 'tournament': return tournamentPage.update(msg.tournament);
    case 'tournament_pairing': return onPairing(msg);
    case 'error': return onError(msg);
    default: return undefined; // pong and anything newer
  }
}

function onWelcome(msg) {
  const loggedIn = app.pending;
  app.me = msg.name;
  app.pending = null;
  // The server's choice of language (the account's, or the browser's Accept-Language)
  // when this browser has made none.
  if (msg.lang && msg.lang !== lang() && storedLanguage() === null && languages().some((l) => l.tag === msg.lang)) {
    setLanguage(msg.lang, false);
  }
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
  const after = app.afterSignIn;
  app.afterSignIn = null;
  if (after && app.view === 'login') showRoute(after);
  else if (route.page === 'lobby' || route.page === 'table' || app.view === 'login') showRoute(route, { replace: true });
  // A tournament's page follows its news on this connection (again after a reconnection).
  else if (app.view === 'tournament') {
    tournamentPage.subscribe();
    tournamentPage.draw();
  }
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
    case 'tournaments': return openTournaments(nav);
    case 'tournament': return openTournament(route.arg, nav);
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
  app.seek?.refused();
  if (tournamentPage.answered(msg)) return; // a refused /register or /withdraw: on its page
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
    $('login-error').textContent = sayText(msg);
    if (msg.code === 'name_registered' || msg.code === 'bad_session') $('login-password').focus();
    show('login');
    // A new name with a password: say there is no such account and offer to create it
    // (the password typed stays in its box).
    if (msg.code === 'bad_login' && tried?.kind === 'login') offerNewAccount(store.name);
    return;
  }
  if (TABLE_REFUSALS.includes(msg.code) && app.view === 'table' && !app.states.has(app.table)) {
    showLobby();
    showError(sayText(msg));
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
  showError(sayText(msg));
}

/** An administrator's /broadcast: in the log on screen (table or lobby) and as a banner. */
function onBroadcast(msg) {
  const text = t('web.broadcast', { from: msg.from, text: msg.text });
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
    finishSignOut(sayText(msg));
    return;
  }
  // The answer to the tournament page's Register or Withdraw goes under its button too.
  if (msg.topic === 'tournament') tournamentPage.answered(msg);
  // Moderation answers and invitations (issue 13) carry no table: shown where we are.
  const here = ['ignore', 'ban', 'unban', 'close', 'invitation'].includes(msg.topic) ? app.table ?? '' : '';
  // An invitation names the table it is to (`table`), but is for the invited player
  // wherever they are: shown there, not in the log of a table they have not entered.
  logSaid(msg.topic === 'invitation' ? here : msg.table ?? here, 'info', msg);
  app.seek?.update(msg); // "Play now": waiting, cancelled, or paired (topic "play")
  const table = playedTable(msg); // the answer to "Play the computer" or "Play now": go to its table
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
  $('login-hint-text').textContent = t('web.login.no_account', { name });
  $('login-hint').hidden = false;
  $('login-create').textContent = t('web.login.create_named', { name });
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
  $('login-error').textContent = text ? `${text}` : t('web.login.signed_out');
}

/** The header's name, with the account's standard rating. */
function drawWho() {
  const who = $('who');
  who.replaceChildren();
  $('signout').hidden = !app.me || !app.account?.registered; // a guest has nothing to sign out of
  if (!app.me) return;
  const registered = app.account?.registered;
  who.append(nameWithRating(app.me, registered ? app.account.rating?.standard : undefined));
  who.title = registered ? t('web.who.registered') : t('web.who.guest');
  who.dataset.registered = registered ? 'yes' : 'no';
}

/** Opens the page of player `name` (ratings and matches), /player/NAME. */
function openPlayer(name, nav = {}) {
  address({ page: 'player', arg: name }, nav);
  document.title = t('web.title.player', { name });
  show('player');
  showPlayer(name, { player: (other) => openPlayer(other), replay: (id) => showReplay(id), analysis: (id) => showAnalysis(id) });
}

/** Opens the ratings list of `variant`, /ratings/VARIANT. */
function openLeaders(variant = 'standard', nav = {}) {
  address({ page: 'ratings', arg: variant }, nav);
  document.title = t('web.title.ratings');
  show('leaders');
  showLeaders(variant, (name) => openPlayer(name));
}

/** Opens the list of tournaments, /tournaments. */
function openTournaments(nav = {}) {
  leaveTable();
  address({ page: 'tournaments' }, nav);
  document.title = t('web.title.tournaments');
  show('tournaments');
  tournamentList.show();
}

/** Opens the page of tournament `name` (it follows the tournament's news), /tournament/NAME. */
function openTournament(name, nav = {}) {
  leaveTable();
  address({ page: 'tournament', arg: name }, nav);
  document.title = t('web.title.tournament', { name });
  show('tournament');
  tournamentPage.show(name);
}

/**
 * A tournament's new pairing (`tournament_pairing`): the match has started at its table
 * with both players away, and a player who does not come forfeits after the grace
 * period. The page says so and goes to the table, as for "Play now"; not while the
 * player is in the middle of a match at the table on screen (the notice says where to go).
 */
function onPairing(msg) {
  const text = msg.text || msg.say ? sayText(msg)
    : t('web.pairing.text', { tournament: msg.tournament, opponent: msg.opponent, table: msg.table });
  addLog('', 'info', text);
  sounds.play('turn');
  const st = app.table ? app.states.get(app.table) : null;
  const busy = app.view === 'table' && app.table !== msg.table && st && sideOf(st, app.me)
    && !['waiting', 'match_over'].includes(st.phase);
  if (busy) {
    addLog(app.table, 'info', text);
    showNotice(t('web.pairing.busy', { text, table: msg.table }));
    return;
  }
  enterTable(msg.table);
  addLog(msg.table, 'info', text);
  showNotice(text);
}

/** A notice in the chat panel (a tournament's pairing): read out politely, kept a minute. */
function showNotice(text) {
  const el = $('notice');
  el.textContent = text;
  clearTimeout(app.noticeTimer);
  app.noticeTimer = setTimeout(() => { el.textContent = ''; }, 60000);
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
  for (const v of ['login', 'lobby', 'table', 'analysis', 'replay', 'player', 'leaders', 'tournaments', 'tournament']) $(v).hidden = v !== view;
  $('moves-box').hidden = view !== 'table';
  if (view === 'table') drawMoves();
  $('chat').hidden = view === 'login' || view === 'analysis' || view === 'replay' || !app.me;
  if (view !== 'analysis') analysis.hide();
  if (view !== 'replay') replay.hide();
  if (view !== 'tournaments') tournamentList.hide();
  if (view !== 'tournament') tournamentPage.hide();
  if (view !== 'table') $('notice').textContent = ''; // a pairing's notice is for the table
  document.body.dataset.view = view;
  clearInterval(app.tablesTimer);
  clearInterval(app.whoTimer);
  if (view === 'lobby') {
    sendLine('/tables', null);
    app.tablesTimer = setInterval(() => sendLine('/tables', null), 4000);
    askWho();
    app.whoTimer = setInterval(askWho, 15000);
  }
  drawChatTitle();
  drawLog();
}

/** The chat panel's title: the table's, or the lobby's. */
function drawChatTitle() {
  $('chat-title').textContent = app.view === 'table' && app.table ? t('web.chat.table_title', { table: app.table }) : t('web.chat.lobby_title');
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
  document.title = t('web.title.analysis', { id: String(id) });
  show('analysis');
  analysis.show(id);
}

/** Shows the replay of match `id` (a history row, the match-over box, a link), /match/ID. */
function showReplay(id, nav = {}) {
  leaveTable();
  address({ page: 'replay', arg: id }, nav);
  document.title = t('web.title.replay', { id: String(id) });
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
  logSaid(msg.table, `event ${msg.event}`, msg);
  // Sent away from a table (kicked, or closed by an administrator): back to the lobby.
  if ((msg.event === 'kicked' && msg.name === app.me && !msg.bot) || msg.event === 'closed') {
    app.states.delete(msg.table);
    if (app.table === msg.table && app.view === 'table') {
      closeNameMenu();
      showLobby();
      showError(sayText(msg));
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
      side: msg.side,
      dice: (msg.dice ?? []).join('-'),
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
    app.lastResult = { table: msg.table, msg, until: Date.now() + 5000 };
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
    showError(t('web.new_table.exists', { table: st.table }));
    return;
  }
  app.newTable = null;
  for (const line of optionLines(st.options, wanted.options, { withPrivacy: st.owner === app.me })) sendLine(line, st.table);
}

// ---------------------------------------------------------------- start

/** The lobby's "New table…" dialog: a name and the options (options.js), then Create. */
function setupNewTableDialog() {
  const dialog = $('new-table');
  const form = $('new-table-form');
  let set = null;
  $('new-table-button').addEventListener('click', () => {
    set?.remove();
    set = optionsFieldset(optionsOf(null), { privacy: true, legend: t('web.new_table.options') });
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

/**
 * The header's language menu: one option per language gammond offers, in its own name.
 * A choice is kept in this browser, redraws the page, and (connected) tells the server
 * with `/lang TAG`, which keeps it in a registered player's account.
 */
function setupLanguageMenu() {
  const menu = $('language-menu');
  const fill = () => {
    menu.replaceChildren(...languages().map((l) => {
      const o = document.createElement('option');
      o.value = l.tag;
      o.textContent = l.name;
      o.lang = l.tag;
      return o;
    }));
    menu.value = lang();
  };
  languageReady.then(fill);
  menu.addEventListener('change', async () => {
    const tag = menu.value;
    await setLanguage(tag);
    if (conn.isOpen && app.me) sendLine(`/lang ${tag}`, null);
  });
  onLanguage(() => {
    menu.value = lang();
    redrawView();
  });
}

/** Draws the page on screen again in the page's language (the table stays as it is). */
function redrawView() {
  drawStatus();
  drawWho();
  drawChatTitle();
  drawLog();
  const route = router.current();
  switch (app.view) {
    case 'table':
      document.title = app.table ? `${app.table} — gammond` : 'gammond';
      drawMoves();
      app.relang = true;
      drawTable();
      app.relang = false;
      break;
    case 'lobby':
      if (conn.isOpen) {
        sendLine('/tables', null);
        askWho();
      }
      break;
    case 'player': return openPlayer(route.arg ?? app.me, { fromHistory: true });
    case 'leaders': return openLeaders($('leaders').dataset.variant || 'standard', { fromHistory: true });
    case 'tournaments':
      document.title = t('web.title.tournaments');
      return tournamentList.load();
    case 'tournament':
      document.title = t('web.title.tournament', { name: tournamentPage.name ?? '' });
      return tournamentPage.draw();
    case 'analysis':
      document.title = t('web.title.analysis', { id: String(analysis.id ?? route.arg) });
      return analysis.redraw();
    case 'replay':
      document.title = t('web.title.replay', { id: String(replay.id ?? route.arg) });
      return replay.redraw();
    default:
  }
  return undefined;
}

function setup() {
  setupLanguageMenu();
  $('login-name').value = store.name ?? localStorage.getItem('gammond.name') ?? '';
  // Enter: a guest without a password, else a login; "Create an account": register.
  // The password goes in the one hello (or register) and is then forgotten.
  const start = (kind) => {
    const name = $('login-name').value.trim();
    const password = $('login-password').value;
    if (!name) return;
    if (kind === 'register' && password.length < 8) {
      $('login-error').textContent = t('web.login.password_short');
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
    app.connectAsked = true;
    languageReady.then(() => conn.connect());
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
  $('to-tournaments').addEventListener('click', () => openTournaments());
  for (const b of document.querySelectorAll('#leaders button.sort')) {
    b.addEventListener('click', () => showLeaders($('leaders').dataset.variant || 'standard', (name) => openPlayer(name), b.dataset.sort));
  }
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
  app.seek = setupSeek({
    form: $('seek-form'),
    variant: $('seek-variant'),
    match: $('seek-match'),
    status: $('seek-status'),
    text: $('seek-text'),
    cancel: $('seek-cancel'),
    count: $('seek-count'),
    sendLine,
  });
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
  boardInput.setup();
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
  // Keep the connection warm and notice a dead one.
  setInterval(() => conn.isOpen && conn.send({ type: 'ping' }), 25000);
  languageReady.then(() => {
    const first = router.current();
    if (!['lobby', 'table'].includes(first.page)) showRoute(first, { replace: true });
    else if (location.hash) router.go(first, { replace: true });
    // A remembered sign-in (or this tab's resume token) connects at once.
    const kept = rememberedSignIn();
    if (!store.name && kept) store.name = kept.name;
    if (store.name && !app.connectAsked) conn.connect();
    else if (!store.name && ['lobby', 'table'].includes(first.page)) show('login');
  });
}

// The page's language first (the catalogues): the controls work at once, and what is
// drawn from JavaScript (the pages, the connection's answers) waits for it.
const languageReady = startLanguage();
setup();
