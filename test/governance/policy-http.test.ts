/**
 * A masked field of an HTTP answer whose body is an array: the structured result is `{result: [...]}`
 * and the text is the bare array, so a path written for the structured result must mask the text too.
 * A real http tool against a node:http upstream on 127.0.0.1, through `mcp-run test` cases.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadTestFile } from '../../src/testing/cases.js';
import { runTestFile } from '../../src/testing/runner.js';

const BODY = [
  { name: 'Ada', ssn: '078-05-1120', salary: 5000 },
  { name: 'Bob', ssn: '219-09-9999', salary: 7000 },
];

describe('masking an http tool whose body is an array', () => {
  let dir: string;
  let upstream: Server;
  before(async () => {
    upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(BODY));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-policy-http-'));
    const masked = [
      { name: 'Ada', ssn: '***', salary: null },
      { name: 'Bob', ssn: '***', salary: null },
    ];
    await writeFile(
      join(dir, 'mcp.yaml'),
      `
sources:
  api: { kind: http, baseUrl: "http://127.0.0.1:${port}" }
tools:
  people:
    kind: http
    source: api
    path: /people
    description: The people.
    policy:
      output:
        - mask: ["$.result[*].ssn", "$.result[*].salary"]
tests:
  - name: masked in both
    call: people
    expect:
      structured: { result: ${JSON.stringify(masked)} }
      text: ${JSON.stringify(JSON.stringify(masked, null, 2))}
`,
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  it('masks the structured result and the text the model reads', async () => {
    const result = await runTestFile(await loadTestFile(join(dir, 'mcp.yaml')), { live: true });
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.cases.map((c) => [c.status, ...c.messages]),
      [['pass']],
    );
  });
});
