// Browser end-to-end test of the web client in a cluster (issues 16 and 26), in real
// headless Chromium through HAProxy in front of three gammond nodes on one PostgreSQL
// database, all started here on loopback as scripts/cluster-test starts them.
//
//   node cluster.test.mjs <path/to/gammond> <build-dir>
//
// alice registers and opens the table clu1 (its node claims it: table_owners); bob
// registers, most likely on another node (HAProxy: fewest connections), enters clu1 and
// is sent to its owner by `moved` (the page follows it: /n/<owner>/ws). Both pages show
// both players registered, at 1500.00. They start a rated 1-point match and play the
// opening; then the owner is killed with SIGKILL. Within the lease (2.5 s) and a few
// reconnects both pages are back at the table, online, with the same position, both
// players present with their ratings, and another node owns clu1. alice resigns, bob
// accepts: the match-over dialog shows both rating changes and the database has them.
// The only console errors allowed are the WebSocket handshakes refused while the owner
// is down (counted and printed). Output (node logs, HAProxy's, screenshots) goes to
// <build-dir>/e2e/cluster/. Exits non-zero (never skips) when anything is missing or
// wrong.

import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { harness, repo, sleep } from './harness.mjs';

const h = await harness('cluster', { timeLimitMs: 200_000 });
const { log, check, shot, command, dialogKind } = h;
const [gammond, buildDir] = process.argv.slice(2);
const pgTest = path.join(path.resolve(buildDir), 'tests', 'gammond-test-postgres');
const TABLE = 'clu1';
const NODES = ['a', 'b', 'c'];
// Chromium's console line for a WebSocket whose handshake failed (a node down, or
// HAProxy's 503 for a /n/ID/ws whose node is down): expected only while the owner is
// being replaced.
const WS_FAILED = /^WebSocket connection to '[^']*' failed/;

/** Fails the test with a sentence when `program` cannot be run (a test never skips). */
function requireProgram(program, args, why) {
  const r = spawnSync(program, args, { encoding: 'utf8' });
  if (r.error) h.fail(`${program} is not installed (${r.error.code}): ${why}; scripts/setup installs it`);
}

/** A TCP port free on loopback now (for HAProxy's two binds). */
async function freePort() {
  const srv = net.createServer();
  await new Promise((resolve, reject) => srv.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Runs one SQL statement with psql; resolves to its unaligned output, trimmed. */
function psql(url, sql) {
  const r = spawnSync('psql', ['-At', url, '-c', sql], { encoding: 'utf8' });
  if (r.status !== 0) h.fail(`psql failed (${r.status}) on ${sql}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Waits until `child` has exited, at most `ms`; true when it has. */
async function exited(child, ms) {
  for (const until = Date.now() + ms; child.exitCode === null && child.signalCode === null && Date.now() < until; ) {
    await sleep(50);
  }
  return child.exitCode !== null || child.signalCode !== null;
}

/** Stops `child` (SIGTERM, SIGKILL after `ms`) unless it has ended already. */
async function stop(child, ms = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await exited(child, ms))) child.kill('SIGKILL');
  await exited(child, 2000);
}

/** A child process whose standard output and error go to `logName` in the output folder. */
function spawnLogged(program, args, logName, options = {}) {
  const fd = openSync(path.join(h.outDir, logName), 'w');
  const child = spawn(program, args, { ...options, stdio: [options.stdin ?? 'ignore', fd, fd] });
  closeSync(fd); // the child has its own copy
  return child;
}

/**
 * The throwaway PostgreSQL server (gammond-test-postgres keeps it while its standard
 * input is open) and a database of its own; resolves to the database's URL.
 */
async function startPostgres() {
  if (!existsSync(pgTest)) h.fail(`${pgTest} is missing: build the target gammond-test-postgres`);
  const fd = openSync(path.join(h.outDir, 'postgres.log'), 'w');
  const pg = spawn(pgTest, [], { stdio: ['pipe', 'pipe', fd] });
  closeSync(fd);
  h.atEnd(async () => {
    pg.stdin.end(); // it stops the server and removes its folder
    if (!(await exited(pg, 20000))) pg.kill('SIGKILL');
  });
  const admin = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('PostgreSQL did not start within 60 s (postgres.log)')), 60000);
    pg.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.split('\n')[0].trim());
      }
    });
    pg.on('exit', (code) => reject(new Error(`gammond-test-postgres exited (${code}) before its URL (postgres.log)`)));
  });
  check(admin.startsWith('postgresql://'), `gammond-test-postgres printed an admin URL (${admin})`);
  const made = spawnSync('psql', ['-q', admin, '-c', 'CREATE DATABASE e2ecluster'], { encoding: 'utf8' });
  check(made.status === 0, `CREATE DATABASE e2ecluster (${made.stderr})`);
  // The same database URL scripts/cluster-test's new_database() makes.
  return admin.replace('@/postgres?', '@/e2ecluster?');
}

/**
 * Node `id` of the cluster, once it has written its port. The checkout's web client,
 * reproducible dice; heartbeat and lease as scripts/cluster-test's; every registration
 * comes from HAProxy's one address, so no limit on them.
 */
async function startNode(id, db) {
  const portFile = path.join(h.tmp, `${id}.port`);
  const child = spawnLogged(gammond, [
    '--port', '0', '--bind', '127.0.0.1', '--port-file', portFile, '--db', db, '--node-id', id,
    '--heartbeat', '0.5', '--lease', '2.5', '--trusted-proxy', '127.0.0.1', '--register-per-hour', '0',
    '--analysis-workers', '0', '--log-level', 'info',
    '--static-dir', path.join(repo, 'clients/web'), '--dice-seed', '7',
  ], `node-${id}.log`);
  h.atEnd(() => stop(child));
  for (const until = Date.now() + 30000; Date.now() < until; await sleep(50)) {
    if (child.exitCode !== null) h.fail(`node ${id} exited at start (code ${child.exitCode}): see node-${id}.log`);
    if (existsSync(portFile)) {
      const port = Number(readFileSync(portFile, 'utf8').trim());
      if (port > 0) return { id, child, port };
    }
  }
  h.fail(`node ${id} did not write its port file within 30 s (node-${id}.log)`);
  return null;
}

/** HAProxy with docker/haproxy.cfg in front of `nodes`; resolves to its port once it sees all up. */
async function startHaproxy(nodes) {
  const port = await freePort();
  const statsPort = await freePort();
  const env = { ...process.env, HAPROXY_BIND: `127.0.0.1:${port}`, HAPROXY_STATS_BIND: `127.0.0.1:${statsPort}` };
  for (const n of nodes) env[`GAMMOND_NODE_${n.id.toUpperCase()}`] = `127.0.0.1:${n.port}`;
  const child = spawnLogged('haproxy', ['-db', '-f', 'docker/haproxy.cfg'], 'haproxy.log', { cwd: repo, env });
  h.atEnd(() => stop(child));
  // Its servers' rows of backend nodes (not the backend's own row, UP with one server).
  let up = [];
  for (const until = Date.now() + 15000; Date.now() < until; await sleep(100)) {
    if (child.exitCode !== null) h.fail(`haproxy exited at start (code ${child.exitCode}): see haproxy.log`);
    const csv = await fetch(`http://127.0.0.1:${statsPort}/;csv`).then((r) => r.text()).catch(() => '');
    up = csv.split('\n').map((l) => l.split(','))
      .filter((f) => f[0] === 'nodes' && f[1] !== 'BACKEND' && f[1] !== 'FRONTEND' && f[17] === 'UP')
      .map((f) => f[1]);
    if (up.length === nodes.length) return port;
  }
  h.fail(`HAProxy sees ${up.length} of ${nodes.length} nodes up (${up}) after 15 s (haproxy.log)`);
  return null;
}

/** Keeps the last WebSocket frames of `page` (for the failure report). */
function recordFrames(page, who, frames) {
  const keep = (line) => {
    frames.push(`${who} ${new Date().toISOString().slice(11, 23)} ${line.slice(0, 400)}`);
    if (frames.length > 400) frames.shift();
  };
  page.on('websocket', (ws) => {
    keep(`open ${ws.url()}`);
    ws.on('framesent', (f) => keep(`> ${f.payload}`));
    ws.on('framereceived', (f) => keep(`< ${f.payload}`));
    ws.on('socketerror', (e) => keep(`socket error ${e}`));
    ws.on('close', () => keep(`closed ${ws.url()}`));
  });
}

/** The rating shown next to `name` in the seats' strips of the table on screen, or null. */
async function seatRating(page, name) {
  return page.$$eval('#table .strip [data-name]', (els, n) =>
    els.find((e) => e.dataset.name === n)?.querySelector('.rating')?.textContent ?? null, name);
}

/** What `page` shows of the table: its view, connection, state and drawn board. */
async function seen(page) {
  const s = await page.evaluate((table) => {
    const g = window.gammond;
    const st = g.states.get(table);
    return {
      me: g.me, view: g.view, url: g.conn.url, status: document.querySelector('#status')?.dataset.status,
      seq: st?.seq, phase: st?.phase, turn: st?.turn, dice: st?.dice, players: st?.players,
      present: st?.present, ratings: st?.ratings,
    };
  }, TABLE);
  s.board = s.view === 'table' ? JSON.stringify(await h.readBoard(page)) : null;
  return s;
}

await h.main(async () => {
  requireProgram('haproxy', ['-v'], 'the cluster is reached through HAProxy');
  requireProgram('psql', ['--version'], 'the test makes its database and reads the cluster with psql');

  const db = await startPostgres();
  log(`PostgreSQL: ${db}`);
  // One after the other: the first migrates the schema.
  const nodes = [];
  for (const id of NODES) nodes.push(await startNode(id, db));
  const port = await startHaproxy(nodes);
  const base = `http://127.0.0.1:${port}/`;
  log(`nodes ${nodes.map((n) => `${n.id} :${n.port}`).join(', ')}; HAProxy at ${base}`);

  const frames = [];
  try {
    // alice opens clu1: the node her socket reached claims it.
    const alice = await h.newPage('alice');
    recordFrames(alice, 'alice', frames);
    await h.register(alice, base, 'alice', 'alice-secret-1');
    await alice.fill('#create-name', TABLE);
    await alice.click('#create-form button');
    await alice.waitForSelector('#table:not([hidden]) #board .point');
    await command(alice, '#controls button[data-cmd="join"]');
    const owner = psql(db, `SELECT node FROM table_owners WHERE table_name='${TABLE}'`);
    check(NODES.includes(owner), `a node owns ${TABLE} once alice is at it (table_owners: "${owner}")`);
    log(`${TABLE} is node ${owner}'s; alice's socket: ${await alice.evaluate(() => window.gammond.conn.url)}`);

    // bob: HAProxy gives his socket the node with the fewest connections, most likely
    // not alice's; the lobby is the cluster's, so he sees clu1 wherever he is.
    const bob = await h.newPage('bob');
    recordFrames(bob, 'bob', frames);
    await h.register(bob, base, 'bob', 'bob-secret-22');
    const bobFirst = psql(db, "SELECT node FROM cluster_sessions WHERE name_key='bob'");
    log(`bob's first socket is on node ${bobFirst || '(not in cluster_sessions)'}`);
    await bob.waitForSelector(`#tables tr[data-table="${TABLE}"]`);
    await bob.click(`#tables tr[data-table="${TABLE}"] button[data-cmd="enter"]`);
    await bob.waitForSelector('#table:not([hidden]) #board .point');
    await bob.waitForFunction((t) => window.gammond.states.has(t), TABLE);
    await command(bob, '#controls button[data-cmd="join"]');
    const bobUrl = await bob.evaluate(() => window.gammond.conn.url);
    log(`bob is at ${TABLE} through ${bobUrl}`);
    if (bobFirst && bobFirst === owner) {
      log(`NOTE: bob's socket landed on the owner ${owner} itself: no moved to check (his URL: ${bobUrl})`);
    } else {
      check(frames.some((f) => /^bob \S+ < /.test(f) && f.includes('"type":"moved"') && f.includes(`"path":"/n/${owner}/ws"`)),
        `bob's page was told moved to /n/${owner}/ws`);
      check(bobUrl.includes(`/n/${owner}/ws`), `bob's page followed moved to the owner's /n/${owner}/ws (${bobUrl})`);
    }
    check(await bob.evaluate(() => window.gammond.account?.registered === true),
      'bob is welcomed as registered on the owner after moved');
    const atTable = await bob.evaluate((t) => window.gammond.states.get(t)?.players, TABLE);
    check(atTable?.red && atTable?.black && Object.values(atTable).sort().join() === 'alice,bob',
      `alice and bob hold the two seats (${JSON.stringify(atTable)})`);

    // Both pages: both players registered, with their ratings at the seats.
    for (const [n, p] of [['alice', alice], ['bob', bob]]) {
      await p.waitForFunction(() => document.querySelectorAll('#table .strip .name .rating').length === 2);
      for (const who of ['alice', 'bob']) {
        check(await seatRating(p, who) === '1500.00', `${n} sees ${who} at 1500.00 at the table`);
      }
      const ratings = await p.evaluate((t) => window.gammond.states.get(t)?.ratings, TABLE);
      check(ratings?.alice === 1500 && ratings?.bob === 1500, `${n}'s state has both ratings (${JSON.stringify(ratings)})`);
      check((await p.textContent('#who')).includes('1500.00'), `${n}'s header shows 1500.00`);
    }
    await shot(bob, 'cluster-seated.png');

    // A rated 1-point match: the opening roll(s), then the first play by clicking, so the
    // position to find again after the kill is not the starting one.
    await alice.fill('#line', '/option match 1');
    await alice.press('#line', 'Enter');
    await alice.waitForFunction(() => document.querySelector('#match-info').textContent.includes('match to 1'));
    await command(alice, '#controls button[data-cmd="start"]');
    const players = await alice.evaluate((t) => window.gammond.states.get(t).players, TABLE);
    const pageOf = { alice, bob };
    for (let i = 0; (await seen(alice)).phase === 'opening'; i++) {
      if (i >= 10) h.fail('ten opening rolls and still no move');
      await command(alice, '#controls button[data-cmd="roll"]');
    }
    const opened = await seen(alice);
    check(opened.phase === 'move', `after the opening roll someone moves (phase ${opened.phase})`);
    const mover = pageOf[players[opened.turn]];
    await mover.waitForSelector('#board .source');
    await h.playByClicking(mover, opened.turn);
    const played = await h.seqOf(mover);
    for (const p of [alice, bob]) {
      await p.waitForFunction((s) => Number(document.querySelector('#board').dataset.seq) >= s, played);
    }
    const before = await seen(alice);
    check(before.phase === 'roll', `after the first play the other side is to roll (${before.phase})`);
    check((await seen(bob)).board === before.board, 'both pages show the same position before the kill');
    log(`before the kill: seq ${before.seq}, phase ${before.phase}, ${before.turn} to roll`);
    await shot(alice, 'cluster-before-kill.png');

    // kill -9 the owner: its sockets drop; HAProxy marks it down within ~1 s; the others
    // may claim clu1 once its lease (2.5 s) has run out; the pages reconnect to /ws and
    // are sent on to the new owner.
    const killed = nodes.find((n) => n.id === owner);
    h.allowConsoleErrors(WS_FAILED);
    const killedAt = Date.now();
    process.kill(killed.child.pid, 'SIGKILL');
    log(`kill -9 node ${owner} (pid ${killed.child.pid})`);
    let now = null;
    let last = null;
    for (const until = killedAt + 30000; ; await sleep(200)) {
      const newOwner = psql(db, `SELECT node FROM table_owners WHERE table_name='${TABLE}'`);
      const a = await seen(alice);
      const b = await seen(bob);
      last = { newOwner, alice: a, bob: b };
      for (const [n, s] of [['alice', a], ['bob', b]]) {
        // A server bug, not a slow takeover: report it at once.
        if (s.view === 'login' || s.me !== n) h.fail(`${n}'s page dropped to the login form after the kill: ${JSON.stringify(s)}`);
      }
      const back = (s) => s.view === 'table' && s.status === 'open' && s.board === before.board &&
        s.phase === before.phase && s.turn === before.turn &&
        s.players?.red === players.red && s.players?.black === players.black &&
        s.present?.red === true && s.present?.black === true;
      if (NODES.includes(newOwner) && newOwner !== owner && back(a) && back(b) && a.seq === b.seq) {
        now = newOwner;
        break;
      }
      if (Date.now() > until) h.fail(`30 s after the kill the pages are not back at ${TABLE}: ${JSON.stringify(last)}`);
    }
    const tookMs = Date.now() - killedAt;
    log(`${(tookMs / 1000).toFixed(1)} s after the kill: node ${now} owns ${TABLE}; alice at ${last.alice.url}, ` +
      `bob at ${last.bob.url}; seq ${last.alice.seq}`);
    check(now !== owner, `another node owns ${TABLE} after the kill (${now})`);
    for (const [n, p] of [['alice', alice], ['bob', bob]]) {
      const s = await seen(p);
      check(s.status === 'open' && s.view === 'table', `${n} is online at the table (${s.status}, ${s.view})`);
      check(s.board === before.board, `${n} sees the position of before the kill`);
      check(s.present?.red === true && s.present?.black === true, `${n} sees both players present`);
      check(await p.evaluate(() => window.gammond.account?.registered === true), `${n} is still registered on node ${now}`);
      await p.waitForFunction(() => document.querySelectorAll('#table .strip .name .rating').length === 2);
      for (const who of ['alice', 'bob']) {
        check(await seatRating(p, who) === '1500.00', `${n} sees ${who} at 1500.00 on node ${now}`);
      }
      check(!(await h.visible(p, '#table .strip .away')), `${n}: nobody is shown away`);
    }
    h.allowConsoleErrors(null);
    const refused = h.allowedConsoleErrors;
    log(`${refused.length} WebSocket handshake(s) failed while node ${owner} was down${refused.length ? ':' : ''}`);
    for (const line of refused) log(`  ${line}`);
    await shot(bob, 'cluster-after-kill.png');

    // alice resigns, bob accepts: bob wins the rated match on the new owner.
    await h.resign(alice);
    await bob.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'resign');
    await bob.click('#dialog button[data-cmd="accept"]');
    for (const [n, p] of [['alice', alice], ['bob', bob]]) {
      await p.waitForFunction(() => document.querySelector('#dialog')?.dataset.kind === 'match-over');
      await p.waitForFunction(() => document.querySelectorAll('#dialog .rating-changes').length === 2);
      const lines = await p.$$eval('#dialog .rating-changes', (els) =>
        Object.fromEntries(els.map((e) => [e.dataset.name, e.textContent])));
      log(`${n} reads: ${JSON.stringify(lines)}`);
      // RULES.md S1 for two new accounts and a 1-point match: ±10.00 (accounts.test.mjs).
      check(lines.bob === 'bob 1500.00 → 1510.00 (+10.00)', `${n}: the dialog shows bob's +10.00 (${lines.bob})`);
      check(lines.alice === 'alice 1500.00 → 1490.00 (-10.00)', `${n}: the dialog shows alice's -10.00 (${lines.alice})`);
      await p.waitForFunction(() => [...document.querySelectorAll('.strip .name')]
        .some((e) => e.dataset.name === 'bob' && e.querySelector('.rating')?.textContent === '1510.00'));
      check(await seatRating(p, 'alice') === '1490.00', `${n}: alice's seat shows 1490.00`);
    }
    check(await dialogKind(alice) === 'match-over', 'the match is over');
    await shot(bob, 'cluster-match-over.png');

    const stored = Object.fromEntries(psql(db, "SELECT a.name, r.rating FROM accounts a JOIN ratings r " +
      "ON r.account_id=a.id AND r.variant='standard' WHERE a.name IN ('alice','bob')")
      .split('\n').filter(Boolean).map((l) => l.split('|')).map(([n, r]) => [n, Number(r)]));
    log(`stored ratings: ${JSON.stringify(stored)}`);
    check(Object.keys(stored).length === 2 && stored.alice !== 1500 && stored.bob !== 1500,
      `both ratings changed in the database (${JSON.stringify(stored)})`);
    check(Math.abs(stored.alice - 1490) < 0.005 && Math.abs(stored.bob - 1510) < 0.005,
      `the database has the ratings the pages show (${JSON.stringify(stored)})`);
  } catch (e) {
    // What the pages last said and heard, and the end of each log, for the report.
    console.error('last WebSocket frames:');
    for (const line of frames.slice(-60)) console.error(`  ${line}`);
    for (const logName of [...NODES.map((id) => `node-${id}.log`), 'haproxy.log']) {
      const file = path.join(h.outDir, logName);
      if (!existsSync(file)) continue;
      console.error(`${logName} (last lines):`);
      for (const line of readFileSync(file, 'utf8').trimEnd().split('\n').slice(-25)) console.error(`  ${line}`);
    }
    throw e;
  }
});
