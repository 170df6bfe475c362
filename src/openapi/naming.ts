/**
 * Names the import invents: tool names from operationIds (or method and path), argument names from
 * parameter names, and the source name and environment prefix from the API's title. Every name is
 * valid where it goes, and a tool name stays the same from one import to the next as long as the
 * operation keeps its id, which is what lets `--merge` match tools across runs.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;

/** `showPetById` → `show_pet_by_id`, `find pet by id` → `find_pet_by_id`; `-` and `.` are kept. */
export function snakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '');
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
  return `${name.slice(0, max - hash.length - 1).replace(/[_.-]+$/, '')}_${hash}`;
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
