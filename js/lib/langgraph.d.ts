// Types of ctxkit/langgraph (langgraph.js): LangGraph.js adapters over a
// ctxkit store. Needs @langchain/langgraph-checkpoint (and its
// @langchain/core), which LangGraph.js itself depends on.

import {
  BaseCheckpointSaver,
  BaseStore,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type Operation,
  type OperationResults,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type {RunnableConfig} from '@langchain/core/runnables';

import type {Store, View} from './index.js';

export interface CtxkitSaverOptions {
  /** The first key component of every object the saver writes; default
   * "langgraph" (keys <prefix>/checkpoints/..., /writes/..., /blobs/...). */
  prefix?: string;
  /** Serializer of checkpoints, metadata, channel values and writes;
   * default LangGraph's JsonPlusSerializer. */
  serde?: SerializerProtocol;
}

/**
 * A LangGraph.js checkpointer storing checkpoints as versioned ctxkit
 * objects. A key over 256 bytes (long thread ids, namespaces, task ids or
 * channel names) rejects with a CtxkitError 'invalid_argument'.
 */
export class CtxkitSaver extends BaseCheckpointSaver {
  constructor(store: Store | View, options?: CtxkitSaverOptions);
  /** The view every call reads and writes through. */
  readonly view: View;
  readonly prefix: string;
  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined>;
  list(config: RunnableConfig,
       options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple>;
  put(config: RunnableConfig, checkpoint: Checkpoint,
      metadata: CheckpointMetadata,
      newVersions: ChannelVersions): Promise<RunnableConfig>;
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string,
            taskPath?: string): Promise<void>;
  deleteThread(threadId: string): Promise<void>;
}

export interface CtxkitStoreOptions {
  /** Items are <prefix>/store/<namespace...>/<key>; default "langgraph". */
  prefix?: string;
}

/**
 * A LangGraph.js long-term memory store over ctxkit: an item is an object
 * per namespace and key, search with a query ranks by View.findRelevant.
 */
export class CtxkitStore extends BaseStore {
  constructor(store: Store | View, options?: CtxkitStoreOptions);
  readonly view: View;
  readonly prefix: string;
  batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>>;
}
