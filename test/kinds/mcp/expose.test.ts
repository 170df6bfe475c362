/**
 * `expose:` and the `kind: mcp` entries through the real compile pipeline, against a real upstream
 * (the v1 server library's small probe, test/fixtures/mcp-upstream/probe.mjs, over stdio): names,
 * filters, overrides, collisions reported at the source's line, upstream names that are not valid
 * manifest names left out, output shaping, and the upstream killed when the catalog is disposed.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../../src/catalog/compile.js';
import type { Catalog } from '../../../src/catalog/types.js';
import { type Diagnostic, ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { globMatcher } from '../../../src/kinds/mcp/expose.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { alive } from '../../helpers/process-tree.js';
import { callContext, tempDir } from '../context.js';

type Json = Record<string, any>;
const PROBE = join(import.meta.dirname, '../../fixtures/mcp-upstream/probe.mjs');
const ODD = join(import.meta.dirname, '../../fixtures/mcp-upstream/odd-lists.mjs');
const EVERYTHING = join(
  import.meta.dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const probeSource = (extra = '') => `
sources:
  probe:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(PROBE)}]
${extra}`;

async function compile(yaml: string, warnings: Diagnostic[] = []): Promise<Catalog> {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'), {
    onWarning: (w) => warnings.push(w),
  });
}

async function problemsOf(yaml: string): Promise<Diagnostic[]> {
  try {
    const catalog = await compile(yaml);
    await catalog.dispose();
  } catch (err) {
    if (err instanceof ManifestError) return [...err.diagnostics];
    throw err;
  }
  assert.fail('the manifest compiled');
}

describe('globMatcher', () => {
  test('* is any run, ? one character, everything else literal', () => {
    assert.equal(globMatcher('read_*')('read_text_file'), true);
    assert.equal(globMatcher('read_*')('write_file'), false);
    assert.equal(globMatcher('get-?um')('get-sum'), true);
    assert.equal(globMatcher('a.b')('axb'), false);
    assert.equal(globMatcher('(x)')('(x)'), true);
    assert.equal(globMatcher('*')('anything at all'), true);
  });
});

describe('expose and kind: mcp entries, compiled against a live upstream', () => {
  test('prefix, include, exclude and overrides decide the names; nothing else exists', async () => {
    const catalog = await compile(
      probeSource(`    expose:
      tools:
        include: ['*']
        exclude: [wait, ex*, big, ask_roots]
        prefix: up_
        overrides: { pid: { name: whoami, title: Who am I, annotations: { readOnlyHint: true } } }
`),
    );
    try {
      assert.deepEqual([...catalog.tools.keys()], ['whoami']);
      const whoami = catalog.tools.get('whoami')!;
      assert.equal(whoami.descriptor.title, 'Who am I');
      assert.equal(whoami.descriptor.description, 'This process id.');
      assert.equal(whoami.descriptor.annotations?.readOnlyHint, true);
      const result = await whoami.call({}, callContext());
      assert.equal(typeof (result.structuredContent as Json).pid, 'number');
    } finally {
      await catalog.dispose();
    }
  });

  test("an exposed name the manifest declares too keeps the manifest's entry; the upstream's is left out with a warning at the source", async () => {
    const warnings: Diagnostic[] = [];
    const catalog = await compile(
      `${probeSource(`    expose:
      tools: { prefix: p_ }
`)}tools:
  p_pid: { kind: content, content: [{ text: mine }] }
`,
      warnings,
    );
    try {
      assert.equal(catalog.tools.get('p_pid')!.descriptor.description, undefined);
      const mine = await catalog.tools.get('p_pid')!.call({}, callContext());
      assert.equal((mine.content[0] as Json).text, 'mine');
      assert.ok(catalog.tools.has('p_wait'), 'the rest is served');
      const taken = warnings.filter((w) => /is left out/.test(w.message));
      assert.deepEqual(
        taken.map((w) => [w.line, w.message]),
        [
          [
            7,
            `source probe's tool "pid" is left out: its name "p_pid" is taken by tools.p_pid of the manifest`,
          ],
        ],
      );
    } finally {
      await catalog.dispose();
    }
  });

  test("an upstream entry with an invalid schema or a bad URI template, or another source's name, is left out; the rest is served", async () => {
    const warnings: Diagnostic[] = [];
    const odd = (name: string, names: string) => `  ${name}:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ODD)}]
    env: { ODD_NAMES: "${names}" }
    expose: { tools: {}, resources: {} }
`;
    const catalog = await compile(
      `sources:\n${odd('first', 'shared')}${odd('second', 'shared,own')}`,
      warnings,
    );
    try {
      assert.deepEqual([...catalog.tools.keys()].sort(), ['fine', 'own', 'shared']);
      assert.deepEqual([...catalog.resources.keys()], ['odd://fine']);
      assert.deepEqual(catalog.templates, []);
      const shared = await catalog.tools.get('shared')!.call({}, callContext());
      assert.equal((shared.content[0] as Json).text, 'shared');
      const said = warnings.map((w) => w.message).join('\n');
      assert.match(said, /source first's tool "broken_schema" is left out: /);
      assert.match(said, /source first's resource template "odd:\/\/\\u001b\[2J\{unclosed" is left out: /);
      assert.match(
        said,
        /source second's tool "shared" is left out: its name "shared" is taken by the tool first added/,
      );
      assert.match(said, /source second's tool "fine" is left out/);
      assert.ok(!said.includes('\u001b'), 'no terminal escape reaches a warning');
      assert.ok(warnings.every((w) => w.severity === 'warning'));
    } finally {
      await catalog.dispose();
    }
  });

  test('an upstream name that is no valid manifest name is left out with a warning', async () => {
    const warnings: Diagnostic[] = [];
    const catalog = await compile(
      probeSource(`    expose:
      tools: { overrides: { pid: { name: "who am i" } } }
`),
      warnings,
    );
    try {
      assert.deepEqual([...catalog.tools.keys()], ['wait', 'big', 'ask_roots', 'exit']);
      assert.match(warnings.map((w) => w.message).join('\n'), /not a valid manifest name/);
    } finally {
      await catalog.dispose();
    }
  });

  test('a tool, resource or prompt the upstream does not list is UPSTREAM_ENTRY_UNKNOWN', async () => {
    const found = await problemsOf(
      `${probeSource()}tools:
  who: { kind: mcp, source: probe, tool: pdi }
prompts:
  nothing: { kind: mcp, source: probe, prompt: none }
`,
    );
    assert.deepEqual(
      found.map((d) => [d.code, d.line]),
      [
        ['UPSTREAM_ENTRY_UNKNOWN', 7],
        ['UPSTREAM_ENTRY_UNKNOWN', 9],
      ],
    );
    assert.match(found[0]!.message, /did you mean "pid"/);
    assert.match(found[1]!.hint ?? '', /lists no prompts/);
  });

  test('command and url together, or neither, is an error', async () => {
    const found = await problemsOf(`
sources:
  both: { kind: mcp, command: [node], url: "http://127.0.0.1:1/mcp" }
`);
    assert.equal(found[0]?.code, 'MANIFEST_INVALID_VALUE');
    assert.match(found[0]!.message, /either `command:`/);
  });

  test('output.pick shapes the structured result', async () => {
    const catalog = await compile(
      `${probeSource()}tools:
  pid_only: { kind: mcp, source: probe, tool: pid, output: { pick: pid } }
`,
    );
    try {
      const result = await catalog.tools.get('pid_only')!.call({}, callContext());
      assert.equal(typeof (result.structuredContent as Json).result, 'number');
      assert.match((result.content[0] as Json).text, /^\d+$/);
    } finally {
      await catalog.dispose();
    }
  });

  test('disposing the catalog kills the upstream process and the process it started', async () => {
    const record = join(tempDir(), 'child.log');
    writeFileSync(record, '');
    const catalog = await compile(
      `${probeSource(`    env: { PROBE_CHILD: ${JSON.stringify(record)} }\n`)}tools:\n  who: { kind: mcp, source: probe, tool: pid }\n`,
    );
    const result = await catalog.tools.get('who')!.call({}, callContext());
    const pid = (result.structuredContent as Json).pid as number;
    const child = Number(/child (\d+)/.exec(readFileSync(record, 'utf8'))?.[1]);
    assert.ok(alive(pid) && alive(child));
    await catalog.dispose();
    assert.equal(alive(pid), false, 'the upstream is gone');
    assert.equal(alive(child), false, 'the process it started is gone too');
  });

  test('start: first-use reads the lists, stops the upstream, and starts it on the first call', async () => {
    const log = join(tempDir(), 'probe.log');
    writeFileSync(log, '');
    const catalog = await compile(`
sources:
  probe:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(PROBE)}]
    env: { PROBE_LOG: ${JSON.stringify(log)} }
    start: first-use
tools:
  who: { kind: mcp, source: probe, tool: pid }
`);
    const started = () => [...readFileSync(log, 'utf8').matchAll(/started (\d+)/g)].map((m) => Number(m[1]));
    try {
      assert.equal(catalog.tools.get('who')!.descriptor.description, 'This process id.');
      const [lister] = started();
      assert.ok(lister);
      for (let i = 0; i < 50 && alive(lister); i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(lister), false, 'the upstream that listed its tools was stopped');
      const result = await catalog.tools.get('who')!.call({}, callContext());
      const pid = (result.structuredContent as Json).pid as number;
      assert.notEqual(pid, lister);
      assert.deepEqual(started(), [lister, pid]);
    } finally {
      await catalog.dispose();
    }
  });
});

describe("the upstream's own requests", () => {
  test('roots/list is answered by mcp-run: -32601 without `roots:`, never left hanging', async () => {
    const catalog = await compile(probeSource(`    expose: { tools: { include: [ask_roots] } }\n`));
    try {
      const result = await catalog.tools.get('ask_roots')!.call({}, callContext());
      assert.match((result.content[0] as Json).text, /^refused: -32601 .*declared no roots/);
    } finally {
      await catalog.dispose();
    }
  });

  test("roots/list is answered with the source's `roots:`: a path resolved from the manifest, a file:// URI as written", async () => {
    const catalog = await compile(
      probeSource(
        `    roots: [shared/docs, "file:///srv/data"]\n    expose: { tools: { include: [ask_roots] } }\n`,
      ),
    );
    try {
      const result = await catalog.tools.get('ask_roots')!.call({}, callContext());
      const text = (result.content[0] as Json).text as string;
      const roots = JSON.parse(text.replace(/^roots: /, '')).roots as Json[];
      assert.equal(roots.length, 2, text);
      assert.match(roots[0]!.uri, /^file:\/\/\/.*\/shared\/docs$/);
      assert.equal(roots[0]!.name, 'shared/docs');
      assert.equal(roots[1]!.uri, 'file:///srv/data');
    } finally {
      await catalog.dispose();
    }
  });
});

describe('time limits and the concurrency cap', () => {
  test('an upstream that never answers initialize fails the open within connectTimeoutMs, and is killed', async () => {
    const record = join(tempDir(), 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(record)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const found = await problemsOf(`
sources:
  mute:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(script)}]
    connectTimeoutMs: 500
`);
    assert.equal(found[0]?.code, 'SOURCE_OPEN_FAILED');
    assert.match(found[0]!.message, /did not answer initialize within 500 ms/);
    assert.equal(alive(Number(readFileSync(record, 'utf8'))), false);
  });

  test('a call over timeoutMs fails, and the upstream is told to cancel it', async () => {
    const log = join(tempDir(), 'probe.log');
    writeFileSync(log, '');
    const catalog = await compile(
      probeSource(`    timeoutMs: 500
    env: { PROBE_LOG: ${JSON.stringify(log)} }
    expose: { tools: { include: [wait] } }
`),
    );
    try {
      const result = await catalog.tools.get('wait')!.call({ tag: 'slow' }, callContext());
      assert.equal(result.isError, true);
      assert.match((result.content[0] as Json).text, /did not answer tools\/call within 500 ms/);
      for (let i = 0; i < 50 && !readFileSync(log, 'utf8').includes('cancelled slow'); i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.match(readFileSync(log, 'utf8'), /cancelled slow/);
    } finally {
      await catalog.dispose();
    }
  });

  test('maxConcurrency: a call over the cap waits, then fails with a sentence that says to retry', async () => {
    const catalog = await compile(
      probeSource(`    maxConcurrency: 1
    expose: { tools: { include: [wait, pid] } }
`),
    );
    const first = new AbortController();
    try {
      const waiting = catalog.tools.get('wait')!.call({ tag: 'holder' }, callContext(first.signal));
      const refused = await catalog.tools.get('pid')!.call({}, callContext());
      assert.equal(refused.isError, true);
      assert.match((refused.content[0] as Json).text, /busy \(1 requests running\); try again/);
      first.abort();
      await waiting;
      const served = await catalog.tools.get('pid')!.call({}, callContext());
      assert.notEqual(served.isError, true);
    } finally {
      first.abort();
      await catalog.dispose();
    }
  });
});

describe('byte budgets on what an upstream sends', () => {
  test('a result over maxResultBytes fails its call; over maxMessageBytes the upstream restarts', async () => {
    const catalog = await compile(
      probeSource(`    maxResultBytes: 4096
    maxMessageBytes: 65536
    expose: { tools: { include: [big, pid] } }
`),
    );
    try {
      const big = catalog.tools.get('big')!;
      const pid = catalog.tools.get('pid')!;
      const small = await big.call({ size: 100 }, callContext());
      assert.notEqual(small.isError, true);
      const over = await big.call({ size: 8000 }, callContext());
      assert.equal(over.isError, true);
      assert.match((over.content[0] as Json).text, /maxResultBytes \(4096\)/);
      const before = ((await pid.call({}, callContext())).structuredContent as Json).pid;
      const huge = await big.call({ size: 100_000 }, callContext());
      assert.equal(huge.isError, true);
      assert.match((huge.content[0] as Json).text, /maxMessageBytes \(65536\)/);
      let after = before;
      for (let i = 0; i < 50 && after === before; i++) {
        const r = await pid.call({}, callContext());
        if (r.isError !== true) after = (r.structuredContent as Json).pid;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.notEqual(after, before);
    } finally {
      await catalog.dispose();
    }
  });
});

describe('a line that never ends', () => {
  test('past maxMessageBytes the upstream is restarted at once: the call fails with its reason, not its timeout', async () => {
    const catalog = await compile(`
sources:
  odd:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ODD)}]
    env: { ODD_ENDLESS: "1" }
    maxMessageBytes: 65536
    timeoutMs: 30000
    expose: { tools: { include: [endless, fine] } }
`);
    try {
      const endless = await catalog.tools.get('endless')!.call({}, callContext());
      assert.equal(endless.isError, true);
      assert.match((endless.content[0] as Json).text, /over its maxMessageBytes \(65536\) and was restarted/);
      let fine = await catalog.tools.get('fine')!.call({}, callContext());
      for (let i = 0; i < 50 && fine.isError === true; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        fine = await catalog.tools.get('fine')!.call({}, callContext());
      }
      assert.equal((fine.content[0] as Json).text, 'fine', 'the restarted upstream serves');
    } finally {
      await catalog.dispose();
    }
  });
});

describe('a whole reference server exposed: resources and prompts too', () => {
  test('a resource whose display name is no manifest name is served all the same, under a name made from it', async () => {
    const warnings: Diagnostic[] = [];
    const catalog = await compile(
      `
sources:
  ev:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose:
      resources: { include: ["Dynamic Text*"] }
`,
      warnings,
    );
    try {
      assert.deepEqual(
        catalog.templates.map((t) => [t.descriptor.name, t.descriptor.uriTemplate]),
        [['Dynamic Text Resource', 'demo://resource/dynamic/text/{resourceId}']],
      );
      assert.doesNotMatch(warnings.map((w) => w.message).join('\n'), /not a valid manifest name/);
    } finally {
      await catalog.dispose();
    }
  });

  test('server-everything with prefixes: the names are served, the contents read through, a template too', async () => {
    const catalog = await compile(`
sources:
  ev:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose:
      resources:
        include: ["*architecture*", "features.md", "Dynamic Text*"]
        prefix: ev_
        overrides: { Dynamic Text Resource: { name: dyn_text } }
      prompts: { exclude: [completable-prompt, resource-prompt], overrides: { args-prompt: { name: weather } } }
`);
    try {
      assert.deepEqual([...catalog.prompts.keys()].sort(), ['simple-prompt', 'weather']);
      const uris = [...catalog.resources.keys()].sort();
      assert.deepEqual(uris, [
        'demo://resource/static/document/architecture.md',
        'demo://resource/static/document/features.md',
      ]);
      assert.deepEqual(
        catalog.templates.map((t) => [t.descriptor.name, t.descriptor.uriTemplate]),
        [['Dynamic Text Resource', 'demo://resource/dynamic/text/{resourceId}']],
      );
      const template = catalog.templates[0]!;
      const vars = template.match('demo://resource/dynamic/text/3')!;
      assert.deepEqual(vars, { resourceId: '3' });
      const [dynamic] = await template.read(
        'demo://resource/dynamic/text/3',
        vars,
        new AbortController().signal,
      );
      assert.match(String((dynamic as Json).text), /3/);
      const [contents] = await catalog.resources.get(uris[0]!)!.read(new AbortController().signal);
      assert.match(String((contents as Json).text), /\S/);
      const weather = catalog.prompts.get('weather')!;
      assert.deepEqual(
        weather.descriptor.arguments?.map((a) => [a.name, a.required === true]),
        [
          ['city', true],
          ['state', false],
        ],
      );
      const got = await weather.get({ city: 'Lyon' }, new AbortController().signal);
      assert.match(JSON.stringify(got.messages), /Lyon/);
      await assert.rejects(weather.get({}, new AbortController().signal), /city/);
    } finally {
      await catalog.dispose();
    }
  });
});

describe('fromClaim on a kind: mcp tool', () => {
  test("the bound argument is hidden, filled from the caller's claim, and a caller cannot set it", async () => {
    const catalog = await compile(`
sources:
  ev:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]
tools:
  whoami:
    kind: mcp
    source: ev
    tool: echo
    input:
      message: { type: string, fromClaim: email }
`);
    const identity = {
      issuer: 'https://issuer.example',
      subject: 'u1',
      claims: { email: 'ada@example.test' },
      expiresAt: undefined,
      accessToken: () => 'the-callers-token',
    };
    try {
      const tool = catalog.tools.get('whoami')!;
      assert.deepEqual(Object.keys((tool.descriptor.inputSchema as Json).properties), []);
      const result = await tool.call({}, { ...callContext(), identity });
      assert.match((result.content[0] as Json).text, /ada@example\.test/);
      const set = await tool.call({ message: 'mallory@example.test' }, { ...callContext(), identity });
      assert.equal(set.isError, true);
      assert.doesNotMatch(JSON.stringify(set), /Echo: mallory/);
    } finally {
      await catalog.dispose();
    }
  });
});
