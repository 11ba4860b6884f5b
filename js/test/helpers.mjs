// Shared setup of the package's tests: the built package
// (CTXKIT_NODE_PACKAGE, else build/release/js) and a fresh store home.
import {mkdtempSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const checkout = path.resolve(here, '..', '..');
export const packageDir = process.env.CTXKIT_NODE_PACKAGE ||
    path.join(checkout, 'build', 'release', 'js');
export const ctxkitBinary = process.env.CTXKIT_BINARY ||
    path.join(checkout, 'build', 'release', 'ctxkit');
export const ck = createRequire(import.meta.url)(packageDir);
// The built Python package (PYTHONPATH), for the cross-face tests.
export const pythonDir = process.env.CTXKIT_PYTHON_DIR ||
    path.join(checkout, 'build', 'release', 'python');

// A new store in a temporary home, removed when the test ends.
export async function freshStore(t) {
  const home = mkdtempSync(path.join(tmpdir(), 'ctxkit-node-'));
  t.after(() => rmSync(home, {recursive: true, force: true}));
  return {home, store: await ck.Store.open({home})};
}

// One OpenAI turn: a question, a tool call and its output.
export function turn(n, output) {
  const id = `call_${n}`;
  return [
    {role: 'user', content: `Question ${n}?`},
    {role: 'assistant', content: null, tool_calls: [{
      id, type: 'function',
      function: {name: 'read_logs', arguments: JSON.stringify({service: n})},
    }]},
    {role: 'tool', tool_call_id: id, content: output},
    {role: 'assistant', content: `Answer ${n}.`},
  ];
}

// A service log of `lines` lines with one deploy code at line 7.
export function serviceLog(n, code, lines = 40) {
  const out = [];
  for (let i = 1; i <= lines; i++) {
    out.push(i === 7 ? `svc-${n}: deploy code ${code} accepted` :
                       `svc-${n}: heartbeat ${i} ok`);
  }
  return out.join('\n') + '\n';
}
