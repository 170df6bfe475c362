/**
 * Names the import invents: tool names from operationIds (or method and path), argument names from
 * parameter names, and the API's short name (the source and server name, the environment prefix)
 * from its host (`api.github.com` → `github`) or else the first word of its title. Every name is
 * valid where it goes, and a tool name stays the same from one import to the next as long as the
 * operation keeps its id, which is what lets `--merge` match tools across runs.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;

/**
 * `showPetById` → `show_pet_by_id`, `issues/list-for-org` → `issues_list_for_org`: one separator,
 * `_`, whatever the document mixes (a tool list reads `a_b-c.d` as three conventions).
 */
export function snakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** `GET /pets/{petId}/toys` → `get_pets_by_pet_id_toys`: the name of an operation without an id. */
export function nameFromRoute(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.*)\}$/, 'by_$1'));
  return snakeCase([method.toLowerCase(), ...words].join('_'));
}

/** At most `max` characters: a longer name keeps its start and gets a short hash of the whole. */
export function fitName(name: string, max = MAX_TOOL_NAME): string {
  if (name.length <= max) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 6);
  return `${name.slice(0, max - hash.length - 1).replace(/_+$/, '')}_${hash}`;
}

/** The tool name of an operation: its operationId in snake case, else its method and path. */
export function toolBaseName(operationId: string | undefined, method: string, path: string): string {
  const fromId = operationId === undefined ? '' : snakeCase(operationId);
  return fitName(fromId || nameFromRoute(method, path) || method.toLowerCase());
}

/** Hands out names that are unique (case-sensitively, as MCP compares them): `x`, `x_2`, `x_3`… */
export class UniqueNames {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.taken.add(name);
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }

  take(name: string, max = MAX_TOOL_NAME): string {
    let candidate = fitName(name, max);
    for (let n = 2; this.taken.has(candidate); n++) candidate = fitName(`${name}_${n}`, max);
    this.taken.add(candidate);
    return candidate;
  }
}

/**
 * An argument name usable in `{{name}}` and in a path's `{name}`: letters, digits and `_`, not
 * starting with a digit. `X-Request-Id` → `x_request_id`, `page[size]` → `page_size`.
 */
export function argumentName(name: string, lowerCase = false): string {
  const cleaned = (lowerCase ? name.toLowerCase() : name)
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/(?<=.)_+$/, '');
  if (cleaned === '' || cleaned === '_') return 'value';
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** `Swagger Petstore` → `SWAGGER_PETSTORE`: the prefix of the variables the manifest reads. */
export function envPrefix(name: string): string {
  const words = snakeCase(name).replace(/[.-]/g, '_').replace(/_+/g, '_').toUpperCase().slice(0, 40);
  const trimmed = words.replace(/_+$/, '');
  if (trimmed === '') return 'API';
  return /^[0-9]/.test(trimmed) ? `API_${trimmed}` : trimmed;
}

/** `Swagger Petstore` → `swagger_petstore`: the source's name. */
export const sourceName = (name: string): string => envPrefix(name).toLowerCase();

/** `Swagger Petstore` → `swagger-petstore`: the server's name. */
export const serverName = (name: string): string => sourceName(name).replaceAll('_', '-');

/** Host labels that say nothing about which API it is. */
const GENERIC_LABELS = new Set([
  'api',
  'apis',
  'www',
  'rest',
  'gateway',
  'service',
  'services',
  'dev',
  'developer',
  'developers',
  'sandbox',
  'staging',
  'prod',
  'public',
  'localhost',
  'example',
  'com',
  'net',
  'org',
  'io',
  'co',
  'cloud',
  'app',
]);
/** Title words skipped when looking for the API's name. */
const FILLER_WORDS = new Set([
  'the',
  'a',
  'an',
  'api',
  'rest',
  'openapi',
  'swagger',
  'official',
  'v1',
  'v2',
  'v3',
]);

/**
 * The API's short name, as a person would call it: the distinctive label of the server's host
 * (`api.github.com` → `github`, `petstore.swagger.io` → `petstore`), else the first telling word
 * of the title (`GitHub's official OpenAPI spec` → `github`), else `api`.
 */
export function shortApiName(serverUrl: string | undefined, title: string): string {
  let host = '';
  try {
    host = serverUrl ? new URL(serverUrl).hostname : '';
  } catch {
    host = '';
  }
  if (host && !/^[\d.]+$|^\[/.test(host)) {
    const labels = host.toLowerCase().split('.').filter(Boolean);
    // The last label is the top-level domain; of the rest, the first telling one names the API
    // (a subdomain like `petstore.` or `graph.` says more than the company's domain after it).
    const label = (labels.length > 1 ? labels.slice(0, -1) : labels).find(
      (l) => !GENERIC_LABELS.has(l) && l.length > 2 && !/^v\d+$/.test(l) && /[a-z]/.test(l),
    );
    if (label) return label.replace(/[^a-z0-9-]+/g, '');
  }
  for (const raw of title.split(/\s+/)) {
    const word = raw.replace(/['’]s$/i, '').replace(/[^A-Za-z0-9-]+/g, '');
    if (word && /[A-Za-z]/.test(word) && !FILLER_WORDS.has(word.toLowerCase())) return word.toLowerCase();
  }
  return 'api';
}
