/**
 * Content written in the manifest: the items of a `content` tool and the messages of a `template`
 * prompt share one shape. Each item has exactly one of `text`, `image`, `audio`, `resource` or
 * `resourceLink`. Text and URIs are Handlebars templates over the arguments; files (images, audio,
 * embedded resources) are read once at compile time, inside the manifest folder after `realpath`,
 * capped in size, and base64-encoded once, so a call never touches the disk.
 */
import { closeSync, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { problems } from '../../errors.js';
import type { EntryPath, KindContext } from '../contract/kinds.js';
import type { ContentBlock, ResourceContents } from '../contract/types.js';
import { compact } from './compact.js';
import { isTextMime, mimeFromPath } from './mime.js';
import { isInside, OPEN_REGULAR_FLAGS } from './paths.js';
import { compileTemplate } from './template.js';
import { hasScheme } from './uri-template.js';

/** Largest file embedded in a result: every call carries it, base64-encoded. */
export const MAX_EMBEDDED_BYTES = 1024 * 1024;

export const CONTENT_KEYS = ['text', 'image', 'audio', 'resource', 'resourceLink'] as const;

export interface MediaConfig {
  readonly path: string;
  readonly mimeType?: string;
}

export interface ContentItemConfig {
  readonly text?: string;
  readonly image?: MediaConfig;
  readonly audio?: MediaConfig;
  readonly resource?: {
    readonly uri: string;
    readonly text?: string;
    readonly path?: string;
    readonly mimeType?: string;
  };
  readonly resourceLink?: {
    readonly uri: string;
    readonly name: string;
    readonly description?: string;
    readonly mimeType?: string;
  };
}

export type RenderContent = (args: Readonly<Record<string, unknown>>) => ContentBlock;

/**
 * Compiles one item whose path in the entry is `at`. Reports every problem and returns undefined
 * when there is any.
 */
export function compileContentItem(
  item: ContentItemConfig,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): RenderContent | undefined {
  const given = CONTENT_KEYS.filter((key) => item[key] !== undefined);
  if (given.length !== 1) {
    ctx.error(
      at,
      problems.MANIFEST_INVALID_VALUE(
        given.length === 0
          ? `expected one of ${CONTENT_KEYS.join(', ')}`
          : `expected only one of ${CONTENT_KEYS.join(', ')}; got ${given.join(' and ')}`,
        'write one content item per list entry',
      ),
    );
    return undefined;
  }
  if (item.text !== undefined) {
    const render = compileTemplate(item.text, declared, [...at, 'text'], ctx);
    return render && ((args) => ({ type: 'text', text: render(args) }));
  }
  if (item.image !== undefined || item.audio !== undefined) {
    const type = item.image !== undefined ? 'image' : 'audio';
    const file = embedFile(item[type]!, type, [...at, type], ctx);
    if (!file) return undefined;
    const block: ContentBlock = { type, data: file.bytes.toString('base64'), mimeType: file.mimeType };
    return () => block;
  }
  if (item.resource !== undefined) return compileResource(item.resource, declared, [...at, 'resource'], ctx);
  const link = item.resourceLink!;
  const uri = compileUri(link.uri, declared, [...at, 'resourceLink', 'uri'], ctx);
  return (
    uri &&
    ((args) =>
      compact({
        type: 'resource_link' as const,
        uri: uri(args),
        name: link.name,
        description: link.description,
        mimeType: link.mimeType,
      }))
  );
}

function compileResource(
  config: NonNullable<ContentItemConfig['resource']>,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): RenderContent | undefined {
  const uri = compileUri(config.uri, declared, [...at, 'uri'], ctx);
  if ((config.text === undefined) === (config.path === undefined)) {
    ctx.error(at, problems.MANIFEST_INVALID_VALUE('an embedded resource needs exactly one of text, path'));
    return undefined;
  }
  if (config.text !== undefined) {
    const text = compileTemplate(config.text, declared, [...at, 'text'], ctx);
    const mimeType = config.mimeType ?? 'text/plain';
    return (
      uri &&
      text &&
      ((args) => ({ type: 'resource', resource: { uri: uri(args), mimeType, text: text(args) } }))
    );
  }
  const file = embedFile({ path: config.path!, mimeType: config.mimeType }, 'resource', at, ctx);
  if (!uri || !file) return undefined;
  const { mimeType, bytes } = file;
  const body = isTextMime(mimeType) ? { text: bytes.toString('utf8') } : { blob: bytes.toString('base64') };
  return (args) => ({
    type: 'resource',
    resource: { uri: uri(args), mimeType, ...body } as ResourceContents,
  });
}

function compileUri(
  text: string,
  declared: readonly string[],
  at: EntryPath,
  ctx: KindContext,
): ((args: Readonly<Record<string, unknown>>) => string) | undefined {
  // A rendered URI is the caller's business; a literal one must at least have a scheme.
  if (!text.includes('{{') && !hasScheme(text)) {
    ctx.error(
      at,
      problems.MANIFEST_INVALID_VALUE(
        `the URI ${JSON.stringify(text)} has no scheme`,
        'write e.g. docs://handbook',
      ),
    );
    return undefined;
  }
  return compileTemplate(text, declared, at, ctx);
}

/**
 * Reads a file for embedding: it must resolve (after symlinks) inside the manifest folder, be a
 * regular file of at most MAX_EMBEDDED_BYTES, and have a MIME type of the expected family.
 */
function embedFile(
  config: MediaConfig,
  family: 'image' | 'audio' | 'resource',
  at: EntryPath,
  ctx: KindContext,
): { bytes: Buffer; mimeType: string } | undefined {
  let root: string;
  let real: string;
  try {
    root = realpathSync(ctx.baseDir);
    real = realpathSync(resolve(ctx.baseDir, config.path));
  } catch {
    ctx.error([...at, 'path'], problems.PATH_NOT_FOUND(config.path));
    return undefined;
  }
  if (!isInside(root, real)) {
    ctx.error([...at, 'path'], problems.PATH_OUTSIDE_ROOT(config.path, root));
    return undefined;
  }
  const bytes = readCapped(real);
  if (!Buffer.isBuffer(bytes)) {
    const hint = bytes.tooLarge
      ? 'serve large files as a file resource and point to them with resourceLink'
      : undefined;
    ctx.error(
      [...at, 'path'],
      problems.MANIFEST_INVALID_VALUE(`${JSON.stringify(config.path)} ${bytes.reason}`, hint),
    );
    return undefined;
  }
  const mimeType = config.mimeType ?? mimeFromPath(config.path);
  if (mimeType === undefined) {
    ctx.error(
      [...at, 'path'],
      problems.MANIFEST_INVALID_VALUE(
        `cannot tell the MIME type of ${JSON.stringify(config.path)} from its extension`,
        'set mimeType, e.g. mimeType: image/png',
      ),
    );
    return undefined;
  }
  if (family !== 'resource' && !mimeType.startsWith(`${family}/`)) {
    ctx.error(
      config.mimeType === undefined ? [...at, 'path'] : [...at, 'mimeType'],
      problems.MANIFEST_INVALID_VALUE(`expected an ${family}/… MIME type, got ${JSON.stringify(mimeType)}`),
    );
    return undefined;
  }
  return { bytes, mimeType };
}

/** The file's bytes, or why it cannot be embedded. O_NOFOLLOW refuses a symlink swapped in since realpath. */
function readCapped(real: string): Buffer | { reason: string; tooLarge?: boolean } {
  let fd: number;
  try {
    // Synchronous: a FIFO opened here would block the whole process, so it is refused before the
    // open, and the non-blocking open plus the fstat below close the race with a swap.
    if (!lstatSync(real).isFile()) return { reason: 'is not a file' };
    fd = openSync(real, OPEN_REGULAR_FLAGS);
  } catch (err) {
    return { reason: `cannot be opened: ${(err as Error).message}` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { reason: 'is not a file' };
    if (stat.size > MAX_EMBEDDED_BYTES) {
      const reason = `is ${stat.size} bytes, more than the ${MAX_EMBEDDED_BYTES}-byte cap for embedded content`;
      return { reason, tooLarge: true };
    }
    const buffer = Buffer.alloc(stat.size);
    let total = 0;
    while (total < buffer.length) {
      const read = readSync(fd, buffer, total, buffer.length - total, total);
      if (read === 0) break;
      total += read;
    }
    return buffer.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}
