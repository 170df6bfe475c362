/**
 * MIME types by file extension, and the text-or-blob decision for resource contents.
 */
import { extname } from 'node:path';
import type { ResourceContents } from '../contract/types.js';

const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.xml': 'application/xml',
  '.sql': 'application/sql',
  '.js': 'application/javascript',
  '.mjs': 'application/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.zip': 'application/zip',
};

/** The MIME type for a file name, or undefined when the extension is not known. */
export function mimeFromPath(path: string): string | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

const TEXT_APPLICATION = new Set([
  'application/json',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/sql',
]);

export function isTextMime(mime: string): boolean {
  const type = mime.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') || TEXT_APPLICATION.has(type) || type.endsWith('+json') || type.endsWith('+xml')
  );
}

/** Made on first use: a decoder costs a start about 0.2 ms, and most never serve a file. */
let strictUtf8: InstanceType<typeof TextDecoder> | undefined;

/**
 * Resource contents for bytes: `text` for text MIME types, base64 `blob` otherwise. With no known
 * type, bytes that are valid UTF-8 without NUL are served as text (READMEs, Makefiles, licences).
 */
export function toContents(uri: string, mimeType: string | undefined, bytes: Buffer): ResourceContents {
  if (mimeType === undefined) {
    const text = decodeText(bytes);
    return text === undefined ? { uri, blob: bytes.toString('base64') } : { uri, text };
  }
  if (isTextMime(mimeType)) return { uri, mimeType, text: bytes.toString('utf8') };
  return { uri, mimeType, blob: bytes.toString('base64') };
}

function decodeText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    strictUtf8 ??= new TextDecoder('utf-8', { fatal: true });
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
