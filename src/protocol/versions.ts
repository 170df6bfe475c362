/**
 * Protocol versions and the two eras. Legacy (2024-11-05 … 2025-11-25) negotiates a version once
 * per connection with `initialize`; modern (2026-07-28) carries it in every request's `_meta`.
 */

export type Era = 'legacy' | 'modern';

export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
/** Newest first: the first one is what `initialize` offers when the client asks for something else. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const LATEST_LEGACY_VERSION = '2025-11-25';
/** The only revision that allows JSON-RPC batches. */
export const BATCH_VERSION = '2025-03-26';
/** What `server/discover` and -32022 report: modern first, so a dual-era client picks 2026. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export const isLegacyVersion = (version: string): boolean => LEGACY_VERSIONS.includes(version);
export const isModernVersion = (version: string): boolean => MODERN_VERSIONS.includes(version);

/** The reserved `_meta` keys of the 2026 envelope and results. */
export const META_PREFIX = 'io.modelcontextprotocol/';
export const Meta = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  /**
   * Ours, beside serverInfo: the contract hash (docs/contract.md). `Implementation` (serverInfo)
   * has no `_meta` in any version and the SDKs' parsers drop keys they do not know from it, while
   * every result's `_meta` takes any key: so the hash goes there, on the initialize result and on
   * every 2026 result.
   */
  contract: 'mcp-run/contract',
} as const;
