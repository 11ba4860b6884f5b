// LangGraph's checkpointer validation suite
// (@langchain/langgraph-checkpoint-validation) against CtxkitSaver, each
// checkpointer on a fresh store home. A Vitest file (the suite is written
// for Vitest); run_vitest.mjs runs it for langgraph.test.mjs.
import {mkdtempSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import {validate} from '@langchain/langgraph-checkpoint-validation';

import {packageDir} from '../helpers.mjs';

const {Store} = createRequire(import.meta.url)(packageDir);
const {CtxkitSaver} =
    await import(pathToFileURL(path.join(packageDir, 'langgraph.mjs')).href);

const homes = new Map();

validate({
  checkpointerName: 'ctxkit',
  async createCheckpointer() {
    const home = mkdtempSync(path.join(tmpdir(), 'ctxkit-lg-validate-'));
    const saver = new CtxkitSaver(await Store.open({home}));
    homes.set(saver, home);
    return saver;
  },
  destroyCheckpointer(saver) {
    rmSync(homes.get(saver), {recursive: true, force: true});
    homes.delete(saver);
  },
});
