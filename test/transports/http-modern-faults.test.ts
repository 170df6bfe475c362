/**
 * A 2026-07-28 request that lacks several required parts gets one 400 that names every one (the
 * envelope's fields, then each routing header), not one 400 per part: a client fixes them all and
 * its next try succeeds. Each reply is valid against the official 2026-07-28 schema, with the code
 * of the first fault (the digest's table: -32602 for the envelope, -32020 for headers); a single
 * fault keeps its own plain message, and an unsupported version stays its own -32022.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { schemaFor } from '../protocol/mcp-schemas.js';
import { CAPS, MODERN, PV, post, postModern, ROUTED_TOOL, type Served, startHttp } from './http-harness.js';

const schema = schemaFor('2026-07-28');
const INFO = { 'io.modelcontextprotocol/clientInfo': { name: 'faults', version: '1' } };

function call(id: number, meta: Record<string, unknown>, args: Record<string, unknown> = { region: 'eu' }) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'routed', arguments: args, _meta: meta },
  };
}

describe('a 2026-07-28 request with several faults', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ catalog: { tools: new Map([['routed', ROUTED_TOOL]]) } });
  });
  after(() => s.close());

  it('names every missing part in one 400, and the request with all of them fixed is served', async () => {
    const res = await post(s.url, call(1, INFO), {});
    assert.equal(res.status, 400, res.body);
    const reply = res.json();
    assert.deepEqual(schema.check('JSONRPCErrorResponse', reply), []);
    assert.equal(reply.id, 1);
    assert.equal(reply.error.code, -32602, 'an envelope fault comes first');
    const problems = reply.error.data.problems as { code: number; message: string }[];
    assert.deepEqual(
      problems.map((p) => p.code),
      [-32602, -32602, -32020, -32020, -32020, -32020],
    );
    for (const part of [
      PV,
      CAPS,
      'MCP-Protocol-Version header',
      'Mcp-Method',
      'Mcp-Name',
      'Mcp-Param-Region',
    ])
      assert.ok(
        problems.some((p) => p.message.includes(part)),
        `${part} is not named: ${reply.error.message}`,
      );
    assert.match(reply.error.message, /^6 problems with this request/);
    for (const p of problems) assert.ok(reply.error.message.includes(p.message));

    const fixed = await post(s.url, call(2, { ...INFO, [PV]: MODERN, [CAPS]: {} }), {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'routed',
      'mcp-param-region': 'eu',
    });
    assert.equal(fixed.status, 200, fixed.body);
    assert.equal(fixed.json().result.content[0].text, '{"region":"eu"}');
  });

  it('names every header that disagrees, with -32020, when the envelope is whole', async () => {
    const res = await postModern(
      s.url,
      3,
      'tools/call',
      { name: 'routed', arguments: { region: 'eu', count: 2 } },
      {
        'mcp-method': 'tools/list',
        'mcp-param-count': '3',
      },
    );
    assert.equal(res.status, 400, res.body);
    const reply = res.json();
    assert.deepEqual(schema.check('JSONRPCErrorResponse', reply), []);
    assert.equal(reply.error.code, -32020);
    const messages = (reply.error.data.problems as { message: string }[]).map((p) => p.message);
    assert.deepEqual(messages, [
      'Mcp-Method header "tools/list" does not match the body\'s "tools/call"',
      'missing Mcp-Param-Region header for argument "region"',
      'Mcp-Param-Count header "3" does not match argument "count"',
    ]);
  });

  it('a request without any envelope, to a 2026 header, names both envelope fields and the headers', async () => {
    const message = { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} };
    const res = await post(s.url, message, { 'mcp-protocol-version': MODERN });
    assert.equal(res.status, 400, res.body);
    const reply = res.json();
    assert.deepEqual(schema.check('JSONRPCErrorResponse', reply), []);
    assert.equal(reply.error.code, -32602);
    assert.match(reply.error.message, new RegExp(`${PV}.*${CAPS}.*Mcp-Method`));
  });

  it('one fault keeps its own message; an unsupported version stays -32022 with its data', async () => {
    const one = await postModern(
      s.url,
      5,
      'tools/call',
      { name: 'routed', arguments: {} },
      { 'mcp-name': undefined },
    );
    assert.equal(one.json().error.code, -32020);
    assert.equal(one.json().error.message, 'missing Mcp-Name header (it must repeat "routed" from the body)');
    assert.equal(one.json().error.data, undefined);
    const version = await post(s.url, call(6, { [PV]: '1900-01-01', [CAPS]: {} }), {});
    assert.equal(version.status, 400);
    assert.equal(version.json().error.code, -32022);
    assert.deepEqual(version.json().error.data.requested, '1900-01-01');
    assert.deepEqual(schema.check('JSONRPCErrorResponse', version.json()), []);
  });
});
