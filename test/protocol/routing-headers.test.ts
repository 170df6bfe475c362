/**
 * SEP-2243's Base64 rules for `Mcp-Param-*`, against the built CLI over real HTTP: only a value
 * with both `=?base64?` and `?=` is a sentinel (decoded, and refused when its payload is not valid
 * padded Base64); a value missing either part is a literal, compared with the argument as is, even
 * when it looks like Base64.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postModern, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const MANIFEST = `server: { name: routing-literals, version: 1.0.0 }
tools:
  routed:
    kind: content
    description: Answers once its region argument agrees with the Mcp-Param-Region header.
    input:
      region: { type: string, description: The region., x-mcp-header: Region }
    content:
      - text: routed
`;

const HELLO = Buffer.from('Hello').toString('base64'); // SGVsbG8=

describe('Mcp-Param-* values: sentinel or literal (SEP-2243)', () => {
  let dir: string;
  let served: ServedCli;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-routing-'));
    writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
    served = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch'], { cwd: dir });
  });
  after(async () => {
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (region: string, header: string) =>
    postModern(
      served.url,
      7,
      'tools/call',
      { name: 'routed', arguments: { region } },
      {
        'mcp-param-region': header,
      },
    );

  const accepted: [string, string, string][] = [
    ['a sentinel decodes to the argument', 'Hello', `=?base64?${HELLO}?=`],
    ['a value without the =?base64? prefix is a literal', HELLO, HELLO],
    ['a value without the ?= suffix is a literal', `=?base64?${HELLO}`, `=?base64?${HELLO}`],
    ['a value with the suffix but no prefix is a literal', `${HELLO}?=`, `${HELLO}?=`],
  ];
  for (const [name, region, header] of accepted) {
    it(`200: ${name}`, async () => {
      const res = await call(region, header);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json().result.content[0].text, 'routed');
    });
  }

  const refused: [string, string, string][] = [
    ['a sentinel with bad padding', 'Hello', '=?base64?SGVsbG8?='],
    ['a sentinel with characters outside the alphabet', 'Hello', '=?base64?SGVs!!!bG8=?='],
    // Taken literally, `=?base64?SGVsbG8=` is not "Hello": it is not decoded.
    ['a suffix-less value compared with its would-be decoding', 'Hello', `=?base64?${HELLO}`],
  ];
  for (const [name, region, header] of refused) {
    it(`400 and -32020: ${name}`, async () => {
      const res = await call(region, header);
      assert.equal(res.status, 400, res.body);
      assert.equal(res.json().error.code, -32020);
      assert.equal(res.json().id, 7);
    });
  }
});
