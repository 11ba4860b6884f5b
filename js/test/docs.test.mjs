// Every ```js block of docs/typescript.md and README.md runs as written:
// each document's blocks in order, as one ES module, in an app directory
// where `ctxkit` is the built package (as `npm install <build>/js` makes
// it) beside LangGraph.js, against a fresh store.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync,
        symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import test from 'node:test';
import {fileURLToPath} from 'node:url';

import {packageDir} from './helpers.mjs';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)),
                              '..', '..');

function jsBlocks(document) {
  const lines = readFileSync(path.join(checkout, document), 'utf8').split('\n');
  const blocks = [];
  let current = null;
  for (const line of lines) {
    if (current === null && line.trim() === '```js') {
      current = [];
    } else if (current !== null && line.trim() === '```') {
      blocks.push(current.join('\n'));
      current = null;
    } else if (current !== null) {
      current.push(line);
    }
  }
  return blocks;
}

for (const document of ['docs/typescript.md', 'README.md']) {
  test(`the JavaScript of ${document} runs as written`, (t) => {
    const blocks = jsBlocks(document);
    assert.ok(blocks.length >= 1, `${document} has no js block`);
    const app = mkdtempSync(path.join(tmpdir(), 'ctxkit-docs-'));
    t.after(() => rmSync(app, {recursive: true, force: true}));
    mkdirSync(path.join(app, 'node_modules'));
    symlinkSync(packageDir, path.join(app, 'node_modules', 'ctxkit'), 'dir');
    // The frameworks the adapters' examples import, as the app would
    // install them: the checkout's pinned packages.
    for (const name of readdirSync(path.join(checkout, 'node_modules'))) {
      if (name.startsWith('.') || name === 'ctxkit') continue;
      symlinkSync(path.join(checkout, 'node_modules', name),
                  path.join(app, 'node_modules', name), 'dir');
    }
    writeFileSync(path.join(app, 'example.mjs'), blocks.join('\n'));
    execFileSync(process.execPath, ['example.mjs'], {
      cwd: app, stdio: 'pipe',
      env: {...process.env, CTXKIT_HOME: path.join(app, 'home')},
    });
  });
}
