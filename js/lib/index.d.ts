// Types of the ctxkit Node package (index.js over ctxkit.node).
//
// Options take camelCase names; results are plain objects with the field
// names of the CLI's --json output and the MCP tools (snake_case), the
// one JSON form every face shares. Every call that reads or writes the
// store returns a Promise (the work runs on a worker thread); failures
// reject with CtxkitError. A wrong argument type throws a TypeError
// synchronously.

/// <reference types="node" />

/** Status codes, as StatusCodeName writes them. */
export type ErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'failed_precondition'
  | 'unavailable'
  | 'io_error'
  | 'corruption'
  | 'resource_exhausted'
  | 'internal'
  | 'unimplemented'
  | (string & {});

export class CtxkitError extends Error {
  constructor(message: string, code: string);
  readonly code: ErrorCode;
}

/** A value to store: text (stored as its UTF-8 bytes) or bytes. */
export type Value = string | Uint8Array;
/** A key, or a ref's wire form ("ck:..."). */
export type Target = string;

export interface OpenOptions {
  /** The store root; default $CTXKIT_HOME, else the CLI's default home. */
  home?: string;
  /** A PostgreSQL connection string; default $CTXKIT_STORE_URL, else the
   * embedded SQLite engine under `home`. */
  storeUrl?: string;
  readOnly?: boolean;
  durability?: 'full' | 'process';
}

export interface ViewOptions {
  agent?: string;
  session?: string;
}

export interface LookupOptions {
  /** global, agent, session, agent:<id> or session:<id>. */
  scope?: string;
  /** 0 or absent: the latest version. */
  version?: number;
}

export interface SetOptions {
  scope?: string;
  type?: string;
  persist?: boolean;
  tags?: string[];
  producer?: string;
  countTokens?: boolean;
  expectedVersion?: number;
}

export interface AppendOptions {
  scope?: string;
  /** 'stream' (default) or 'chat'. */
  type?: string;
  persist?: boolean;
  tags?: string[];
  producer?: string;
  expectedVersion?: number;
}

export interface ObjectMeta {
  ref: string;
  id: string;
  key: string;
  scope: string;
  type: string;
  size_bytes: number;
  version: number;
  created: string;
  updated: string;
  created_unix_ns: number;
  updated_unix_ns: number;
  tags: string[];
  persistent: boolean;
  tokens: number | null;
}

export interface VersionMeta {
  ref: string | null;
  version: number;
  state: string;
  type: string;
  size_bytes: number;
  sha256: string;
  created: string;
  created_unix_ns: number;
  producer: string;
  tokens: number | null;
}

export interface ListOptions {
  scope?: string;
  type?: string;
  keyPrefix?: string;
  tags?: string[];
  limit?: number;
  cursor?: string;
}

export interface ListPage {
  items: ObjectMeta[];
  /** "" on the last page. */
  next_cursor: string;
}

export interface StoreStats {
  objects: number;
  live_objects: number;
  versions: number;
  content_bytes: number;
  blob_files: number;
  memory_ceiling_bytes: number;
  memory_used_bytes: number;
  cached_values: number;
  session_objects: number;
  session_resident_bytes: number;
  session_spilled_bytes: number;
  evictions: number;
  spills: number;
}

export interface PeekOptions extends LookupOptions {
  start?: number;
  end?: number;
  unit?: 'auto' | 'lines' | 'bytes' | 'items' | 'chunks';
  maxBytes?: number;
  countTotal?: boolean;
}

export interface PeekResult {
  ref: string;
  key: string;
  unit: string;
  start: number;
  end: number;
  total: number | null;
  total_bytes: number;
  byte_offset: number;
  byte_end: number;
  cut_at_max_bytes: boolean;
  chunk_bytes: number | null;
  bytes_read: number;
  text: string;
  [field: string]: unknown;
}

export interface SearchOptions {
  regex?: boolean;
  caseInsensitive?: boolean;
  maxResults?: number;
  contextLines?: number;
  keys?: string[];
  refs?: string[];
  scope?: string;
  type?: string;
  keyPrefix?: string;
}

export interface SearchMatch {
  ref: string;
  key: string;
  line: number;
  byte_offset: number;
  line_offset: number;
  length: number;
  preview: string;
  preview_truncated: boolean;
  before: {line: number; text: string}[];
  after: {line: number; text: string}[];
}

export interface SearchResult {
  matches: SearchMatch[];
  max_results_reached: boolean;
  variables_searched: number;
  bytes_read: number;
  skipped: unknown[];
}

export interface LenOptions extends LookupOptions {
  count?: boolean;
}

export interface LenResult {
  ref: string;
  key: string;
  type: string;
  size_bytes: number;
  lines: number | null;
  items: number | null;
  chunks: number | null;
  bytes_read: number;
}

export interface SummarizeOptions {
  maxTokens?: number;
  scope?: string;
  summarizer?: string;
}

export interface Summary {
  ref: string;
  key: string;
  tokens: number;
  summarizer: string;
  kind: string;
  cached: boolean;
  sampled: boolean;
  notes: string;
  sha256: string;
  text: string;
  [field: string]: unknown;
}

/**
 * One progress report of a long call (`onProgress`): `done` of `total`
 * `unit` (total 0: not known) of `task`, and `finished` on its last report.
 */
export interface Progress {
  task: string;
  unit: string;
  done: number;
  total: number;
  elapsedSeconds: number;
  finished: boolean;
}

/**
 * Called on the JavaScript thread while the work runs on a worker thread,
 * at most every CTXKIT_PROGRESS_INTERVAL_MS (200 by default); the last
 * reports may arrive just after the call's Promise settles.
 */
export type ProgressCallback = (progress: Progress) => void;

export interface FindOptions {
  ref?: string;
  key?: string;
  scope?: string;
  keyPrefix?: string;
  topK?: number;
  /** Reports while the index catches up with the store (task "indexing"). */
  onProgress?: ProgressCallback;
}

export interface FindHit {
  key: string;
  ref: string;
  byte_offset: number;
  byte_length: number;
  tokens: number;
  score: number;
  preview: string;
  method: string;
  bm25_rank: number | null;
  embedding_rank: number | null;
}

export interface FindResult {
  hits: FindHit[];
  method: string;
  variables_covered: number;
}

export class View {
  private constructor();
  /** Writes a new version; resolves to its static ref. */
  set(key: string, value: Value, options?: SetOptions): Promise<string>;
  /**
   * Writes every [key, value] pair, with the same options, as one commit
   * and one sync: all or nothing (a session-only item is refused); a key
   * may come more than once. Resolves to the static refs, in item order.
   */
  setMany(items: ReadonlyArray<readonly [string, Value]>,
          options?: SetOptions): Promise<string[]>;
  /** Appends to a stream (or chat) value, creating it when missing: a
   * new version holding the previous one plus `value` (only the new bytes
   * are stored); resolves to its static ref. `type` applies when it
   * creates the value (default stream); `expectedVersion` as for set. */
  append(key: string, value: Value, options?: AppendOptions): Promise<string>;
  get(target: Target, options?: LookupOptions): Promise<Buffer>;
  /** get() as text (ill-formed UTF-8 shows as U+FFFD). */
  getText(target: Target, options?: LookupOptions): Promise<string>;
  /** The bytes a ref names (a capability: any scope). */
  resolve(ref: string): Promise<Buffer>;
  readRange(ref: string,
            options?: {offset?: number; length?: number}): Promise<Buffer>;
  /** The ref of a key: dynamic (latest) unless a version is given. */
  ref(key: Target, options?: LookupOptions): Promise<string>;
  /** A static ref to the version the target names now. */
  pin(target: Target, options?: LookupOptions): Promise<string>;
  stat(target: Target, options?: LookupOptions): Promise<ObjectMeta>;
  remove(key: string, options?: LookupOptions): Promise<void>;
  list(options?: ListOptions): Promise<ListPage>;
  versions(target: Target, options?: LookupOptions): Promise<VersionMeta[]>;
  countTokens(target: Target, options?: LookupOptions): Promise<number>;
  peek(target: Target, options?: PeekOptions): Promise<PeekResult>;
  search(pattern: string, options?: SearchOptions): Promise<SearchResult>;
  len(target: Target, options?: LenOptions): Promise<LenResult>;
  summarize(target: Target, options?: SummarizeOptions): Promise<Summary>;
  findRelevant(query: string, options?: FindOptions): Promise<FindResult>;
}

export class Store {
  private constructor();
  static open(options?: OpenOptions): Promise<Store>;
  readonly home: string;
  /** A view: the agent's and session's scopes, then global. */
  view(options?: ViewOptions): View;
  stats(): Promise<StoreStats>;
  /**
   * The execution log (`ctxkit log`): the last `limit` (default 20)
   * entries, oldest first.
   */
  executionLog(options?: {limit?: number}): Promise<ExecutionLogEntry[]>;
}

/** One invocation of a notes or tools command, as the log keeps it. */
export interface ExecutionLogEntry {
  timestamp: string;
  agent: string;
  sessionId: string;
  command: string;
  status: 'ok' | 'error';
  exitCode: number;
  durationMs: number;
  /** Capped at 120 bytes. */
  input: string;
  /** Capped at 120 bytes. */
  output: string;
  meta: {contextFiles?: string[]};
}

export type LogFormat = 'openai' | 'anthropic' | 'openai-responses';
export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic';

/** SessionPolicy (docs/sessions.md argues each default). */
export interface SessionPolicy {
  keepToolOutputs?: number;
  minCollapseTokens?: number;
  minCollapsePercent?: number;
  indexMaxTokens?: number;
  indexMaxPercent?: number;
  compactTriggerPercent?: number;
  compactTargetPercent?: number;
  keepTurns?: number;
  compactionSummaryTokens?: number;
  collapseAtIngestion?: boolean;
  cacheTtlSeconds?: number;
}

export interface IngestOptions {
  format?: LogFormat;
  /** Only the messages after those ingested so far. */
  append?: boolean;
  /** Reports as the log's items are stored (task "ingesting"). */
  onProgress?: ProgressCallback;
}

export interface IngestReport {
  session: string;
  messages_added: number;
  toolcalls_recorded: number;
  reset: boolean;
}

export interface RenderOptions {
  /** Tokens the request may use (required, >= 1). */
  budget: number;
  format?: LogFormat;
  /** false: no render record (budget relief still persists). */
  record?: boolean;
  /** true: the agent tools in the request; an array: the agent tools
   * followed by these (the harness's own, in the request's format). */
  tools?: boolean | object[];
}

export interface RenderBreakdown {
  system: number;
  pinned: number;
  index: number;
  compactions: number;
  chat: number;
  active_outputs: number;
  placeholders: number;
}

export interface CompactionInfo {
  ref: string;
  first_message: number;
  end_message: number;
  turns: number;
}

export interface RenderResult {
  session: string;
  format: LogFormat;
  budget_tokens: number;
  tokens: number;
  breakdown: RenderBreakdown;
  dropped: {ref: string; key: string; version: number; tokens: number}[];
  conflicts: {key: string; pinned_version: number; active_version: number}[];
  index_listed: number;
  index_total: number;
  collapsed: string[];
  compacted: CompactionInfo | null;
  compacted_messages: number;
  /** This render's record number; 0 when not recorded. */
  record: number;
  bytes: number;
  prefix_bytes: number | null;
  /** The request to send, byte for byte. */
  request_json: string;
  /** request_json parsed. */
  request: Record<string, unknown>;
}

export interface RenderDiff {
  session: string;
  from: number;
  to: number;
  entered: string[];
  left: string[];
  collapsed: string[];
  compacted: CompactionInfo[];
  tokens: {from: number; to: number};
  breakdown: {from: RenderBreakdown; to: RenderBreakdown};
}

export interface PoolEntry {
  id: string;
  key: string;
  scope: string;
  kind: string;
  title: string;
  version: number;
  tokens: number;
  size_bytes: number;
  ref: string;
  active: boolean;
  auto_active: boolean;
  collapsed: boolean;
  pinned_version: number;
  from_chat: boolean;
  compacted: boolean;
}

export interface SessionSnapshot {
  session: string;
  policy: Record<string, number | boolean>;
  generation: number;
  chat_messages: number;
  chat_version: number;
  system_version: number;
  ingest_format: string;
  ingested_items: number;
  compactions: CompactionInfo[];
  renders: number;
  last_render: {tokens: number; budget_tokens: number;
                breakdown: RenderBreakdown} | null;
  entries: PoolEntry[];
}

export class Session {
  private constructor();
  static create(store: Store, id: string,
                policy?: SessionPolicy): Promise<Session>;
  static open(store: Store, id: string): Promise<Session>;
  static list(store: Store): Promise<string[]>;
  /** Removes the session; resolves to the objects removed. */
  static remove(store: Store, id: string): Promise<number>;
  /** The agent tools' definitions in a provider's format (no I/O). */
  static tools(format?: ToolFormat): object[];

  readonly id: string;
  /** A harness log: JSON text or the parsed value. */
  ingest(log: string | object, options?: IngestOptions): Promise<IngestReport>;
  render(options: RenderOptions): Promise<RenderResult>;
  /** Recorded render `record` again, byte for byte. */
  replay(record: number): Promise<RenderResult>;
  diff(from: number, to: number): Promise<RenderDiff>;
  /** The chat messages a compaction replaced (NDJSON lines). */
  expand(compaction: string): Promise<string>;
  snapshot(): Promise<SessionSnapshot>;
  activate(object: string, version?: number): Promise<void>;
  deactivate(object: string): Promise<void>;
  pin(object: string, version?: number): Promise<void>;
  unpin(object: string): Promise<void>;
  track(object: string): Promise<void>;
  requestCompaction(instructions?: string): Promise<void>;
  /** Runs a model's ctxkit_* tool call (any of the three formats, JSON
   * text or value); resolves to the tool-result item in that format. */
  call(toolCall: string | object,
       options?: {maxResultBytes?: number}): Promise<Record<string, unknown>>;
  /** A new session `newId` starting from the state render `record` showed. */
  fork(record: number, newId: string): Promise<Session>;
}

export type NoteType = 'finding' | 'decision' | 'artifact' | 'reference' |
    'summary';

export interface NotebookOptions {
  /** The notes root (created when missing); default <store home>/notes-root. */
  root?: string;
}

export interface NewNote {
  /** 1-48 bytes of [A-Za-z0-9._-], starting with a letter or digit. */
  agent: string;
  /** Free text, slugified into the file name. */
  slug: string;
  /** Markdown. */
  body: string;
  /** Written under <agent>/<sessionId>/ when set. */
  sessionId?: string;
  /** Default 'finding'. */
  type?: NoteType;
  tags?: string[];
  /** Root-relative paths of existing notes. */
  links?: string[];
}

export interface NoteUpdate {
  agent: string;
  /** The changelog line (one line, 1-1000 bytes). */
  message: string;
  /** Replaces the body before the changelog. */
  body?: string;
}

export interface NoteQuery {
  /** Notes containing every word (BM25); none: newest first. */
  text?: string;
  agent?: string;
  type?: NoteType;
  /** Notes carrying every one of these. */
  tags?: string[];
  session?: string;
  /** Default 20. */
  limit?: number;
}

export interface NoteHeader {
  agent: string;
  /** '' when written without a session. */
  session_id: string;
  timestamp: string;
  type: string;
  tags: string[];
  links: string[];
}

/** A note just written (or changed). */
export interface NoteWritten {
  /** Relative to the root. */
  path: string;
  file: string;
  /** The store object: 'note:<path>'. */
  key: string;
  /** Static ref to the version written; null when the path is too long. */
  ref: string | null;
}

export interface Note {
  path: string;
  file: string;
  frontmatter: NoteHeader;
  body: string;
  /** What does not conform to the format; empty when well formed. */
  problems: string[];
}

export interface NoteHit extends NoteHeader {
  path: string;
  file: string;
  ref: string | null;
  /** Higher is better; 0 without text. */
  score: number;
  snippet: string;
}

export interface NotesScan {
  directories_listed: number;
  files_checked: number;
  notes_indexed: number;
  notes_removed: number;
  notes_total: number;
}

export interface NotesGcReport {
  applied: boolean;
  expired: {path: string; age_seconds: number}[];
  kept: number;
}

/** Agent context notes: markdown files under a root, indexed in the store
 * (docs/notes.md). Calls on one Notebook run one at a time. */
export class Notebook {
  private constructor();
  static open(view: View, options?: NotebookOptions): Promise<Notebook>;
  readonly root: string;
  add(note: NewNote): Promise<NoteWritten>;
  /** Appends a changelog line (and replaces the body when given). */
  update(path: string, options: NoteUpdate): Promise<NoteWritten>;
  link(path: string, target: string,
       options: {agent: string}): Promise<NoteWritten>;
  /** Resolves to [the new note, the old note]. */
  supersede(oldPath: string, newPath: string,
            options: {agent: string}): Promise<NoteWritten[]>;
  show(path: string): Promise<Note>;
  search(query?: NoteQuery): Promise<NoteHit[]>;
  /** Indexes notes other programs wrote or changed. */
  scan(options?: {full?: boolean}): Promise<NotesScan>;
  /** Notes older than olderThanSeconds (default 30 days); removed only
   * with apply. */
  gc(options?: {olderThanSeconds?: number; apply?: boolean}):
      Promise<NotesGcReport>;
}

export interface CaptureOptions {
  /** The context file directory; default <store home>/tool-outputs. */
  root?: string;
  /** Results smaller than this (JSON bytes) stay in memory; 32 KiB. */
  memoryThresholdBytes?: number;
}

/** An OpenAI-compatible chat endpoint. */
export interface LlmEndpoint {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface SelectOptions {
  /** Default 5. */
  maxSelected?: number;
  /** Ask this model; without it the choice is BM25. */
  llm?: LlmEndpoint;
}

export interface SavedOutput {
  /** A ck: ref (in memory) or the file's path. */
  pointer: string;
  ref: string | null;
  in_memory: boolean;
  size_bytes: number;
}

export interface OutputPointer {
  pointer: string;
  ref: string | null;
  tool_name: string;
  timestamp_ms: number;
  size_bytes: number;
  in_memory: boolean;
  query_id: string | null;
}

export interface LoadedOutput {
  pointer: string;
  ref: string | null;
  tool_name: string;
  args: Record<string, unknown>;
  result: unknown;
  timestamp: string;
  session_id: string;
  query_id: string | null;
  task_id: string | null;
}

export interface OutputSelection {
  /** 'llm', 'bm25', or 'all' when nothing was chosen. */
  method: string;
  candidates: number;
  selected: (OutputPointer & {output?: LoadedOutput})[];
  notes: string[];
}

/** Tool-output capture for the view's session (docs/tool-capture.md).
 * Calls on one ToolOutputCapture run one at a time. */
export class ToolOutputCapture {
  private constructor();
  /** The view must have a session. */
  static open(view: View, options?: CaptureOptions): Promise<ToolOutputCapture>;
  readonly sessionId: string;
  readonly root: string;
  /** args (an object) and result: values, or JSON text. */
  save(toolName: string, args: string | object, result: unknown,
       options?: {taskId?: string; queryId?: string}): Promise<SavedOutput>;
  load(pointer: string): Promise<LoadedOutput>;
  /** A session's saved outputs, oldest first (default this session's). */
  list(sessionId?: string): Promise<OutputPointer[]>;
  /** Removes this session's files; resolves to how many. */
  clear(): Promise<number>;
  /** The outputs relevant to question, loaded (default: among list()). */
  select(question: string, pointers?: (string | OutputPointer)[],
         options?: SelectOptions): Promise<OutputSelection>;
}

/** True for the name of one of the agent tools (ctxkit_read, ...). */
export function isAgentTool(name: string): boolean;

/** One context ref of a spawn manifest (docs/spawn.md). */
export interface ManifestRef {
  name: string;
  ref: string;
  id: string;
  version: number;
  type: string;
  size: number;
  scope: string;
  key: string;
}

/** A spawn manifest: the object of its JSON form (docs/spawn.md). */
export interface Manifest {
  format: string;
  version: number;
  store: string;
  created_unix_ns: number;
  parent: {agent: string; session: string};
  child: {agent: string; session: string};
  result: {key: string; scope: string;
           prior: {id: string; version: number} | null};
  prompt: string;
  refs: ManifestRef[];
}

export interface SpawnOptions {
  childAgent?: string;
  childSession?: string;
  /** Where the manifest file goes (default: under the store home). */
  manifestPath?: string;
  resultKey?: string;
}

export interface SpawnedAgent {
  view: View;
  manifest: Manifest;
  manifestPath: string;
}

/**
 * Starts a sub-agent of `parent` that may read the [name, ref] pairs of
 * `context` (static refs), and writes its manifest.
 */
export function spawn(parent: View, prompt: string,
                      context: ReadonlyArray<readonly [string, string]>,
                      options?: SpawnOptions): Promise<SpawnedAgent>;
/** Reads and validates the manifest file at `path`. */
export function loadManifest(path: string): Promise<Manifest>;
/** The child's view (agent and session as the manifest says). */
export function openChildView(store: Store, manifest: Manifest): View;
/** The value of the manifest's ref called `name`, the version passed. */
export function resolveContextRef(child: View, manifest: Manifest,
                                  name: string): Promise<Buffer>;
/** Stores the child's result (type "result" unless given); its ref. */
export function setResult(child: View, manifest: Manifest, value: Value,
                          options?: {type?: string}): Promise<string>;
/** The parent's side: a static ref to the child's latest result. */
export function collectResult(parent: View,
                              manifest: Manifest): Promise<string>;
