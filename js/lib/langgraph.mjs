// ctxkit/langgraph for ES modules: the adapters of langgraph.js built over
// the ES module build of @langchain/langgraph-checkpoint (the one an ESM
// app's LangGraph uses).
import {createRequire} from 'node:module';

import * as checkpoint from '@langchain/langgraph-checkpoint';

const {adapters} = createRequire(import.meta.url)('./langgraph.js');

export const {CtxkitSaver, CtxkitStore} = adapters(checkpoint);
