// options.onProgress of findRelevant and session.ingest: reports of the work
// on the worker thread reach the JavaScript thread, in order.
import assert from 'node:assert/strict';
import test from 'node:test';

import {ck, freshStore} from './helpers.mjs';

// A report after every step, so the tests do not depend on timing.
process.env.CTXKIT_PROGRESS_INTERVAL_MS = '0';

// Resolves once a finished report arrived (they are queued to this thread
// and may come just after the call's Promise settles).
function recorder() {
  const seen = [];
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const onProgress = (p) => {
    seen.push(p);
    if (p.finished) finish();
  };
  const settled = async () => {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('no finished report')), 5000);
    });
    try {
      await Promise.race([finished, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {seen, onProgress, settled};
}

test('findRelevant reports indexing progress', async (t) => {
  const {store} = await freshStore(t);
  const view = store.view();
  for (let i = 0; i < 15; i++) {
    await view.set(`doc/${i}`, `the token refresh path ${i}`);
  }
  const r = recorder();
  const found = await view.findRelevant('token refresh',
                                        {onProgress: r.onProgress});
  assert.ok(found.hits.length > 0);
  await r.settled();
  assert.deepEqual(r.seen.slice(0, -1).map((p) => p.done),
                   Array.from({length: 15}, (_, i) => i + 1));
  const last = r.seen.at(-1);
  assert.deepEqual({...last, elapsedSeconds: 0},
                   {task: 'indexing', unit: 'changes', done: 15, total: 15,
                    elapsedSeconds: 0, finished: true});
});

test('session.ingest reports log items', async (t) => {
  const {store} = await freshStore(t);
  const session = await ck.Session.create(store, 'p1');
  const r = recorder();
  const log = [{role: 'user', content: 'hi'},
               {role: 'assistant', content: 'one'},
               {role: 'assistant', content: 'two'}];
  await session.ingest(log, {onProgress: r.onProgress});
  await r.settled();
  assert.deepEqual(r.seen.map((p) => [p.done, p.total, p.finished]),
                   [[1, 3, false], [2, 3, false], [3, 3, false],
                    [3, 3, true]]);
  assert.equal(r.seen[0].unit, 'log items');
});

test('onProgress must be a function', async (t) => {
  const {store} = await freshStore(t);
  // A wrong type is a TypeError thrown at the call, as for every option.
  assert.throws(() => store.view().findRelevant('x', {onProgress: 42}),
                {name: 'TypeError',
                 message: /onProgress must be a function, not number/});
});
