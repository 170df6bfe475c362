/**
 * Node modules loaded on first use rather than with the module graph. node:crypto is 17 of node's
 * own modules (about 5 ms) and node:fs/promises a few more; a stdio start whose first answers need
 * no hash, no random value and no file read loads neither. Modules on that path take them from
 * here (`nodeCrypto().randomBytes(16)`); the others import them.
 */
import { requireOnUse } from './require-on-use.js';

const load = requireOnUse(import.meta.url);

function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= load(id) as T;
    return loaded;
  };
}

export const nodeCrypto: () => typeof import('node:crypto') = onFirstUse('node:crypto');
export const nodeFsPromises: () => typeof import('node:fs/promises') = onFirstUse('node:fs/promises');
/** node:http (with node:net and the HTTP parser, some 10 modules): an http tool needs it only on a call. */
export const nodeHttp: () => typeof import('node:http') = onFirstUse('node:http');
/** node:v8's serializer: the parse cache (manifest/parse-cache.ts) reads and writes with it, for a large manifest only. */
export const nodeV8: () => typeof import('node:v8') = onFirstUse('node:v8');
