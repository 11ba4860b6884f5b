// The inspector at scale, whole pages in Chromium: how long the session
// timeline of a 5,000-render session and the object list of a
// 100,000-object store take to show (target: under 1 s each, issue
// "context inspector"), and the API calls behind them.
//
//   cmake --build --preset release --target ctxkit_bin inspect_fixture
//   CTXKIT_BINARY=build/release/ctxkit \
//   CTXKIT_INSPECT_FIXTURE=build/release/inspect_fixture \
//   node bench/inspector_load.mjs [ROUNDS]
//
// Builds the store once (inspect_fixture --turns 5000 --objects 100000
// --fast), serves it, then for each round (default 9) opens a new page and
// times, interleaved: the timeline (cold page), the object list, the
// timeline again (warm), and the two API calls alone. Prints medians and
// ranges as a markdown table.

import {
  config, getJson, launchBrowser, removeWorkdir, runFixture, startServer,
  timeNavigation, waitReady, workdir,
} from '../tests/inspect/browser/harness.mjs';

const cfg = config();
if (!cfg) {
  console.error('set CTXKIT_BINARY and CTXKIT_INSPECT_FIXTURE (see the top of this file)');
  process.exit(2);
}
const rounds = Number(process.argv[2] ?? 9);

async function timeFetch(base, path) {
  const t0 = performance.now();
  await getJson(base, path);
  return performance.now() - t0;
}

function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return `${median.toFixed(0)} ms | ${s[0].toFixed(0)}–${s[s.length - 1].toFixed(0)} ms`;
}

const dir = workdir('ctxkit-inspect-bench-');
let server;
let browser;
try {
  const fx = await runFixture(cfg, dir, ['--turns', '5000', '--objects', '100000', '--fast']);
  server = await startServer(cfg, dir, [], fx.notes_root);
  browser = await launchBrowser(cfg);
  const samples = { timeline: [], objects: [], warm: [], renders_api: [], objects_api: [] };
  for (let i = 0; i < rounds; ++i) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.base}/ui/#/sessions`);
    await waitReady(page);
    samples.timeline.push(await timeNavigation(page, `#/sessions/${fx.session}`));
    samples.objects.push(await timeNavigation(page, '#/objects'));
    samples.warm.push(await timeNavigation(page, `#/sessions/${fx.session}`));
    await page.close();
    samples.renders_api.push(await timeFetch(server.base, `/api/sessions/${fx.session}/renders`));
    samples.objects_api.push(await timeFetch(server.base, '/api/objects?limit=100'));
  }
  console.log(`store: ${fx.renders} renders, ${fx.objects} bulk objects (fixture ${(fx.fixture_ms / 1000).toFixed(1)} s); ${rounds} rounds\n`);
  console.log('| what | median | range |');
  console.log('|---|---:|---:|');
  console.log(`| session timeline, new page (${fx.renders} renders) | ${summary(samples.timeline)} |`);
  console.log(`| object list, first page of 100 | ${summary(samples.objects)} |`);
  console.log(`| session timeline again | ${summary(samples.warm)} |`);
  console.log(`| GET /api/sessions/ID/renders alone | ${summary(samples.renders_api)} |`);
  console.log(`| GET /api/objects?limit=100 alone | ${summary(samples.objects_api)} |`);
} finally {
  await browser?.close();
  await server?.stop();
  removeWorkdir(dir);
}
