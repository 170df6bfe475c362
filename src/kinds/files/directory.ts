/**
 * Resource `directory`: one resource per file of a folder that matches a glob. The folder is
 * listed when the manifest compiles; symlinks that resolve outside it are skipped, dotfiles too
 * unless the glob spells the dot, and every read checks containment again.
 *
 * @example
 * ```yaml
 * resources:
 *   docs: { kind: directory, path: ./docs, glob: "*.{md,txt}", uri: "docs://" }
 * ```
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { problems } from '../../errors.js';
import type { Logger, ResourceKind } from '../contract/kinds.js';
import { type CatalogResource, ResourceNotFound } from '../contract/types.js';
import { compact } from '../shared/compact.js';
import { mimeFromPath, toContents } from '../shared/mime.js';
import { fileUri, readInside, realpathInside } from '../shared/paths.js';
import { trackErrors } from '../shared/tracked-context.js';
import { hasScheme } from '../shared/uri-template.js';
import { DEFAULT_MAX_BYTES } from './defaults.js';
import { DEFAULT_MAX_FILES, directoryResourceInfo } from './directory.info.js';
import { compileGlob, type Glob } from './glob.js';

export interface DirectoryResourceConfig {
  readonly path: string;
  readonly glob?: string;
  readonly uri?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly maxBytes?: number;
  readonly maxFiles?: number;
}

export const directoryResource: ResourceKind<DirectoryResourceConfig> = {
  ...directoryResourceInfo,

  async compile(config, ctx) {
    const { ctx: tracked, failed } = trackErrors(ctx);
    let realRoot: string | undefined;
    try {
      realRoot = await realpath(resolve(ctx.baseDir, config.path));
      if (!(await stat(realRoot)).isDirectory()) {
        tracked.error(
          ['path'],
          problems.MANIFEST_INVALID_VALUE(
            `${JSON.stringify(config.path)} is not a folder`,
            'use kind: file for one file',
          ),
        );
      }
    } catch {
      tracked.error(['path'], problems.PATH_NOT_FOUND(config.path));
    }
    let glob: Glob | undefined;
    try {
      glob = compileGlob(config.glob ?? '**/*');
    } catch (err) {
      tracked.error(['glob'], problems.MANIFEST_INVALID_VALUE(`invalid glob: ${(err as Error).message}`));
    }
    if (config.uri !== undefined && !hasScheme(config.uri)) {
      tracked.error(
        ['uri'],
        problems.MANIFEST_INVALID_VALUE(
          `the URI prefix ${JSON.stringify(config.uri)} has no scheme`,
          'write e.g. docs://',
        ),
      );
    }
    if (failed() || !realRoot || !glob) return undefined;

    const maxFiles = config.maxFiles ?? DEFAULT_MAX_FILES;
    const { files, more } = await listFiles(realRoot, glob, maxFiles, ctx.log);
    if (more)
      ctx.log.warn(
        `resource ${ctx.name}: more than ${maxFiles} files match; serving the first ${maxFiles} (raise maxFiles)`,
      );
    if (files.length === 0)
      ctx.log.warn(`resource ${ctx.name}: no file in ${config.path} matches ${glob.pattern}`);

    const base = config.uri ?? `${fileUri(realRoot)}/`;
    const prefix = base.endsWith('/') ? base : `${base}/`;
    const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
    const root = realRoot;
    ctx.watch(root);
    const resources = files.map(({ relative, size }): CatalogResource => {
      const uri = prefix + relative.split('/').map(encodeURIComponent).join('/');
      ctx.watch(join(root, relative), uri);
      const mimeType = config.mimeType ?? mimeFromPath(relative);
      return {
        descriptor: compact({ uri, name: relative, description: config.description, mimeType, size }),
        // Each file is watched with its URI (above): an edit tells the subscribers.
        updates: true,
        async read() {
          const bytes = await readInside(root, join(root, relative), maxBytes, uri);
          if (!bytes) throw new ResourceNotFound(uri);
          return [toContents(uri, mimeType, bytes)];
        },
      };
    });
    return { resources, templates: [] };
  },
};

interface Listed {
  readonly relative: string;
  readonly size: number;
}

/**
 * Walks the folder in name order. Symlinks are followed only when they resolve inside the root;
 * each real folder is visited once, so a link back up the tree cannot loop.
 */
async function listFiles(root: string, glob: Glob, maxFiles: number, log: Logger) {
  const files: Listed[] = [];
  const visited = new Set<string>([root]);
  let more = false;

  const visit = async (dir: string, relativeDir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (more) return;
      if (entry.name.startsWith('.') && !glob.namesDotfiles) continue;
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      let real = join(dir, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await realpathInside(root, real);
        if (target === undefined) {
          log.debug(`skipping ${relative}: a symlink that leads outside ${root} (or nowhere)`);
          continue;
        }
        const info = await stat(target);
        real = target;
        isDirectory = info.isDirectory();
        isFile = info.isFile();
      }
      if (isDirectory) {
        if (visited.has(real)) continue;
        visited.add(real);
        await visit(real, relative);
      } else if (isFile && glob.matches(relative)) {
        if (files.length >= maxFiles) {
          more = true;
          return;
        }
        files.push({ relative, size: (await stat(real)).size });
      }
    }
  };
  await visit(root, '');
  return { files, more };
}
