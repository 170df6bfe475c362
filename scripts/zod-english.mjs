// An esbuild plugin for the browser bundles that carry ext-apps (the views, the playground page):
// zod, which ext-apps validates every message with, re-exports its 40 message locales as a
// namespace, which keeps them all in a bundle (264 KB of the 690 the views' page weighed). Nothing
// reads `z.locales`; zod imports `en` directly. So the namespace is English only.
import { dirname, join } from 'node:path';

export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), '../locales/en.js').replace(/\\/g, '/'), namespace: 'zod-en' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};
