// One process of langgraph.test.mjs's restart test: a LangGraph StateGraph
// (a subgraph, an interrupt, LangChain messages) on a CtxkitSaver over the
// store at argv[2]. `start` runs thread argv[4] up to the interrupt;
// `resume` (a new process) reads the saved state and resumes it;
// `memory` does both in one process on LangGraph's MemorySaver, the
// reference. Prints one JSON line of what it saw.
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import {AIMessage, BaseMessage, HumanMessage} from '@langchain/core/messages';
import {Annotation, Command, END, MemorySaver, MessagesAnnotation, START,
        StateGraph, interrupt} from '@langchain/langgraph';

import {packageDir} from '../helpers.mjs';

const [home, phase, threadId] = process.argv.slice(2);
const {Store} = createRequire(import.meta.url)(packageDir);
const {CtxkitSaver} =
    await import(pathToFileURL(path.join(packageDir, 'langgraph.mjs')).href);

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  steps: Annotation({reducer: (a, b) => a.concat(b), default: () => []}),
  approved: Annotation(),
});

// A subgraph node: its checkpoints live under a checkpoint namespace.
const research = new StateGraph(State)
    .addNode('lookup', () => ({steps: ['lookup'],
                               messages: [new AIMessage('disk full on /var')]}))
    .addEdge(START, 'lookup').addEdge('lookup', END)
    .compile();

const graph = new StateGraph(State)
    .addNode('plan', () => ({steps: ['plan']}))
    .addNode('research', research)
    .addNode('approve', () => {
      const answer = interrupt({question: 'clean /var?'});
      return {steps: ['approve'], approved: answer};
    })
    .addNode('act', (state) => ({
      steps: ['act'],
      messages: [new AIMessage(state.approved === 'yes' ? 'cleaned' : 'left')],
    }))
    .addEdge(START, 'plan').addEdge('plan', 'research')
    .addEdge('research', 'approve').addEdge('approve', 'act')
    .addEdge('act', END);

const checkpointer = phase === 'memory' ? new MemorySaver()
    : new CtxkitSaver(await Store.open({home}));
const app = graph.compile({checkpointer});
const config = {configurable: {thread_id: threadId}};

const summary = (state) => ({
  steps: state.values.steps,
  messages: (state.values.messages ?? []).map(
      (m) => [m.getType(), m.content]),
  // Revived as the app's own message classes.
  classes: (state.values.messages ?? []).every((m) => m instanceof BaseMessage),
  next: state.next,
  interrupts: state.tasks.flatMap((t) => t.interrupts.map((i) => i.value)),
});

const input = {messages: [new HumanMessage('why did the deploy fail?')]};
if (phase === 'start') {
  await app.invoke(input, config);
  console.log(JSON.stringify(summary(await app.getState(config))));
} else {
  if (phase === 'memory') await app.invoke(input, config);
  const before = summary(await app.getState(config));
  await app.invoke(new Command({resume: 'yes'}), config);
  const after = summary(await app.getState(config));
  const history = [];
  for await (const s of app.getStateHistory(config)) history.push(s.metadata.step);
  console.log(JSON.stringify({before, after, history}));
}
