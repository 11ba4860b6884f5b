// Compiled (never run) by types.test.mjs under strict TypeScript: every
// declaration of index.d.ts used the way the docs use it.
import {createRequire} from 'node:module';

import type * as Ctxkit from '../../lib/index.js';

const ck = createRequire(import.meta.url)('ctxkit') as typeof Ctxkit;

export async function example(): Promise<void> {
  const store: Ctxkit.Store = await ck.Store.open({home: '/tmp/h'});
  const view: Ctxkit.View = store.view({agent: 'a'});
  const ref: string = await view.set('k', 'v', {tags: ['x'], countTokens: true});
  const appended: string =
      await view.append('log', 'line\n', {expectedVersion: 0});
  const bytes: Buffer = await view.get(ref);
  const text: string = await view.getText('k', {version: 1});
  const meta: Ctxkit.ObjectMeta = await view.stat('k');
  const page: Ctxkit.ListPage = await view.list({keyPrefix: 'k', limit: 10});
  const peek: Ctxkit.PeekResult = await view.peek('k', {start: 0, end: 5});
  const found: Ctxkit.SearchResult = await view.search('v', {regex: false});
  const hits: Ctxkit.FindResult = await view.findRelevant('q', {topK: 3});
  const len: Ctxkit.LenResult = await view.len(ref, {count: true});
  const summary: Ctxkit.Summary = await view.summarize('k');
  const versions: Ctxkit.VersionMeta[] = await view.versions('k');
  const tokens: number = await view.countTokens('k');
  const range: Buffer = await view.readRange(ref, {offset: 0, length: 1});
  await view.remove('k');
  const stats: Ctxkit.StoreStats = await store.stats();

  const session: Ctxkit.Session =
      await ck.Session.create(store, 's', {keepToolOutputs: 3});
  const report: Ctxkit.IngestReport =
      await session.ingest([{role: 'user', content: 'hi'}], {format: 'openai'});
  const render: Ctxkit.RenderResult =
      await session.render({budget: 8000, tools: true});
  const replay: Ctxkit.RenderResult = await session.replay(render.record);
  const diff: Ctxkit.RenderDiff = await session.diff(1, 2);
  const snap: Ctxkit.SessionSnapshot = await session.snapshot();
  const answer: Record<string, unknown> = await session.call(
      {id: 'c', type: 'function', function: {name: 'ctxkit_read',
                                             arguments: '{"ref":"#2"}'}});
  const child: Ctxkit.Session = await session.fork(1, 'child');
  await session.activate('#2');
  await session.requestCompaction('keep the codes');
  const ids: string[] = await ck.Session.list(store);
  const tools: object[] = ck.Session.tools('anthropic');
  const isTool: boolean = ck.isAgentTool('ctxkit_read');
  try {
    await view.get('missing');
  } catch (e) {
    if (e instanceof ck.CtxkitError) {
      const code: Ctxkit.ErrorCode = e.code;
      void code;
    }
  }
  const book: Ctxkit.Notebook = await ck.Notebook.open(view, {root: '/tmp/n'});
  const written: Ctxkit.NoteWritten = await book.add(
      {agent: 'a', slug: 's', body: 'b', type: 'decision', tags: ['x'],
       links: [], sessionId: 's1'});
  const changed: Ctxkit.NoteWritten =
      await book.update(written.path, {agent: 'a', message: 'm', body: 'b2'});
  await book.link(written.path, changed.path, {agent: 'a'});
  const both: Ctxkit.NoteWritten[] =
      await book.supersede(written.path, changed.path, {agent: 'a'});
  const note: Ctxkit.Note = await book.show(written.path);
  const noteHits: Ctxkit.NoteHit[] =
      await book.search({text: 'token', tags: ['x'], limit: 5});
  const scan: Ctxkit.NotesScan = await book.scan({full: true});
  const gc: Ctxkit.NotesGcReport =
      await book.gc({olderThanSeconds: 86400, apply: false});
  const notesRoot: string = book.root;

  const cap: Ctxkit.ToolOutputCapture =
      await ck.ToolOutputCapture.open(view, {memoryThresholdBytes: 1024});
  const saved: Ctxkit.SavedOutput = await cap.save(
      'search_code', {query: 'TODO'}, {hits: []}, {taskId: 't', queryId: 'q'});
  const loaded: Ctxkit.LoadedOutput = await cap.load(saved.pointer);
  const outputs: Ctxkit.OutputPointer[] = await cap.list(cap.sessionId);
  const selection: Ctxkit.OutputSelection = await cap.select(
      'where?', [saved.pointer, ...outputs],
      {maxSelected: 2, llm: {baseUrl: 'http://127.0.0.1:8000/v1', model: 'm'}});
  const cleared: number = await cap.clear();
  const captureRoot: string = cap.root;
  void [appended, bytes, text, meta, page, peek, found, hits, len, summary,
        versions, tokens, range, stats, report, replay, diff, snap, answer,
        child, ids, tools, isTool, both, note, noteHits, scan, gc, notesRoot,
        loaded, selection, cleared, captureRoot];
}
