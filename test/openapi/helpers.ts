/**
 * Test helpers for the OpenAPI import: import a document written in the test (or a fixture), render
 * the manifest, and compile it with the real kinds, so a test can call the tools against a real
 * HTTP server on 127.0.0.1.
 */
import { join } from 'node:path';
import { compileCatalog } from '../../src/catalog/compile.js';
import type { Catalog, ToolResult } from '../../src/catalog/types.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifestText } from '../../src/manifest/load.js';
import { renderManifest, toText } from '../../src/openapi/document.js';
import { type Generated, generate, type ImportOptions } from '../../src/openapi/generate.js';
import { loadSpec } from '../../src/openapi/load.js';
import { REPO, tempFiles } from '../helpers/demo.js';

export const FIXTURES = join(REPO, 'test/openapi/fixtures');

/** The manifest text of a generated import, as `mcp-run import openapi` prints it. */
export function render(gen: Generated): string {
  return toText(
    renderManifest(gen, {
      schemaLine: 'yaml-language-server: $schema=./schemas/manifest.schema.json',
      command: 'mcp-run import openapi spec.yaml',
      specLabel: 'spec.yaml',
    }),
  );
}

/** Imports a document given as text (YAML or JSON). */
export function importText(spec: string, options: ImportOptions = {}, name = 'spec.yaml'): Generated {
  const files = tempFiles({ [name]: spec });
  try {
    return generate(loadSpec(join(files.dir, name)), options);
  } finally {
    files.cleanup();
  }
}

export const importFixture = (name: string, options: ImportOptions = {}): Generated =>
  generate(loadSpec(join(FIXTURES, name)), options);

/** One generated tool's config by name (fails the test when it is missing). */
export function tool(gen: Generated, name: string): Record<string, any> {
  const found = gen.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}; tools: ${gen.tools.map((t) => t.name).join(', ')}`);
  return found.config as Record<string, any>;
}

/** The manifest compiled with the real kinds (every check `mcp-run validate` makes). */
export async function compile(gen: Generated, env: NodeJS.ProcessEnv): Promise<Catalog> {
  const registry = builtinKinds();
  const manifest = loadManifestText(render(gen), join(REPO, 'mcp.yaml'), registry, env);
  return compileCatalog(manifest, registry, new StderrLogger('silent'));
}

export async function call(
  catalog: Catalog,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  const found = catalog.tools.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.call(args, { signal: new AbortController().signal, progress() {}, log() {} });
}
