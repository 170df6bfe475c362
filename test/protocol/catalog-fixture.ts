/**
 * A small, real Catalog built by hand for the protocol tests: no manifest, no kinds. Each entry
 * exists to exercise one protocol path (text and structured results, progress and logs, a slow
 * call that honours its AbortSignal, a static resource, a template, prompts with completions).
 */
import {
  type CallContext,
  type Catalog,
  type CatalogPrompt,
  CatalogRef,
  type CatalogResource,
  type CatalogTemplate,
  type CatalogTool,
  InvalidRequestParams,
  ResourceNotFound,
  type ToolResult,
} from '../../src/catalog/types.js';

/** What the slow tool saw, so tests can check that cancellation reached it. */
export interface FixtureProbe {
  slowStarted: number;
  slowAborted: number;
  /** Resolves the slow tool's pending calls with a normal result (to test "no response after cancel"). */
  releaseSlow: (() => void)[];
}

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

function tool(name: string, call: CatalogTool['call'], description?: string): [string, CatalogTool] {
  const descriptor = { name, description, inputSchema: { type: 'object' } };
  return [name, { descriptor, call }];
}

function makeTools(probe: FixtureProbe): [string, CatalogTool][] {
  return [
    tool('echo', async (args) =>
      typeof args.text === 'string' ? text(args.text) : { ...text('text must be a string'), isError: true },
    ),
    tool('add', async (args) => {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
    }),
    tool('work', async (_args, ctx: CallContext) => {
      ctx.progress(1, 3, 'started');
      ctx.progress(1, 3, 'repeated, must be dropped');
      ctx.progress(0.5, 3, 'lower, must be dropped');
      ctx.log('debug', 'debug detail');
      ctx.log('info', { step: 'middle' }, 'worker');
      ctx.progress(2, 3);
      ctx.log('error', 'something failed');
      return text('worked');
    }),
    tool('slow', (_args, ctx) => {
      probe.slowStarted++;
      return new Promise<ToolResult>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          probe.slowAborted++;
          resolve(text('aborted'));
        });
        probe.releaseSlow.push(() => resolve(text('finished')));
      });
    }),
    tool('late', async (_args, ctx) => {
      // Reports progress after it has returned: the core must drop it.
      setTimeout(() => ctx.progress(99), 5);
      return text('done');
    }),
    tool('boom', async () => {
      throw new Error('secret internal detail');
    }),
  ];
}

const staticResource: CatalogResource = {
  descriptor: { uri: 'test://static', name: 'static', mimeType: 'text/plain' },
  read: async () => [{ uri: 'test://static', mimeType: 'text/plain', text: 'static text' }],
  updates: true,
};

const brokenResource: CatalogResource = {
  descriptor: { uri: 'test://broken', name: 'broken' },
  read: async () => {
    throw new Error('disk on fire');
  },
};

const ITEMS = ['alpha', 'beta', 'gamma'];

const itemTemplate: CatalogTemplate = {
  descriptor: { uriTemplate: 'test://items/{id}', name: 'item' },
  match: (uri) => {
    const m = /^test:\/\/items\/([^/]+)$/.exec(uri);
    return m ? { id: m[1]! } : undefined;
  },
  read: async (uri, vars) => {
    if (vars.id === 'missing') throw new ResourceNotFound(uri);
    if (vars.id === 'bad') throw new InvalidRequestParams('id "bad" is not allowed');
    return [{ uri, text: `item ${vars.id}` }];
  },
  complete: async (variable, prefix) => (variable === 'id' ? ITEMS.filter((i) => i.startsWith(prefix)) : []),
};

const greet: CatalogPrompt = {
  descriptor: { name: 'greet', arguments: [{ name: 'name', required: true }, { name: 'style' }] },
  get: async (args) => {
    if (args.name === undefined) throw new InvalidRequestParams('Missing required argument: name');
    return {
      description: 'A greeting',
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.name}` } }],
    };
  },
  complete: async (argument, prefix, context) =>
    argument === 'name'
      ? ['ada', 'alan', 'grace'].filter((n) => n.startsWith(prefix)).map((n) => (context.style ? `${n}!` : n))
      : [],
};

const many: CatalogPrompt = {
  descriptor: { name: 'many' },
  get: async () => ({ messages: [] }),
  complete: async () => Array.from({ length: 150 }, (_, i) => `v${i}`),
};

export interface Fixture {
  readonly ref: CatalogRef;
  readonly catalog: Catalog;
  readonly probe: FixtureProbe;
}

export function makeCatalog(probe: FixtureProbe, overrides: Partial<Catalog> = {}): Catalog {
  return {
    server: { name: 'fixture', version: '1.2.3', title: 'Fixture Server', instructions: 'Use the tools.' },
    tools: new Map(makeTools(probe)),
    resources: new Map([
      ['test://static', staticResource],
      ['test://broken', brokenResource],
    ]),
    templates: [itemTemplate],
    skills: new Map(),
    prompts: new Map([
      ['greet', greet],
      ['many', many],
    ]),
    pageSize: 2,
    dispose: async () => {},
    ...overrides,
  };
}

export function makeFixture(overrides: Partial<Catalog> = {}): Fixture {
  const probe: FixtureProbe = { slowStarted: 0, slowAborted: 0, releaseSlow: [] };
  const catalog = makeCatalog(probe, overrides);
  return { ref: new CatalogRef(catalog), catalog, probe };
}
