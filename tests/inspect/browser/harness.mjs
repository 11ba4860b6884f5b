// What the inspector's browser tests share: the environment they are given,
// the fixture tool, a `ctxkit serve` on a temporary store, Chromium through
// playwright-core, and waiting for the page to finish a view.
//
// Environment: CTXKIT_BINARY (ctxkit), CTXKIT_INSPECT_FIXTURE (the fixture
// tool), CTXKIT_ARTIFACTS (where screenshots go; created), CHROMIUM
// (default /usr/bin/chromium).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export function config() {
  const { CTXKIT_BINARY, CTXKIT_INSPECT_FIXTURE, CTXKIT_ARTIFACTS } = process.env;
  if (!CTXKIT_BINARY || !CTXKIT_INSPECT_FIXTURE) return null;
  const artifacts = resolve(CTXKIT_ARTIFACTS || join(tmpdir(), 'ctxkit-inspect-artifacts'));
  mkdirSync(artifacts, { recursive: true });
  return {
    binary: resolve(CTXKIT_BINARY),
    fixture: resolve(CTXKIT_INSPECT_FIXTURE),
    artifacts,
    chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  };
}

// A temporary directory: DIR/store (the store), DIR/home, DIR/captures,
// DIR/notes (what serve and the fixture are pointed at).
export function workdir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'home'));
  return dir;
}

export function removeWorkdir(dir) {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

// The environment every ctxkit process of a test runs with (as
// tests/mcp_sdk/e2e_http.mjs): nothing of the caller's store settings.
// notesRoot: where the fixture wrote its notes (its `notes_root`), else
// DIR/notes.
export function childEnv(dir, notesRoot) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    CTXKIT_TOOL_CONTEXT_DIR: join(dir, 'captures'),
    SFA_CONTEXT_STORE: notesRoot || join(dir, 'notes'),
  };
}

// Runs a program; resolves {code, stdout, stderr}.
export function run(cmd, args, { env, input } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

// Runs the fixture tool on DIR/store; resolves the JSON line it prints
// (and how long it took).
export async function runFixture(cfg, dir, args) {
  const started = Date.now();
  const r = await run(cfg.fixture, ['--home', join(dir, 'store'), ...args], { env: childEnv(dir) });
  if (r.code !== 0) {
    throw new Error(`inspect_fixture ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  }
  const line = r.stdout.trim().split('\n').filter(Boolean).pop();
  try {
    return { ...JSON.parse(line), fixture_ms: Date.now() - started };
  } catch {
    throw new Error(`inspect_fixture printed no JSON line: ${r.stdout}\n${r.stderr}`);
  }
}

// Starts `ctxkit --home DIR/store serve --port 0 [args]`; resolves
// {base: 'http://127.0.0.1:PORT', stop()} once it printed its MCP URL.
export function startServer(cfg, dir, args = [], notesRoot = undefined) {
  const proc = spawn(cfg.binary, ['--home', join(dir, 'store'), 'serve', '--port', '0', ...args], {
    env: childEnv(dir, notesRoot),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const stop = () => new Promise((resolveStop) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolveStop();
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    proc.once('exit', () => { clearTimeout(timer); resolveStop(); });
    proc.kill('SIGTERM');
  });
  return new Promise((resolveStart, reject) => {
    let out = '';
    const timer = setTimeout(() => { stop(); reject(new Error(`serve printed no URL within 30 s: ${stderr}`)); }, 30000);
    proc.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      const url = new URL(out.slice(0, nl).trim()); // http://127.0.0.1:PORT/mcp
      resolveStart({ base: url.origin, stop, stderr: () => stderr });
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`ctxkit serve exited ${code}: ${stderr}`)); });
  });
}

export function launchBrowser(cfg) {
  return chromium.launch({
    executablePath: cfg.chromium,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Collects what must not happen on a page: console errors (CSP violations
// are reported there too), uncaught exceptions, securitypolicyviolation
// events.
export async function watchPage(page) {
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  return problems;
}

// Waits until the page finished rendering the view its hash names
// (main[data-state=ready] for the current hash); throws with the alert's
// text when the view failed.
export async function waitReady(page, timeout = 10000) {
  const handle = await page.waitForFunction(() => {
    const main = document.getElementById('main');
    if (main.dataset.route !== location.hash) return false;
    if (main.dataset.state === 'ready') return 'ready';
    if (main.dataset.state === 'error') return 'error: ' + document.getElementById('alert').textContent;
    return false;
  }, null, { timeout });
  const state = await handle.jsonValue();
  if (state !== 'ready') throw new Error(`the page failed at ${await page.evaluate(() => location.hash)}: ${state}`);
}

// Navigates within the page (a hash change, as a link would) and waits.
export async function go(page, hash) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await waitReady(page);
}

// GET base + path as JSON (what the page is checked against).
export async function getJson(base, path, headers = {}) {
  const res = await fetch(base + path, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// Milliseconds (performance.now in the page) from setting the hash until
// the view is rendered and the next frame painted.
export async function timeNavigation(page, hash) {
  const ms = await page.evaluate(async (target) => {
    const main = document.getElementById('main');
    const t0 = performance.now();
    location.hash = target;
    await new Promise((resolve, reject) => {
      const check = () => {
        if (main.dataset.route === location.hash && main.dataset.state === 'ready') resolve();
        else if (main.dataset.route === location.hash && main.dataset.state === 'error') reject(new Error(document.getElementById('alert').textContent));
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - t0;
  }, hash);
  await waitReady(page);
  return ms;
}
