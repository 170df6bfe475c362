/**
 * Drives a served manifest through edits: writes a file, waits for the server to log that the reload
 * finished (or failed, or found nothing to do), then makes a request, so every notification the
 * reload caused has reached the client before the test looks (stdout is ordered).
 */
import { writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** Matches the one line every reload logs at debug level or above. */
const RELOAD_LINE = /^mcp-run: (?:error: |debug: )?(?:reloaded |reload of )/gm;

export class ServerLog {
  text = '';
  constructor(stderr: Readable | null) {
    if (!stderr) throw new Error('start the transport with stderr: "pipe"');
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.text += chunk;
    });
  }

  reloads(): number {
    return this.text.match(RELOAD_LINE)?.length ?? 0;
  }

  async waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; server log:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Writes `content` to `file` and resolves once the server has logged the reload it caused. */
  async edit(file: string, content: string): Promise<void> {
    const before = this.reloads();
    writeFileSync(file, content);
    await this.waitFor(() => this.reloads() > before, `a reload after editing ${file}`);
  }
}
