/** Limits of SQL sources that declare none of their own. */
export const DEFAULT_MAX_ROWS = 500;
export const DEFAULT_TIMEOUT_MS = 5000;
