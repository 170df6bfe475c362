/**
 * Resource `file`: one file, or (when `uri` has `{var}`s) a resource template mapping URIs onto
 * files. Every read resolves the path again with `realpath` and refuses anything outside `root`,
 * so a file later replaced by a symlink, or a `..` smuggled in through a variable, is not served.
 *
 * @example
 * ```yaml
 * resources:
 *   handbook: { kind: file, path: ./docs/handbook.md, description: The support handbook }
 *   notes:
 *     kind: file
 *     uri: notes://{name}
 *     path: ./notes/{name}.md
 *     variables:
 *       name: { description: The note, complete: [todo, ideas] }
 * ```
 */
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { problems } from '../../errors.js';
import type { EntryContext, ResourceKind } from '../contract/kinds.js';
import { ResourceNotFound } from '../contract/types.js';
import { compact } from '../shared/compact.js';
import { mimeFromPath, toContents } from '../shared/mime.js';
import { fileUri, isInside, readInside } from '../shared/paths.js';
import { trackErrors } from '../shared/tracked-context.js';
import {
  hasScheme,
  hasTemplateVariables,
  isSafePathValue,
  parsePathTemplate,
  parseUriTemplate,
  type UriTemplate,
} from '../shared/uri-template.js';
import {
  completeFrom,
  completionList,
  optionalHints,
  ownEntry,
  type VariableConfig,
} from '../shared/variables.js';
import { DEFAULT_MAX_BYTES } from './defaults.js';
import { fileResourceInfo } from './file.info.js';

export interface FileResourceConfig {
  readonly path: string;
  readonly uri?: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly root?: string;
  readonly maxBytes?: number;
  readonly variables?: Readonly<Record<string, VariableConfig>>;
}

export const fileResource: ResourceKind<FileResourceConfig> = {
  ...fileResourceInfo,

  async compile(config, ctx) {
    let realRoot: string;
    try {
      realRoot = await realpath(resolve(ctx.baseDir, config.root ?? '.'));
    } catch {
      ctx.error(['root'], problems.PATH_NOT_FOUND(config.root ?? '.'));
      return undefined;
    }
    if (config.uri !== undefined && !hasScheme(config.uri)) {
      ctx.error(
        ['uri'],
        problems.MANIFEST_INVALID_VALUE(
          `the URI ${JSON.stringify(config.uri)} has no scheme`,
          'write e.g. docs://handbook.md',
        ),
      );
      return undefined;
    }
    if (config.uri !== undefined && hasTemplateVariables(config.uri)) {
      return compileTemplate(config, config.uri, realRoot, ctx);
    }
    return compileStatic(config, realRoot, ctx);
  },
};

async function compileStatic(config: FileResourceConfig, realRoot: string, ctx: EntryContext) {
  if (config.variables !== undefined) {
    ctx.error(
      ['variables'],
      problems.MANIFEST_INVALID_VALUE('variables apply only when uri has {variables}'),
    );
  }
  const file = resolve(ctx.baseDir, config.path);
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    ctx.error(
      ['path'],
      hasTemplateVariables(config.path)
        ? problems.URI_TEMPLATE_INVALID(`path has {variables} but uri has none; set uri, e.g. docs://{name}`)
        : problems.PATH_NOT_FOUND(config.path),
    );
    return undefined;
  }
  if (!isInside(realRoot, real)) {
    ctx.error(['path'], problems.PATH_OUTSIDE_ROOT(config.path, realRoot));
    return undefined;
  }
  const info = await stat(real);
  if (!info.isFile()) {
    ctx.error(
      ['path'],
      problems.MANIFEST_INVALID_VALUE(
        `${JSON.stringify(config.path)} is not a file`,
        'use kind: directory for a folder',
      ),
    );
    return undefined;
  }
  if (config.variables !== undefined) return undefined;

  const uri = config.uri ?? fileUri(real);
  ctx.watch(file, uri);
  const mimeType = config.mimeType ?? mimeFromPath(real);
  const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
  const descriptor = compact({
    uri,
    name: config.name ?? ctx.name,
    title: config.title,
    description: config.description,
    mimeType,
    size: info.size,
  });
  return {
    resources: [
      {
        descriptor,
        // The file is watched with this URI (above): an edit tells the subscribers.
        updates: true,
        async read() {
          const bytes = await readInside(realRoot, file, maxBytes, uri);
          if (!bytes) throw new ResourceNotFound(uri);
          return [toContents(uri, mimeType, bytes)];
        },
      },
    ],
    templates: [],
  };
}

function compileTemplate(config: FileResourceConfig, uri: string, realRoot: string, ctx: EntryContext) {
  let template: UriTemplate;
  try {
    template = parseUriTemplate(uri);
  } catch (err) {
    ctx.error(['uri'], problems.URI_TEMPLATE_INVALID((err as Error).message));
    return undefined;
  }
  const { ctx: tracked, failed } = trackErrors(ctx);
  const path = parsePathTemplate(config.path);
  for (const name of path.variables) {
    if (template.variables.includes(name)) continue;
    tracked.error(
      ['path'],
      problems.URI_TEMPLATE_INVALID(`path uses {${name}} but uri ${JSON.stringify(uri)} has no {${name}}`),
    );
  }
  for (const name of Object.keys(config.variables ?? {})) {
    if (template.variables.includes(name)) continue;
    tracked.error(
      ['variables', name],
      problems.URI_TEMPLATE_INVALID(`${JSON.stringify(name)} is not a variable of ${JSON.stringify(uri)}`),
    );
  }
  if (failed()) return undefined;

  const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
  const variables = config.variables ?? {};
  const descriptor = compact({
    uriTemplate: uri,
    name: config.name ?? ctx.name,
    title: config.title,
    description: config.description,
    mimeType: config.mimeType,
  });
  return {
    resources: [],
    templates: [
      {
        descriptor,
        ...optionalHints(variables),
        match: (candidate: string) => template.match(candidate),
        async read(requested: string, vars: Readonly<Record<string, string>>) {
          // Missing, outside the root and refused values all answer "not found": nothing is revealed.
          for (const name of template.variables) {
            const value = vars[name];
            const allowed = variables[name]?.enum;
            if (value === undefined || (allowed && !allowed.includes(value)))
              throw new ResourceNotFound(requested);
            if (path.variables.includes(name) && !isSafePathValue(value, template.reserved.has(name))) {
              throw new ResourceNotFound(requested);
            }
          }
          const file = resolve(ctx.baseDir, path.expand(vars));
          const bytes = await readInside(realRoot, file, maxBytes, requested);
          if (!bytes) throw new ResourceNotFound(requested);
          return [toContents(requested, config.mimeType ?? mimeFromPath(file), bytes)];
        },
        async complete(variable: string, prefix: string) {
          return completeFrom(completionList(ownEntry(variables, variable)), prefix);
        },
      },
    ],
  };
}
