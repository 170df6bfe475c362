/**
 * The folder that holds the built families (`dist/` when built, `src/` under tsx). Every module of
 * this one's depth resolves it the same way, and so does the bundled command line, whose chunks
 * sit one folder below `dist/` too (scripts/bundle-cli.mjs): a file another module must find by
 * path (a precompiled validator, the SQLite worker) is named from here, not from its caller's URL.
 */
export const BUILD_ROOT = new URL('../', import.meta.url);
