/**
 * Limits of the file kinds that declare none of their own. A module of its own: the kinds' `.info.ts`
 * load with every start, and shared/paths.ts (the reads themselves) only when a file kind is used.
 */

/** Default cap of a file resource read: 10 MiB. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
