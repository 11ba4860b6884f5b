// Compiled (never run) by langgraph.test.mjs under strict TypeScript, in
// an app where `ctxkit` is the built package: the declarations of
// langgraph.d.ts (as the .d.mts an ES module app gets) used the way
// docs/typescript.md uses them, with LangGraph.js's own types.
import {Annotation, MemorySaver, START, StateGraph} from '@langchain/langgraph';
import type {BaseCheckpointSaver, BaseStore, CheckpointTuple, Item,
             SearchItem} from '@langchain/langgraph-checkpoint';
import * as ck from 'ctxkit';
import type * as Ctxkit from 'ctxkit';
import * as lg from 'ctxkit/langgraph';
import type * as CtxkitLangGraph from 'ctxkit/langgraph';

export async function example(): Promise<void> {
  const store: Ctxkit.Store = await ck.Store.open({home: '/tmp/h'});
  const saver: CtxkitLangGraph.CtxkitSaver =
      new lg.CtxkitSaver(store, {prefix: 'agents/support'});
  const asBase: BaseCheckpointSaver = saver;
  const viaView = new lg.CtxkitSaver(store.view(), {serde: saver.serde});
  const memoryStore: CtxkitLangGraph.CtxkitStore = new lg.CtxkitStore(store);
  const asStore: BaseStore = memoryStore;

  const State = Annotation.Root({count: Annotation<number>()});
  const app = new StateGraph(State)
      .addNode('inc', (s) => ({count: s.count + 1}))
      .addEdge(START, 'inc')
      .compile({checkpointer: saver, store: memoryStore});
  const config = {configurable: {thread_id: 't1'}};
  const out: {count: number} = await app.invoke({count: 1}, config);
  const tuple: CheckpointTuple | undefined = await saver.getTuple(config);
  for await (const t of saver.list(config, {limit: 2})) void t.checkpoint.id;
  await saver.deleteThread('t1');
  const prefix: string = saver.prefix;
  const view: Ctxkit.View = saver.view;

  await memoryStore.put(['users', 'u1'], 'prefs', {theme: 'dark'});
  const item: Item | null = await memoryStore.get(['users', 'u1'], 'prefs');
  const hits: SearchItem[] =
      await memoryStore.search(['users'], {query: 'dark', limit: 5});
  const namespaces: string[][] =
      await memoryStore.listNamespaces({prefix: ['users'], maxDepth: 2});
  const [got] = await memoryStore.batch(
      [{namespace: ['users', 'u1'], key: 'prefs'}] as const);
  void [asBase, viaView, asStore, out, tuple, prefix, view, item, hits,
        namespaces, got, new MemorySaver()];
}
