// The second process of openai-agents.test.mjs: opens the store at
// argv[2], runs the session argv[3] once more with a scripted model and
// prints what the model received.
import path from 'node:path';

import {Agent, Runner} from '@openai/agents';
import {ScriptedModel, assistantMessage} from '@openai/agents/testing';

import {ck, packageDir} from './helpers.mjs';

const {CtxkitSession} =
    (await import(path.join(packageDir, 'openai-agents.js'))).default;
const [home, sessionId] = process.argv.slice(2);
const store = await ck.Store.open({home});
const session = new CtxkitSession({store, sessionId});
const model = new ScriptedModel([[assistantMessage('Second answer.')]]);
const agent = new Agent({name: 'sre', instructions: 'You are an SRE agent.',
                         model});
const result = await new Runner({tracingDisabled: true})
    .run(agent, 'Second question?', {session});
process.stdout.write(JSON.stringify({
  finalOutput: result.finalOutput,
  modelInput: model.lastCall.request.input,
}));
