/**
 * fs.readFile as a promise, without node:fs/promises: that is one more module for every start to
 * load (util/lazy-node.ts), for the manifest's read and the reloader's.
 */
import { readFile } from 'node:fs';

export function readFileAsync(path: string): Promise<Buffer>;
export function readFileAsync(path: string, encoding: 'utf8'): Promise<string>;
export function readFileAsync(path: string, encoding?: 'utf8'): Promise<string | Buffer> {
  return new Promise((resolve, reject) =>
    readFile(path, encoding ?? null, (err, data) => (err ? reject(err) : resolve(data))),
  );
}
