/** Toolsets in the catalog (catalog/toolsets.ts): what each names, and the view its clients get. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { catalogView, toolsetScopes } from '../../src/catalog/toolsets.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { tempDir } from '../kinds/context.js';

async function catalogOf(yaml: string) {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

const MANIFEST = `
server: { defaultToolset: docs }
toolsets:
  billing: { tools: ["billing_*"], scopes: [billing] }
  docs: { resources: [handbook, page], prompts: [ask], tools: [status] }
  empty: { tools: ["nothing_*"] }
tools:
  billing_invoice: { kind: content, content: [{ text: i }] }
  billing_refund: { kind: content, content: [{ text: r }] }
  status: { kind: content, content: [{ text: ok }] }
resources:
  handbook: { kind: text, uri: "docs://handbook", text: Be kind., mirror: true }
  page: { kind: text, uri: "docs://page/{name}", text: "{{name}}" }
  other: { kind: text, uri: "docs://other", text: no }
prompts:
  ask: { messages: [{ text: Ask. }], mirror: true }
`;

describe('toolsets', () => {
  test("a view holds the toolset's members: patterns, resource entries with their templates, and mirrors", async () => {
    const catalog = await catalogOf(MANIFEST);
    const billing = catalogView(catalog, ['billing']);
    assert.deepEqual([...billing.tools.keys()], ['billing_invoice', 'billing_refund']);
    assert.equal(billing.resources.size, 0);
    const docs = catalogView(catalog, ['docs']);
    assert.deepEqual([...docs.tools.keys()], ['status', 'read_handbook', 'get_prompt_ask']);
    assert.deepEqual([...docs.resources.keys()], ['docs://handbook']);
    assert.deepEqual(
      docs.templates.map((t) => t.descriptor.uriTemplate),
      ['docs://page/{name}'],
    );
    assert.deepEqual([...docs.prompts.keys()], ['ask']);
    assert.equal(catalogView(catalog, ['empty']).tools.size, 0);
    // The union of two, and the same object for the same selection (its list pages stay cached).
    assert.equal(catalogView(catalog, ['billing', 'docs']).tools.size, 5);
    assert.equal(catalogView(catalog, ['billing']), billing);
  });

  test('no selection is the default toolset; scopes are those of the selection', async () => {
    const catalog = await catalogOf(MANIFEST);
    assert.equal(catalogView(catalog, undefined), catalogView(catalog, ['docs']));
    assert.deepEqual(toolsetScopes(catalog, ['billing']), ['billing']);
    assert.deepEqual(toolsetScopes(catalog, undefined), []);
    const everything = await catalogOf(MANIFEST.replace('server: { defaultToolset: docs }', ''));
    assert.equal(catalogView(everything, undefined), everything);
  });

  test('a wildcard under tools: matches declared tools only; a mirror joins by its entry or its exact name', async () => {
    const catalog = await catalogOf(`
server: { mirror: true }
toolsets:
  billing: { resources: [invoices], scopes: [billing] }
  support: { tools: ["*"], resources: [faq] }
  named: { tools: [read_invoices] }
tools:
  ticket: { kind: content, content: [{ text: t }] }
resources:
  invoices: { kind: text, uri: "db://invoices", text: owed }
  faq: { kind: text, uri: "docs://faq", text: ask }
`);
    assert.deepEqual([...catalogView(catalog, ['support']).tools.keys()], ['ticket', 'read_faq']);
    assert.deepEqual([...catalogView(catalog, ['billing']).tools.keys()], ['read_invoices']);
    assert.deepEqual([...catalogView(catalog, ['named']).tools.keys()], ['read_invoices']);
  });
});
