/**
 * The interactive steps in the 2026-07-28 era (MRTR), through the real protocol core: a call that
 * needs input answers `input_required`, the retry carries `inputResponses` and the signed
 * `requestState`, and everything about that state is checked: integrity, expiry, binding, single
 * use. Capabilities come from each request's envelope only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sealPayload, stateKey } from '../../src/protocol/request-state.js';
import { captureLogger } from '../protocol/harness.js';
import {
  accept,
  type Json,
  LOG_LEVEL,
  reply,
  type Served,
  STATE_SECRET,
  serve,
  type TestPeer,
} from './harness.js';
import { INTERACTIVE_FILES, INTERACTIVE_MANIFEST } from './manifest.js';

const call = (name: string, args: Json = {}, extra: Json = {}) => ({ name, arguments: args, ...extra });

describe('interactive steps, 2026-07-28 (input_required)', () => {
  let s: Served;
  let peer: TestPeer;
  before(async () => {
    s = await serve(INTERACTIVE_MANIFEST, INTERACTIVE_FILES);
    peer = s.client();
  });
  after(() => s.close());

  test('a confirm is one round: input_required, then the retry with the answer completes', async () => {
    const first = await peer.modern('tools/call', call('delete_order', { id: 7 }));
    assert.equal(first.status, 200);
    const round = first.response.result;
    assert.equal(round.resultType, 'input_required');
    assert.deepEqual(round.inputRequests, {
      confirm: {
        method: 'elicitation/create',
        params: { message: 'Delete order 7?', requestedSchema: { type: 'object', properties: {} } },
      },
    });
    assert.equal(typeof round.requestState, 'string');
    assert.equal(round.content, undefined);
    const second = await peer.modern(
      'tools/call',
      call(
        'delete_order',
        { id: 7 },
        { inputResponses: { confirm: accept() }, requestState: round.requestState },
      ),
    );
    assert.deepEqual(second.response.result.content, [{ type: 'text', text: 'Deleted order 7.' }]);
    assert.equal(second.response.result.resultType, 'complete');
  });

  test('a declined confirm completes with the non-error "Cancelled by the user" result', async () => {
    const { result } = await peer.callThrough('delete_order', { id: 9 }, () => ({ action: 'decline' }));
    assert.equal(result.isError, undefined);
    assert.equal(
      result.content[0].text,
      'Cancelled by the user: they declined the confirmation "Delete order 9?". Nothing was done.',
    );
  });

  test('form mode is named to a client that declared it by name', async () => {
    const { response } = await peer.modern('tools/call', call('delete_order', { id: 1 }), {
      capabilities: { elicitation: { form: {} } },
    });
    assert.equal(response.result.inputRequests.confirm.params.mode, 'form');
  });

  test('a question that uses an earlier answer comes in a later round', async () => {
    const asked: string[][] = [];
    const { result, rounds } = await peer.callThrough('file_ticket', { project: 'api' }, (key, request) => {
      asked.push([key, request.params.message]);
      return key === 'ask' ? accept({ title: 'Slow login', estimate: 3 }) : accept();
    });
    assert.deepEqual(asked, [
      ['ask', 'New ticket in api'],
      ['confirm', 'File Slow login (p2) in api?'],
    ]);
    assert.equal(rounds.length, 2);
    assert.notEqual(rounds[0].requestState, rounds[1].requestState);
    assert.equal(result.content[0].text, 'Filed Slow login as p2 in api.');
  });

  test('independent questions share a round; a missing answer is asked again, the others kept', async () => {
    const first = (await peer.modern('tools/call', call('greet_everything'))).response.result;
    assert.deepEqual(Object.keys(first.inputRequests), ['roots', 'who', 'greeting']);
    assert.deepEqual(first.inputRequests.roots, { method: 'roots/list', params: {} });
    assert.equal(first.inputRequests.greeting.method, 'sampling/createMessage');
    // Only the name, plus a key nobody asked for: the rest is asked again, the name is kept.
    const second = (
      await peer.modern(
        'tools/call',
        call(
          'greet_everything',
          {},
          {
            inputResponses: { who: accept({ name: 'Ada' }), stray: { action: 'accept' } },
            requestState: first.requestState,
          },
        ),
      )
    ).response.result;
    assert.equal(second.resultType, 'input_required');
    assert.deepEqual(Object.keys(second.inputRequests), ['roots', 'greeting']);
    const done = (
      await peer.modern(
        'tools/call',
        call(
          'greet_everything',
          {},
          {
            inputResponses: {
              roots: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }] },
              greeting: reply('Hello'),
            },
            requestState: second.requestState,
          },
        ),
      )
    ).response.result;
    assert.deepEqual(done.content, [{ type: 'text', text: 'Hello, Ada! (the client shares 2 roots)' }]);
  });

  test('answers sent with the first call (no requestState) are used', async () => {
    const { response } = await peer.modern(
      'tools/call',
      call('delete_order', { id: 4 }, { inputResponses: { confirm: accept() } }),
    );
    assert.equal(response.result.content[0].text, 'Deleted order 4.');
  });

  test('a sample after the action: the action runs once, its text rides in the state to the next round', async () => {
    const runs = join(s.dir, 'runs.txt');
    const first = await peer.modern('tools/call', call('counted'), { meta: { [LOG_LEVEL]: 'info' } });
    const round = first.response.result;
    assert.equal(round.resultType, 'input_required');
    assert.equal(
      round.inputRequests.sample.params.messages[0].content.text,
      'Say how many runs there were: 1\n',
    );
    // The action's log line went to this request's own stream, because it asked for a level.
    assert.deepEqual(
      first.notes.map((n) => [n.method, n.params.data]),
      [['notifications/message', 'ran']],
    );
    const second = await peer.modern(
      'tools/call',
      call(
        'counted',
        {},
        { inputResponses: { sample: reply('One run.') }, requestState: round.requestState },
      ),
    );
    assert.deepEqual(second.response.result.content, [{ type: 'text', text: 'One run.' }]);
    assert.deepEqual(second.notes, [], 'no logs without a level, and the action did not run again');
    assert.equal(readFileSync(runs, 'utf8'), 'run\n');
  });

  test('a needed capability the request did not declare is -32021 (HTTP 400) naming them all', async () => {
    const refused = await peer.modern('tools/call', call('greet_everything'), { capabilities: {} });
    assert.equal(refused.status, 400);
    assert.equal(refused.response.error.code, -32021);
    assert.deepEqual(refused.response.error.data, {
      requiredCapabilities: { roots: {}, elicitation: {}, sampling: {} },
    });
    const partly = await peer.modern('tools/call', call('delete_order', { id: 1 }), {
      capabilities: { sampling: {}, elicitation: { url: {} } },
    });
    assert.deepEqual(partly.response.error.data, { requiredCapabilities: { elicitation: {} } });
    // A confirm with fallback: proceed runs without asking.
    const trusting = await peer.modern('tools/call', call('trusting'), { capabilities: {} });
    assert.equal(trusting.response.result.content[0].text, 'went ahead');
  });

  test('tampered, foreign, misbound, reused and expired states are refused with -32602', async () => {
    const round = (await peer.modern('tools/call', call('delete_order', { id: 5 }))).response.result;
    const retry = async (name: string, args: Json, requestState: unknown) =>
      (
        await peer.modern(
          'tools/call',
          call(name, args, { inputResponses: { confirm: accept() }, requestState }),
        )
      ).response;
    const state: string = round.requestState;
    const flipped = state.slice(0, 10) + (state[10] === 'A' ? 'B' : 'A') + state.slice(11);
    const cases: [string, Json, unknown, RegExp][] = [
      ['delete_order', { id: 5 }, flipped, /failed its integrity check/],
      ['delete_order', { id: 5 }, `${state}-TAMPERED`, /failed its integrity check/],
      ['delete_order', { id: 5 }, 'not-a-state', /failed its integrity check/],
      ['delete_order', { id: 5 }, 42, /"requestState" must be the string this server returned/],
      ['trusting', {}, state, /issued for tools\/call "delete_order", not tools\/call "trusting"/],
      ['delete_order', { id: 6 }, state, /issued for other arguments/],
    ];
    for (const [name, args, token, message] of cases) {
      const response = await retry(name, args, token);
      assert.equal(response.error?.code, -32602, `${String(token).slice(0, 20)}…`);
      assert.match(response.error.message, message);
    }
    assert.equal((await retry('delete_order', { id: 5 }, state)).result.content[0].text, 'Deleted order 5.');
    const reused = await retry('delete_order', { id: 5 }, state);
    assert.match(reused.error.message, /already used; each requestState is good for one retry/);

    const key = stateKey(STATE_SECRET, captureLogger());
    const expired = sealPayload(key, {
      v: 1,
      m: 'tools/call',
      n: 'delete_order',
      d: JSON.parse(Buffer.from(state.split('.')[0]!, 'base64url').toString()).d,
      x: Date.now() - 1,
      j: 'expired-one',
      s: { values: {}, done: [] },
    });
    assert.match((await retry('delete_order', { id: 5 }, expired)).error.message, /expired/);
  });

  test('another server holding the same MCP_RUN_STATE_KEY accepts the state; one with another key does not', async () => {
    const round = (await peer.modern('tools/call', call('delete_order', { id: 11 }))).response.result;
    const retry = { inputResponses: { confirm: accept() }, requestState: round.requestState };
    const replica = await serve(INTERACTIVE_MANIFEST, INTERACTIVE_FILES);
    const stranger = await serve(
      INTERACTIVE_MANIFEST,
      INTERACTIVE_FILES,
      'another secret, also long enough to pass',
    );
    try {
      const other = await stranger.client().modern('tools/call', call('delete_order', { id: 11 }, retry));
      assert.match(
        other.response.error.message,
        /issued by another server \(replicas must share MCP_RUN_STATE_KEY\)/,
      );
      const same = await replica.client().modern('tools/call', call('delete_order', { id: 11 }, retry));
      assert.equal(same.response.result.content[0].text, 'Deleted order 11.');
    } finally {
      await replica.close();
      await stranger.close();
    }
  });

  test('invalid answers are -32602; the state survives so a corrected retry works', async () => {
    const round = (await peer.modern('tools/call', call('file_ticket', { project: 'x' }))).response.result;
    const retry = async (inputResponses: unknown) =>
      (
        await peer.modern(
          'tools/call',
          call('file_ticket', { project: 'x' }, { inputResponses, requestState: round.requestState }),
        )
      ).response;
    for (const [answers, message] of [
      [null, /"inputResponses" must be an object/],
      [[accept()], /"inputResponses" must be an object/],
      [{ ask: 12345 }, /the answer to input request "ask" must be an ElicitResult/],
      [{ ask: { action: 'maybe' } }, /must be an ElicitResult/],
      [
        { ask: accept({ labels: ['nope'] }) },
        /does not fit its form: labels\.0 must be one of "bug", "ui", "docs"/,
      ],
      [{ ask: accept({ title: 42 }) }, /does not fit its form: title must be string/],
    ] as const) {
      const response = await retry(answers);
      assert.equal(response.error?.code, -32602, JSON.stringify(answers));
      assert.match(response.error.message, message);
    }
    const next = (await retry({ ask: accept({ title: 'Fixed' }) })).result;
    assert.equal(next.inputRequests.confirm.params.message, 'File Fixed (p2) in x?');
    const sampled = await peer.modern(
      'tools/call',
      call(
        'translate',
        { text: 'x' },
        { inputResponses: { french: { content: { type: 'image', data: '' } } } },
      ),
    );
    assert.match(
      sampled.response.error.message,
      /holds image content; this tool needs the model to reply with text/,
    );
  });

  test('prompts/get asks through input_required too; other methods never do', async () => {
    const first = (await peer.modern('prompts/get', { name: 'write_story', arguments: { style: 'sad' } }))
      .response.result;
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests), ['topic_form']);
    const done = (
      await peer.modern('prompts/get', {
        name: 'write_story',
        arguments: { style: 'sad' },
        inputResponses: { topic_form: accept({ topic: 'rain' }) },
        requestState: first.requestState,
      })
    ).response.result;
    assert.equal(done.resultType, 'complete');
    assert.equal(done.messages[0].content.text, 'Write a sad story about rain.');
    const listed = (await peer.modern('tools/list', {})).response.result;
    assert.equal(listed.resultType, 'complete');
    const file = listed.tools.find((t: Json) => t.name === 'file_ticket');
    assert.deepEqual(Object.keys(file.inputSchema.properties), ['project'], 'answers are not arguments');
  });
});
