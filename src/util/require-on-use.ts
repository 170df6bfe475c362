/**
 * `require` for an ES module, made on its first call. Made with the module, as
 * `createRequire(import.meta.url)` at the top, it cost every start a URL parse and a module
 * record per module that does so (about 0.1 ms each), even when nothing was ever required.
 */
import { createRequire } from 'node:module';

export function requireOnUse(url: string): (id: string) => unknown {
  let load: NodeJS.Require | undefined;
  return (id) => {
    load ??= createRequire(url);
    return load(id);
  };
}
