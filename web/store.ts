/**
 * The playground's state: one mutable object, one re-render per change (`update`). Every view
 * reads it; the session (session.ts) and the views' handlers change it, then call `update`.
 */
import { ERAS, type Era, type Json, type McpClient, type TraceEntry } from './mcp.js';

export type Kind = 'tool' | 'resource' | 'template' | 'prompt' | 'skill';
export interface Catalog {
  tools: Json[];
  resources: Json[];
  templates: Json[];
  prompts: Json[];
  /** `skills/list` entries (the skills extension): `{ uri, frontmatter, resources }`. */
  skills: Json[];
}
export interface Outcome {
  result?: Json;
  error?: string;
  cancelled?: boolean;
  /** The arguments it was called with (for the copy buttons). */
  args?: Json;
}
export interface Run {
  abort: AbortController;
  progress?: { value: number; total?: number; message?: string };
}
export interface Ask {
  method: string;
  params: Json;
  resolve: (result: Json) => void;
  reject: (err: Error) => void;
}
export interface Reload {
  ok: boolean;
  at: string;
  summary: string;
  errors?: Json[];
  /** The names the page saw come and go with this reload. */
  names?: string;
}
export interface DevInfo {
  manifest: string;
  folder: string;
  mcpPath: string;
}

export const MAX_TRACE = 2000;
export const MAX_LOGS = 500;
const params = new URLSearchParams(location.search);
const storedEra = params.get('era') ?? localStorage.getItem('mcp-run-dev-era');

export const store = {
  era: (ERAS.includes(storedEra as Era) ? storedEra : '2025-11-25') as Era,
  client: undefined as McpClient | undefined,
  catalog: { tools: [], resources: [], templates: [], prompts: [], skills: [] } as Catalog,
  failure: undefined as string | undefined,
  selected: undefined as { kind: Kind; key: string } | undefined,
  search: '',
  trace: [] as TraceEntry[],
  logs: [] as { at: string; level: string; logger?: string; data: Json }[],
  outcomes: new Map<string, Outcome>(),
  runs: new Map<string, Run>(),
  asks: [] as Ask[],
  reload: undefined as Reload | undefined,
  dev: undefined as DevInfo | undefined,
  panel: 'trace' as 'trace' | 'logs' | 'reload',
};
let rerender: () => void = () => undefined;
/** The page's root registers its re-render here. */
export const onUpdate = (fn: () => void): void => {
  rerender = fn;
};
export const update = (): void => rerender();

export const keyOf = (kind: Kind, item: Json): string =>
  kind === 'resource' || kind === 'skill' ? item.uri : kind === 'template' ? item.uriTemplate : item.name;
