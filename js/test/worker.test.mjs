// The addon in worker threads: each thread (the main one and every
// worker) loads it on its own, with its own classes; a worker that comes
// and goes leaves the main thread's package working.
import assert from 'node:assert/strict';
import test from 'node:test';
import {Worker} from 'node:worker_threads';

import {ck, freshStore, packageDir} from './helpers.mjs';

function runWorker(home) {
  const source = `
    const {parentPort, workerData} = require('node:worker_threads');
    const ck = require(workerData.packageDir);
    (async () => {
      const store = await ck.Store.open({home: workerData.home});
      const view = store.view();
      await view.set('from/worker', 'hello from a worker');
      let code = '';
      try { await view.get('missing'); } catch (e) {
        code = e instanceof ck.CtxkitError ? e.code : 'wrong class';
      }
      parentPort.postMessage({text: await view.getText('from/main'), code});
    })().catch((e) => parentPort.postMessage({error: String(e)}));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, {eval: true,
                                       workerData: {packageDir, home}});
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

test('the package works in worker threads and after they end',
     async (t) => {
  const {home, store} = await freshStore(t);
  const view = store.view();
  await view.set('from/main', 'hello from main');
  const answers = await Promise.all([runWorker(home), runWorker(home)]);
  for (const a of answers) {
    assert.deepEqual(a, {text: 'hello from main', code: 'not_found'});
  }
  assert.equal(await view.getText('from/worker'), 'hello from a worker');
  // The main thread's classes are still its own.
  const again = await ck.Store.open({home});
  const session = await ck.Session.create(again, 'after-workers');
  assert.equal(session.id, 'after-workers');
  await assert.rejects(again.view().get('missing'),
                       (e) => e instanceof ck.CtxkitError);
});
