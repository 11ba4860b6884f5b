// index.d.ts against the package: it compiles under strict TypeScript
// with a use of every call, and it declares exactly the classes, methods
// and properties the built package has (as Python's stubs are checked).
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import test from 'node:test';
import {fileURLToPath} from 'node:url';

import {ck, packageDir} from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const checkout = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const ts = require(path.join(checkout, 'node_modules', 'typescript'));

test('index.d.ts compiles under strict TypeScript with every call used',
     () => {
  const tsc = path.join(checkout, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath,
               [tsc, '-p', path.join(here, 'types', 'tsconfig.json')],
               {stdio: 'pipe'});
});

// Declared members of each exported class: {name: {statics, members}}.
function declared(name = 'index.d.ts') {
  const file = path.join(checkout, 'js', 'lib', name);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'),
                                     ts.ScriptTarget.Latest, true);
  const classes = {};
  const functions = [];
  for (const node of source.statements) {
    if (ts.isFunctionDeclaration(node)) functions.push(node.name.text);
    if (!ts.isClassDeclaration(node)) continue;
    const statics = new Set();
    const members = new Set();
    for (const m of node.members) {
      if (!m.name || ts.isConstructorDeclaration(m)) continue;
      const isStatic = (ts.getModifiers(m) || []).some(
          (mod) => mod.kind === ts.SyntaxKind.StaticKeyword);
      (isStatic ? statics : members).add(m.name.getText(source));
    }
    classes[node.name.text] = {statics, members};
  }
  return {classes, functions};
}

function runtimeMembers(cls) {
  const names = new Set(Object.getOwnPropertyNames(cls.prototype));
  names.delete('constructor');
  return names;
}

function checkDeclared(file, module) {
  const {classes, functions} = declared(file);
  const exported = Object.keys(module).sort();
  assert.deepEqual([...Object.keys(classes), ...functions].sort(), exported);
  for (const [name, {statics, members}] of Object.entries(classes)) {
    const cls = module[name];
    if (name === 'CtxkitError') {
      assert.ok(new cls('m', 'not_found') instanceof Error);
      continue;
    }
    assert.deepEqual([...members].sort(), [...runtimeMembers(cls)].sort(),
                     `${name} members`);
    const runtimeStatics = Object.getOwnPropertyNames(cls).filter(
        (n) => !['length', 'name', 'prototype'].includes(n));
    assert.deepEqual([...statics].sort(), runtimeStatics.sort(),
                     `${name} statics`);
  }
}

test('index.d.ts declares exactly what the package has', () => {
  checkDeclared('index.d.ts', ck);
});

// The adapters: adapters.mts uses them with the frameworks' own types.
// Those frameworks' declarations do not pass this strict configuration's
// library check (the AI SDK's under exactOptionalPropertyTypes), so the
// usage compiles with skipLibCheck and the adapters' .d.ts files are
// checked here, alone, in full.
const adapters = ['openai-agents.d.ts', 'ai-sdk.d.ts'];

test('the adapters\' .d.ts compile with the frameworks\' types', () => {
  const config = path.join(here, 'types', 'tsconfig.adapters.json');
  const tsc = path.join(checkout, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', config], {stdio: 'pipe'});
  const parsed = ts.getParsedCommandLineOfConfigFile(
      config, {skipLibCheck: false}, {...ts.sys, onUnRecoverableConfigFileDiagnostic() {}});
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  for (const name of adapters) {
    const file = program.getSourceFile(path.join(checkout, 'js', 'lib', name));
    assert.ok(file, name);
    const errors = [...program.getSyntacticDiagnostics(file),
                    ...program.getSemanticDiagnostics(file)].map(
        (d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(errors, [], name);
  }
});

test('the adapters\' .d.ts declare exactly what they export', () => {
  for (const name of adapters) {
    checkDeclared(name, require(path.join(packageDir,
                                          name.replace('.d.ts', '.js'))));
  }
});
