/**
 * Lifecycle and discovery: `initialize` and `ping` for the legacy era, `server/discover` for 2026.
 * (`notifications/initialized` is a notification; the connection handles it.)
 */
import type { MethodSpec } from '../context.js';
import { invalidParams, isObject } from '../jsonrpc.js';
import { DEFAULT_SESSION_LOG_LEVEL } from '../log-levels.js';
import type { RequestScope } from '../request-scope.js';
import { initializeMeta, serverInfo } from '../results.js';
import { LEGACY_TASKS_CAPABILITY, TASKS_EXTENSION, TASKS_VERSION } from '../tasks-wire.js';
import { isLegacyVersion, LATEST_LEGACY_VERSION, SUPPORTED_VERSIONS } from '../versions.js';
import { skillsCapability } from './skills.js';

/** Starts (or restarts) a legacy session: echo a supported version, else offer our latest. */
function initialize(scope: RequestScope): object {
  const requested = scope.params.protocolVersion;
  if (typeof requested !== 'string') throw invalidParams('initialize needs "protocolVersion" (a string)');
  const version = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
  const session = scope.session;
  session.version = version;
  session.ready = false;
  session.logLevel = DEFAULT_SESSION_LOG_LEVEL;
  session.subscriptions.clear();
  scope.server.follows.dropAll(session);
  const declared = scope.params.capabilities;
  session.clientCapabilities = isObject(declared) ? declared : {};
  const { catalog } = scope;
  const skills = skillsCapability(catalog);
  const base =
    Object.keys(skills).length === 0
      ? scope.server.capabilities
      : { ...scope.server.capabilities, extensions: skills };
  const result: Record<string, unknown> = {
    protocolVersion: version,
    capabilities: version === TASKS_VERSION ? { ...base, tasks: LEGACY_TASKS_CAPABILITY } : base,
    serverInfo: serverInfo(catalog),
    _meta: initializeMeta(catalog),
  };
  if (catalog.server.instructions !== undefined) result.instructions = catalog.server.instructions;
  return result;
}

function discover(scope: RequestScope): object {
  const { instructions } = scope.catalog.server;
  const extensions = { [TASKS_EXTENSION]: {}, ...skillsCapability(scope.catalog) };
  const capabilities = { ...scope.server.capabilities, extensions };
  const result = { supportedVersions: SUPPORTED_VERSIONS, capabilities };
  return instructions === undefined ? result : { ...result, instructions };
}

const EMPTY = Object.freeze({});

export const lifecycleMethods: Record<string, MethodSpec> = {
  initialize: { era: 'legacy', handle: initialize },
  ping: { era: 'legacy', handle: () => EMPTY },
  'server/discover': { era: 'modern', cacheable: true, handle: discover },
};
