/**
 * A stdio client that stops reading must not make results pile up in the server's memory. A real
 * server process serves a 1 MiB file resource; the test sends 400 reads while it does not read the
 * server's stdout, samples the server's RSS from /proc, then reads everything: every answer arrives,
 * and the RSS stayed far below the 400 MiB the results would take if they were all buffered.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, tempFiles } from '../helpers/demo.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MIB = 1024 * 1024;
const REQUESTS = 400;
/**
 * Node's own footprint (~60 MiB) plus the 4 MiB high-water mark and the 16 results being built, and
 * room for garbage not yet collected while the backlog drains; unbounded, the 400 results take ~1 GiB.
 */
const RSS_BOUND_MIB = 400;
/** While nothing is read the server holds at most the high-water mark and 16 results. */
const PAUSED_RSS_BOUND_MIB = 200;

function rssMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kb / 1024;
}

test('stdio: a client that stops reading pauses the server, whose memory stays bounded', {
  skip: process.platform !== 'linux' && 'reads /proc',
}, async () => {
  const files = tempFiles({
    'mcp.yaml': 'resources:\n  big: { kind: file, path: big.txt, uri: "files://big" }\n',
    'big.txt': 'x'.repeat(MIB),
  });
  try {
    const child = spawn(process.execPath, [CLI, join(files.dir, 'mcp.yaml'), '--no-watch'], {
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const exited = once(child, 'exit');
    // Nobody reads stdout yet: the pipe fills and the server's writes back up.
    child.stdout.pause();
    let requests = '';
    for (let id = 1; id <= REQUESTS; id++) {
      requests += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'files://big', _meta: META } })}\n`;
    }
    child.stdin.write(requests);

    let peak = 0;
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 100));
      peak = Math.max(peak, rssMib(child.pid!));
    }
    process.stderr.write(`# server RSS peak while its stdout was not read: ${peak.toFixed(0)} MiB\n`);
    assert.ok(
      peak < PAUSED_RSS_BOUND_MIB,
      `RSS reached ${peak.toFixed(0)} MiB (bound ${PAUSED_RSS_BOUND_MIB}); ${stderr}`,
    );

    // Now read everything: every request gets its full answer, in spite of the pause.
    const seen = new Set<number>();
    let buffered = '';
    let lastPeak = peak;
    child.stdout.setEncoding('utf8');
    const allAnswered = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const message = JSON.parse(buffered.slice(0, nl)) as {
            id: number;
            result?: { contents: { text: string }[] };
          };
          buffered = buffered.slice(nl + 1);
          if (message.result?.contents[0]?.text.length !== MIB) {
            reject(new Error(`bad answer: ${JSON.stringify(message).slice(0, 300)}`));
          }
          seen.add(message.id);
          if (seen.size % 50 === 0) lastPeak = Math.max(lastPeak, rssMib(child.pid!));
          if (seen.size === REQUESTS) resolve();
        }
      });
    });
    child.stdout.resume();
    await allAnswered;
    assert.equal(seen.size, REQUESTS);
    assert.ok(lastPeak < RSS_BOUND_MIB, `RSS reached ${lastPeak.toFixed(0)} MiB while draining`);
    process.stderr.write(`# server RSS peak overall: ${lastPeak.toFixed(0)} MiB\n`);
    child.stdin.end();
    const [code] = await exited;
    assert.equal(code, 0, stderr);
  } finally {
    files.cleanup();
  }
});
