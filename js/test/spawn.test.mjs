// Sub-agents from Node: spawn with refs, the child reads exactly the
// versions passed and sets a result the parent collects; manifests round
// trip as the objects of their JSON form; a manifest file read back.
import assert from 'node:assert/strict';
import test from 'node:test';

import {ck, freshStore} from './helpers.mjs';

test('spawn, resolve in the child, set and collect the result', async (t) => {
  const {store} = await freshStore(t);
  const parent = store.view({agent: 'lead', session: 's1'});
  const ref = await parent.set('logs/run', 'line 1\nline 2\n');
  await parent.set('logs/run', 'changed later\n');
  const child = await ck.spawn(parent, 'count the lines', [['data', ref]],
                               {childAgent: 'counter'});
  assert.equal(child.manifest.child.agent, 'counter');
  assert.equal(child.manifest.refs[0].name, 'data');
  assert.equal(child.manifest.refs[0].ref, ref);
  // The version passed, not the later one.
  assert.equal((await ck.resolveContextRef(child.view, child.manifest,
                                           'data')).toString(),
               'line 1\nline 2\n');
  await assert.rejects(ck.collectResult(parent, child.manifest),
                       {code: 'not_found'});
  const result = await ck.setResult(child.view, child.manifest, '2 lines');
  assert.equal(await ck.collectResult(parent, child.manifest), result);
  assert.equal(await parent.getText(result), '2 lines');

  // The manifest file, read back, opens the same child view.
  const manifest = await ck.loadManifest(child.manifestPath);
  assert.deepEqual(manifest, child.manifest);
  const again = ck.openChildView(store, manifest);
  assert.equal((await ck.resolveContextRef(again, manifest, 'data'))
                   .toString(), 'line 1\nline 2\n');
});

test('spawn refuses what the library refuses; bad arguments are TypeErrors',
     async (t) => {
  const {store} = await freshStore(t);
  const parent = store.view({agent: 'lead'});
  const ref = await parent.set('a', 'x');
  await assert.rejects(ck.spawn(parent, 'p', [['not a name!', ref]]),
                       {code: 'invalid_argument'});
  assert.throws(() => ck.spawn(parent, 'p', [['data']]),
                {name: 'TypeError', message: /context\[0\] must be/});
  assert.throws(() => ck.spawn({}, 'p', []),
                {name: 'TypeError', message: /view must be a View/});
  const child = await ck.spawn(parent, 'p', [['data', ref]]);
  const forged = {...child.manifest, refs: [{...child.manifest.refs[0],
                                             version: 99}]};
  await assert.rejects(ck.resolveContextRef(child.view, forged, 'data'),
                       {code: 'corruption'});
  await assert.rejects(ck.resolveContextRef(child.view, child.manifest,
                                            'other'),
                       {code: 'not_found'});
  await assert.rejects(ck.loadManifest('/nonexistent/manifest.json'),
                       {code: 'not_found'});
});
