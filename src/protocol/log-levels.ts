/** MCP log levels as numbers, so "at or above the requested level" is one comparison. */
import { LOG_LEVELS, type LogLevel } from '../catalog/types.js';

const RANK: ReadonlyMap<string, number> = new Map(LOG_LEVELS.map((level, index) => [level, index]));

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && RANK.has(value);
}

/** True when a message of `level` passes a client's `threshold`. */
export function passes(level: LogLevel, threshold: LogLevel): boolean {
  return (RANK.get(level) ?? 0) >= (RANK.get(threshold) ?? 0);
}

/**
 * A 2025 session's level until `logging/setLevel`: warnings and above. Some clients never set a
 * level (LangChain's adapters), and would otherwise never hear that a tool failed.
 */
export const DEFAULT_SESSION_LOG_LEVEL: LogLevel = 'warning';

export const LOG_LEVEL_NAMES = LOG_LEVELS.join(', ');
