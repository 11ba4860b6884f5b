'use strict';
// LangGraph.js adapters over a ctxkit store (`ctxkit/langgraph`):
//
//   CtxkitSaver  a BaseCheckpointSaver: checkpoints, their pending writes
//                and channel values as versioned objects under
//                <prefix>/checkpoints/, <prefix>/writes/, <prefix>/blobs/
//   CtxkitStore  a BaseStore: items under <prefix>/store/<namespace...>/<key>,
//                search by query backed by View.findRelevant
//
// Key components are escaped (see encodeComponent), so thread ids,
// namespaces and ids may hold any text; a key longer than the store's
// 256 bytes is a CtxkitError 'invalid_argument' that names the part.
// Values are JSON text; what LangGraph hands over (checkpoints, metadata,
// channel values, writes) goes through the saver's serde (dumpsTyped /
// loadsTyped). docs/typescript.md describes the layout.

const {isDeepStrictEqual} = require('node:util');

const {CtxkitError, Store, View} = require('./index.js');

const MAX_KEY_BYTES = 256;
const LIST_PAGE = 1000;
const utf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true});

function viewOf(store) {
  if (store instanceof View) return store;
  if (store instanceof Store) return store.view();
  throw new TypeError('expected a ctxkit Store or View');
}

function checkPrefix(prefix) {
  if (typeof prefix !== 'string' || prefix === '' || prefix.endsWith('/')) {
    throw new TypeError('prefix must be a non-empty string without a ' +
                        'trailing "/"');
  }
  return prefix;
}

// One key component: '%', '/' and control characters percent-encoded (as
// their UTF-8 bytes), a leading '_' too, and the empty string as '_'; so
// the encoding is reversible and never empty or containing '/'.
function encodeComponent(text) {
  if (text === '') return '_';
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    const escape = ch === '%' || ch === '/' || code < 0x20 ||
                   (code >= 0x7f && code <= 0x9f) ||
                   (out === '' && ch === '_') ||
                   (code >= 0xd800 && code <= 0xdfff);
    if (!escape) {
      out += ch;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      throw new CtxkitError(`'${text}' holds a lone surrogate; a store key ` +
                            'must be well-formed UTF-8', 'invalid_argument');
    } else {
      out += encodeURIComponent(ch).replace(/[!'()*_.~-]/g,
          (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    }
  }
  return out;
}

function decodeComponent(part) {
  return part === '_' ? '' : decodeURIComponent(part);
}

// The key `prefix/parts...`, each part escaped; too long is a clear error.
function makeKey(prefix, parts, what) {
  const key = [prefix, ...parts.map(encodeComponent)].join('/');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_KEY_BYTES) {
    throw new CtxkitError(
        `ctxkit/langgraph: the store key of ${what} would be ${bytes} ` +
        `bytes; ctxkit keys are at most ${MAX_KEY_BYTES} (use shorter ids ` +
        `or a shorter prefix): ${key.slice(0, 80)}...`, 'invalid_argument');
  }
  return key;
}

// Every key under `keyPrefix` (which ends in '/'), in key order.
async function listKeys(view, keyPrefix) {
  const keys = [];
  let cursor = '';
  for (;;) {
    const page = await view.list(cursor ? {keyPrefix, limit: LIST_PAGE, cursor}
                                        : {keyPrefix, limit: LIST_PAGE});
    for (const item of page.items) {
      if (item.key.startsWith(keyPrefix)) keys.push(item.key);
    }
    if (!page.next_cursor) return keys;
    cursor = page.next_cursor;
  }
}

// The components after `keyPrefix`, decoded; null when not `count` of them.
function splitKey(key, keyPrefix, count) {
  const parts = key.slice(keyPrefix.length).split('/');
  if (count !== undefined && parts.length !== count) return null;
  try {
    return parts.map(decodeComponent);
  } catch {
    return null;
  }
}

async function getJson(view, key, options) {
  try {
    return JSON.parse(await view.getText(key, options));
  } catch (e) {
    if (e instanceof CtxkitError && e.code === 'not_found') return undefined;
    throw e;
  }
}

async function removeIfPresent(view, key) {
  try {
    await view.remove(key);
  } catch (e) {
    if (!(e instanceof CtxkitError && e.code === 'not_found')) throw e;
  }
}

// A serialized value as JSON: its serde type and the bytes as text when
// they are UTF-8 (JSON, for the default serde), else as base64.
async function dump(serde, value) {
  const [type, data] = await serde.dumpsTyped(value);
  if (typeof data === 'string') return {type, text: data};
  try {
    return {type, text: utf8.decode(data)};
  } catch {
    return {type, base64: Buffer.from(data).toString('base64')};
  }
}

function load(serde, field) {
  const data = field.text !== undefined ? Buffer.from(field.text, 'utf8')
                                        : Buffer.from(field.base64, 'base64');
  return serde.loadsTyped(field.type, data);
}

function threadIdOf(config, what) {
  const id = config?.configurable?.thread_id;
  if (id === undefined || id === null) {
    throw new Error(`Failed to ${what}: the RunnableConfig has no ` +
                    '"thread_id" in its "configurable" (pass ' +
                    '{configurable: {thread_id: "..."}})');
  }
  if (typeof id !== 'string' && typeof id !== 'number') {
    throw new TypeError('thread_id must be a string');
  }
  return String(id);
}

function metadataMatches(metadata, filter) {
  if (!filter) return true;
  return Object.entries(filter).every(
      ([key, value]) => isDeepStrictEqual(metadata?.[key], value));
}

// Store search filters: a value or an operator object ($eq, $ne, $gt,
// $gte, $lt, $lte, $in, $nin) per field.
const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in',
                           '$nin']);
function fieldMatches(actual, wanted) {
  const isOps = wanted !== null && typeof wanted === 'object' &&
      !Array.isArray(wanted) && Object.keys(wanted).length > 0 &&
      Object.keys(wanted).every((k) => OPERATORS.has(k));
  if (!isOps) return isDeepStrictEqual(actual, wanted);
  const same = (x) => isDeepStrictEqual(actual, x);
  return Object.entries(wanted).every(([op, v]) => {
    switch (op) {
      case '$eq': return isDeepStrictEqual(actual, v);
      case '$ne': return !isDeepStrictEqual(actual, v);
      case '$gt': return actual > v;
      case '$gte': return actual >= v;
      case '$lt': return actual < v;
      case '$lte': return actual <= v;
      case '$in': return Array.isArray(v) && v.some(same);
      case '$nin': return !Array.isArray(v) || !v.some(same);
      default: return false;
    }
  });
}

function checkNamespace(namespace, allowEmpty) {
  if (!Array.isArray(namespace) ||
      namespace.some((label) => typeof label !== 'string' || label === '')) {
    throw new TypeError('a namespace is an array of non-empty strings');
  }
  if (!allowEmpty && namespace.length === 0) {
    throw new TypeError('a namespace cannot be empty');
  }
}

function pathMatches(condition, namespace) {
  const {matchType, path} = condition;
  if (path.length > namespace.length) return false;
  const offset = matchType === 'suffix' ? namespace.length - path.length : 0;
  if (matchType !== 'prefix' && matchType !== 'suffix') {
    throw new TypeError(`unknown match type '${matchType}'`);
  }
  return path.every(
      (label, i) => label === '*' || label === namespace[offset + i]);
}

function compareNamespaces(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

// The adapter classes over one copy of @langchain/langgraph-checkpoint:
// langgraph.js passes the CommonJS build, langgraph.mjs the ES module one,
// so each app's classes, serializer and revived messages are those of the
// LangGraph it imports.
function adapters(checkpoint) {
  const {
    BaseCheckpointSaver, BaseStore, TASKS, WRITES_IDX_MAP,
    compareWritesSortKeys, copyCheckpoint, getCheckpointId, maxChannelVersion,
    writesSortKey,
  } = checkpoint;

  /**
   * A LangGraph.js checkpointer over a ctxkit store.
   *
   * Layout (each component escaped, `ns` the checkpoint namespace):
   *   <prefix>/checkpoints/<thread>/<ns>/<checkpoint id>
   *       the checkpoint without its channel values, its metadata, its
   *       parent's id, and each channel's value as a static ref: {channel:
   *       [channel version, ref]} (null: the channel is empty)
   *   <prefix>/blobs/<thread>/<ns>/<channel>
   *       one version per value the channel took (put's newVersions); a
   *       checkpoint holds the ref of the version it reads, so forks that
   *       reuse a channel version never collide
   *   <prefix>/writes/<thread>/<ns>/<checkpoint id>/<task id>
   *       a task's pending writes against the checkpoint
   */
  class CtxkitSaver extends BaseCheckpointSaver {
    constructor(store, options = {}) {
      super(options.serde);
      this.view = viewOf(store);
      this.prefix = checkPrefix(options.prefix ?? 'langgraph');
      // Channel maps of recent checkpoints by key (immutable once written):
      // put reads its parent's without a store round trip.
      this._channels = new Map();
    }

    _key(kind, parts, what) {
      return makeKey(`${this.prefix}/${kind}`, parts, what);
    }

    _remember(key, channels) {
      this._channels.delete(key);
      this._channels.set(key, channels);
      if (this._channels.size > 64) {
        this._channels.delete(this._channels.keys().next().value);
      }
    }

    async _parentChannels(threadId, ns, parentId) {
      const key = this._key('checkpoints', [threadId, ns, parentId],
                            `checkpoint ${parentId}`);
      const cached = this._channels.get(key);
      if (cached) return cached;
      const record = await getJson(this.view, key);
      return record?.channels ?? {};
    }

    async put(config, checkpoint, metadata, newVersions = {}) {
      const threadId = threadIdOf(config, 'put checkpoint');
      const ns = config.configurable?.checkpoint_ns ?? '';
      const parentId = config.configurable?.checkpoint_id || undefined;
      const key = this._key('checkpoints', [threadId, ns, checkpoint.id],
                            `checkpoint ${checkpoint.id}`);
      const {channel_values: values = {}, ...rest} = copyCheckpoint(checkpoint);
      const versions = rest.channel_versions ?? {};

      // Channels put does not update keep the parent's value when the
      // version agrees; updated ones get a new version of their blob.
      const parent = parentId === undefined ? {}
          : await this._parentChannels(threadId, ns, parentId);
      const channels = {};
      for (const [channel, version] of Object.entries(versions)) {
        const entry = parent[channel];
        if (!(channel in newVersions) && entry && entry[0] === version) {
          channels[channel] = entry;
        }
      }
      // The updated channels' blobs, written in one commit.
      const blobs = [];
      for (const [channel, version] of Object.entries(newVersions)) {
        if (!(channel in values)) {
          channels[channel] = [version, null];
          continue;
        }
        const blobKey = this._key('blobs', [threadId, ns, channel],
                                  `channel ${channel}`);
        const blob = JSON.stringify(await dump(this.serde, values[channel]));
        blobs.push({channel, version, item: [blobKey, blob]});
      }
      if (blobs.length > 0) {
        const refs = await this.view.setMany(blobs.map((b) => b.item),
                                             {type: 'json'});
        blobs.forEach((b, i) => { channels[b.channel] = [b.version, refs[i]]; });
      }

      const record = {
        thread_id: threadId,
        checkpoint_ns: ns,
        checkpoint_id: checkpoint.id,
        parent_checkpoint_id: parentId ?? null,
        channels,
        checkpoint: await dump(this.serde, rest),
        metadata: await dump(this.serde, metadata),
      };
      await this.view.set(key, JSON.stringify(record), {type: 'json'});
      this._remember(key, channels);
      return {configurable: {thread_id: threadId, checkpoint_ns: ns,
                             checkpoint_id: checkpoint.id}};
    }

    async putWrites(config, writes, taskId, taskPath = '') {
      const threadId = threadIdOf(config, 'put writes');
      const ns = config.configurable?.checkpoint_ns ?? '';
      const checkpointId = config.configurable?.checkpoint_id;
      if (!checkpointId) {
        throw new Error('Failed to put writes: the RunnableConfig has no ' +
                        '"checkpoint_id" in its "configurable"');
      }
      const key = this._key('writes', [threadId, ns, checkpointId, taskId],
                            `the writes of task ${taskId}`);
      const dumped = await Promise.all(writes.map(async ([channel, value],
                                                      i) => ({
        idx: WRITES_IDX_MAP[channel] ?? i,
        channel,
        task_path: taskPath,
        value: await dump(this.serde, value),
      })));
      // Read, merge, compare-and-set: a regular write (idx >= 0) already
      // saved stays; special writes (errors, interrupts, ...) replace.
      for (let attempt = 0; ; attempt++) {
        let version = 0;
        let record = {task_id: taskId, writes: []};
        try {
          version = (await this.view.stat(key)).version;
          record = JSON.parse(await this.view.getText(key, {version}));
        } catch (e) {
          if (!(e instanceof CtxkitError && e.code === 'not_found')) throw e;
        }
        const byIdx = new Map(record.writes.map((w) => [w.idx, w]));
        let changed = false;
        for (const write of dumped) {
          if (write.idx >= 0 && byIdx.has(write.idx)) continue;
          byIdx.set(write.idx, write);
          changed = true;
        }
        if (!changed) return;
        record.writes = [...byIdx.values()];
        try {
          await this.view.set(key, JSON.stringify(record),
                              {type: 'json', expectedVersion: version});
          return;
        } catch (e) {
          const raced = e instanceof CtxkitError &&
                        e.code === 'failed_precondition' && attempt < 8;
          if (!raced) throw e;
        }
      }
    }

    // The pending writes against a checkpoint, in writesSortKey order:
    // [[taskId, idx, taskPath, record]].
    async _writes(threadId, ns, checkpointId) {
      const keyPrefix = this._key(
          'writes', [threadId, ns, checkpointId],
          `the writes of checkpoint ${checkpointId}`) + '/';
      const keys = await listKeys(this.view, keyPrefix);
      const records = await Promise.all(keys.map((k) => getJson(this.view, k)));
      const out = [];
      for (const record of records) {
        if (!record) continue;
        for (const w of record.writes) {
          out.push({sort: writesSortKey(w.task_path ?? '', record.task_id,
                                        w.idx),
                    taskId: record.task_id, write: w});
        }
      }
      out.sort((a, b) => compareWritesSortKeys(a.sort, b.sort));
      return out;
    }

    async _channelValues(channels) {
      const values = {};
      await Promise.all(Object.entries(channels).map(async ([channel, at]) => {
        const ref = at[1];
        if (!ref) return;
        const blob = await getJson(this.view, ref);
        if (blob) values[channel] = await load(this.serde, blob);
      }));
      return values;
    }

    // The CheckpointTuple of a stored record.
    async _tuple(record) {
      const threadId = record.thread_id;
      const ns = record.checkpoint_ns;
      const id = record.checkpoint_id;
      const parentId = record.parent_checkpoint_id ?? undefined;
      const [checkpoint, metadata, channelValues, writes] = await Promise.all([
        load(this.serde, record.checkpoint),
        load(this.serde, record.metadata),
        this._channelValues(record.channels ?? {}),
        this._writes(threadId, ns, id),
      ]);
      checkpoint.channel_values = channelValues;
      if (checkpoint.v < 4 && parentId !== undefined) {
        await this._migratePendingSends(checkpoint, threadId, ns, parentId);
      }
      const tuple = {
        config: {configurable: {thread_id: threadId, checkpoint_ns: ns,
                                checkpoint_id: id}},
        checkpoint,
        metadata,
        pendingWrites: await Promise.all(writes.map(async ({taskId, write}) =>
          [taskId, write.channel, await load(this.serde, write.value)])),
      };
      if (parentId !== undefined) {
        tuple.parentConfig = {configurable: {thread_id: threadId,
                                             checkpoint_ns: ns,
                                             checkpoint_id: parentId}};
      }
      return tuple;
    }

    // Checkpoints before format 4 kept pending sends as the parent's TASKS
    // writes; they become the TASKS channel.
    async _migratePendingSends(checkpoint, threadId, ns, parentId) {
      const writes = await this._writes(threadId, ns, parentId);
      checkpoint.channel_values[TASKS] = await Promise.all(
          writes.filter(({write}) => write.channel === TASKS)
                .map(({write}) => load(this.serde, write.value)));
      const versions = Object.values(checkpoint.channel_versions ?? {});
      checkpoint.channel_versions ??= {};
      checkpoint.channel_versions[TASKS] = versions.length > 0
          ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }

    async getTuple(config) {
      const raw = config?.configurable?.thread_id;
      if (raw === undefined || raw === null) return undefined;
      const threadId = String(raw);
      const ns = config.configurable.checkpoint_ns ?? '';
      let id = getCheckpointId(config);
      if (!id) {
        const keyPrefix = this._key('checkpoints', [threadId, ns],
                                    `thread ${threadId}`) + '/';
        const ids = (await listKeys(this.view, keyPrefix))
            .map((k) => splitKey(k, keyPrefix, 1)?.[0])
            .filter((x) => x !== undefined);
        if (ids.length === 0) return undefined;
        id = ids.reduce((a, b) => (b > a ? b : a));
      }
      const record = await getJson(
          this.view, this._key('checkpoints', [threadId, ns, id],
                               `checkpoint ${id}`));
      return record ? this._tuple(record) : undefined;
    }

    async *list(config, options = {}) {
      const {before, filter} = options;
      let {limit} = options;
      const raw = config?.configurable?.thread_id;
      const ns = config?.configurable?.checkpoint_ns;
      const onlyId = config?.configurable?.checkpoint_id;
      const beforeId = before?.configurable?.checkpoint_id;
      const parts = [];
      if (raw !== undefined && raw !== null) {
        parts.push(String(raw));
        if (ns !== undefined) parts.push(ns);
      }
      const keyPrefix = this._key('checkpoints', parts, 'the listing') + '/';
      const found = [];
      for (const key of await listKeys(this.view, keyPrefix)) {
        const rest = splitKey(key, keyPrefix, 3 - parts.length);
        if (!rest) continue;
        const [threadId, checkpointNs, id] = [...parts, ...rest];
        if (ns !== undefined && checkpointNs !== ns) continue;
        if (onlyId && id !== onlyId) continue;
        if (beforeId && id >= beforeId) continue;
        found.push({key, threadId, checkpointNs, id});
      }
      // Thread by thread, namespace by namespace, newest checkpoint first.
      found.sort((a, b) =>
        a.threadId !== b.threadId ? (a.threadId < b.threadId ? -1 : 1)
        : a.checkpointNs !== b.checkpointNs
          ? (a.checkpointNs < b.checkpointNs ? -1 : 1)
          : (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      for (const {key} of found) {
        if (limit !== undefined && limit <= 0) return;
        const record = await getJson(this.view, key);
        if (!record) continue;
        if (filter && Object.keys(filter).length > 0 &&
            !metadataMatches(await load(this.serde, record.metadata), filter)) {
          continue;
        }
        if (limit !== undefined) limit -= 1;
        yield await this._tuple(record);
      }
    }

    async deleteThread(threadId) {
      const id = String(threadId);
      await Promise.all(['checkpoints', 'writes', 'blobs'].map(async (kind) => {
        const keyPrefix = this._key(kind, [id], `thread ${id}`) + '/';
        for (const key of await listKeys(this.view, keyPrefix)) {
          await removeIfPresent(this.view, key);
          this._channels.delete(key);
        }
      }));
    }
  }


  /**
   * A LangGraph.js long-term memory store over a ctxkit store: the item
   * `key` of namespace [a, b] is the object <prefix>/store/a/b/key (each
   * label escaped), its value JSON {value, created_at, updated_at}; a put is
   * a new version of the object, a delete removes it. Search with a query
   * ranks the namespace's items with View.findRelevant (BM25, or the store's
   * embeddings when configured); `index` on put is ignored (ctxkit indexes
   * whole values).
   */
  class CtxkitStore extends BaseStore {
    constructor(store, options = {}) {
      super();
      this.view = viewOf(store);
      this.prefix = checkPrefix(options.prefix ?? 'langgraph');
    }

    _itemKey(namespace, key) {
      return makeKey(`${this.prefix}/store`, [...namespace, key],
                     `item ${JSON.stringify(key)} of ${namespace.join('/')}`);
    }

    _keyPrefix(namespace) {
      return makeKey(`${this.prefix}/store`, namespace,
                     `namespace ${namespace.join('/')}`) + '/';
    }

    _item(namespace, key, record) {
      return {value: record.value, key, namespace,
              createdAt: new Date(record.created_at),
              updatedAt: new Date(record.updated_at)};
    }

    async _get(op) {
      checkNamespace(op.namespace, true);
      const key = this._itemKey(op.namespace, op.key);
      const record = await getJson(this.view, key);
      return record ? this._item([...op.namespace], op.key, record) : null;
    }

    async _put(op) {
      checkNamespace(op.namespace, false);
      const key = this._itemKey(op.namespace, op.key);
      if (op.value === null) {
        await removeIfPresent(this.view, key);
        return;
      }
      const now = new Date().toISOString();
      const previous = await getJson(this.view, key);
      const record = {value: op.value, created_at: previous?.created_at ?? now,
                      updated_at: now};
      await this.view.set(key, JSON.stringify(record), {type: 'json'});
    }

    // [namespace, key] of every item under `keyPrefix`.
    async _itemsUnder(keyPrefix) {
      const out = [];
      for (const k of await listKeys(this.view, keyPrefix)) {
        const parts = splitKey(k, `${this.prefix}/store/`);
        if (parts && parts.length >= 2) out.push({storeKey: k, parts});
      }
      return out;
    }

    async _search(op) {
      const namespacePrefix = op.namespacePrefix ?? [];
      checkNamespace(namespacePrefix, true);
      const offset = op.offset ?? 0;
      const limit = op.limit ?? 10;
      const keyPrefix = namespacePrefix.length > 0
          ? this._keyPrefix(namespacePrefix) : `${this.prefix}/store/`;
      const hasFilter = op.filter && Object.keys(op.filter).length > 0;
      const accept = (record) => !hasFilter || Object.entries(op.filter).every(
          ([field, wanted]) => fieldMatches(record.value?.[field], wanted));
      const load1 = async ({storeKey, parts}) => {
        const record = await getJson(this.view, storeKey);
        if (!record || !accept(record)) return null;
        return this._item(parts.slice(0, -1), parts[parts.length - 1], record);
      };

      if (!op.query) {
        const candidates = await this._itemsUnder(keyPrefix);
        const out = [];
        let skipped = 0;
        for (const candidate of candidates) {
          if (out.length >= limit) break;
          const item = await load1(candidate);
          if (!item) continue;
          if (skipped < offset) {
            skipped += 1;
            continue;
          }
          out.push(item);
        }
        return out;
      }

      // Ranked: the best hit per item, widening topK until the page fills
      // or the hits run out.
      let topK = Math.max(2 * (offset + limit), 20);
      for (;;) {
        const found = await this.view.findRelevant(op.query, {keyPrefix, topK});
        const seen = new Map();
        for (const hit of found.hits) {
          if (!seen.has(hit.key)) seen.set(hit.key, hit.score);
        }
        const items = [];
        for (const [storeKey, score] of seen) {
          const parts = splitKey(storeKey, `${this.prefix}/store/`);
          if (!parts || parts.length < 2) continue;
          const item = await load1({storeKey, parts});
          if (item) items.push({...item, score});
          if (items.length >= offset + limit) break;
        }
        if (items.length >= offset + limit || found.hits.length < topK) {
          return items.slice(offset, offset + limit);
        }
        topK *= 2;
      }
    }

    async _listNamespaces(op) {
      const unique = new Map();
      for (const {parts} of await this._itemsUnder(`${this.prefix}/store/`)) {
        let namespace = parts.slice(0, -1);
        const conditions = op.matchConditions ?? [];
        if (!conditions.every((c) => pathMatches(c, namespace))) {
          continue;
        }
        if (op.maxDepth !== undefined) {
          namespace = namespace.slice(0, op.maxDepth);
        }
        unique.set(JSON.stringify(namespace), namespace);
      }
      const namespaces = [...unique.values()].sort(compareNamespaces);
      const offset = op.offset ?? 0;
      return namespaces.slice(offset, offset + (op.limit ?? namespaces.length));
    }

    async batch(operations) {
      // Reads first, in parallel; then the puts in order (the last put of a
      // key wins), as LangGraph's stores order a batch.
      const results = await Promise.all(operations.map((op) => {
        if ('namespacePrefix' in op) return this._search(op);
        if ('matchConditions' in op || 'maxDepth' in op) {
          return this._listNamespaces(op);
        }
        if ('value' in op) return undefined;
        if ('namespace' in op && 'key' in op) return this._get(op);
        throw new TypeError('unknown store operation');
      }));
      const puts = new Map();
      for (const op of operations) {
        if ('value' in op && !('namespacePrefix' in op)) {
          puts.set(JSON.stringify([op.namespace, op.key]), op);
        }
      }
      for (const op of puts.values()) await this._put(op);
      return results;
    }
  }

  return {CtxkitSaver, CtxkitStore};
}

let commonjs;
function loaded() {
  commonjs ??= adapters(require('@langchain/langgraph-checkpoint'));
  return commonjs;
}

module.exports = {
  get CtxkitSaver() { return loaded().CtxkitSaver; },
  get CtxkitStore() { return loaded().CtxkitStore; },
  adapters,
};
