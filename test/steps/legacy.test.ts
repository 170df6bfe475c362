/**
 * The interactive steps in the 2025 era, through the real protocol core: each step is a
 * server→client request on the call's channel, answered (or refused, or left unanswered) by the
 * test peer; capabilities come from `initialize`.
 */
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ALL_CAPS, accept, type Json, reply, type Served, serve, waitFor } from './harness.js';
import { INTERACTIVE_FILES, INTERACTIVE_MANIFEST } from './manifest.js';

const text = (response: Json): string => response.result.content.map((c: Json) => c.text).join('\n');

describe('interactive steps, 2025 era (server→client requests)', () => {
  let s: Served;
  before(async () => {
    s = await serve(INTERACTIVE_MANIFEST, INTERACTIVE_FILES);
  });
  after(() => s.close());

  test('a confirmed confirm runs the tool; the question is a form with no fields', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'delete_order', arguments: { id: 7 } });
    const asked = await peer.request('elicitation/create');
    assert.deepEqual(asked.params, {
      message: 'Delete order 7?',
      requestedSchema: { type: 'object', properties: {} },
    });
    await peer.answer(asked, { action: 'accept' });
    const response = await call.response;
    assert.equal(response.result.isError, undefined);
    assert.equal(text(response), 'Deleted order 7.');
  });

  test('a declined or dismissed confirm ends the call with a non-error result that says so', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    for (const [action, how] of [
      ['decline', 'declined'],
      ['cancel', 'dismissed'],
    ] as const) {
      const call = peer.start('tools/call', { name: 'delete_order', arguments: { id: 8 } });
      await peer.answer(await peer.request('elicitation/create'), { action });
      const response = await call.response;
      assert.equal(response.result.isError, undefined);
      assert.equal(
        text(response),
        `Cancelled by the user: they ${how} the confirmation "Delete order 8?". Nothing was done.`,
      );
    }
  });

  test('form mode is named only to a client that declared it by name', async () => {
    const peer = s.client();
    await peer.initialize({ elicitation: { form: {}, url: {} } });
    const call = peer.start('tools/call', { name: 'delete_order', arguments: { id: 1 } });
    const asked = await peer.request('elicitation/create');
    assert.equal(asked.params.mode, 'form');
    await peer.answer(asked, { action: 'accept' });
    assert.equal(text(await call.response), 'Deleted order 1.');
  });

  test('a client without elicitation gets a clear tool error, or the declared fallback', async () => {
    for (const capabilities of [{}, { sampling: {} }, { elicitation: { url: {} } }]) {
      const peer = s.client();
      await peer.initialize(capabilities);
      const response = await peer.legacy('tools/call', { name: 'delete_order', arguments: { id: 2 } });
      assert.equal(response.result.isError, true);
      assert.match(text(response), /^Tool delete_order needs to ask the user \(elicitation, form mode\)/);
      assert.equal(peer.sent.filter((m) => m.method === 'elicitation/create').length, 0, 'never asked');
      assert.equal(text(await peer.legacy('tools/call', { name: 'trusting' })), 'went ahead');
    }
  });

  test('ask sends the form with titles, choices and defaults; answers (and defaults) reach the tool', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'file_ticket', arguments: { project: 'web' } });
    const form = await peer.request('elicitation/create');
    assert.deepEqual(form.params, {
      message: 'New ticket in web',
      requestedSchema: {
        type: 'object',
        properties: {
          title: { type: 'string', title: 'Title', default: 'Untitled' },
          priority: {
            type: 'string',
            oneOf: [
              { const: 'p1', title: 'Urgent' },
              { const: 'p2', title: 'Normal' },
            ],
            default: 'p2',
          },
          labels: { type: 'array', items: { type: 'string', enum: ['bug', 'ui', 'docs'] } },
          estimate: { type: 'integer', minimum: 1 },
        },
      },
    });
    // The user fills in the title and labels only: priority keeps its default.
    await peer.answer(form, accept({ title: 'Broken link', labels: ['bug', 'docs'] }));
    const confirm = await peer.request('elicitation/create');
    assert.equal(confirm.params.message, 'File Broken link (p2) in web?');
    await peer.answer(confirm, accept());
    assert.equal(text(await call.response), 'Filed Broken link as p2 in web with labels bug,docs.');
  });

  test('an answer outside the form is a tool error naming the field, and nothing runs', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'file_ticket', arguments: { project: 'web' } });
    await peer.answer(await peer.request('elicitation/create'), accept({ priority: 'p9', estimate: 0 }));
    const response = await call.response;
    assert.equal(response.result.isError, true);
    assert.match(
      text(response),
      /^Tool file_ticket stopped: the answer to input request "ask" does not fit its form: /,
    );
    assert.match(text(response), /priority/);
    assert.match(text(response), /estimate must be >= 1/);
  });

  test('sample into: the model is asked first and its reply is a value the tool uses', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'translate', arguments: { text: 'good morning' } });
    const asked = await peer.request('sampling/createMessage');
    assert.deepEqual(asked.params, {
      messages: [{ role: 'user', content: { type: 'text', text: 'Translate to French: good morning' } }],
      maxTokens: 40,
    });
    await peer.answer(asked, reply('bonjour'));
    assert.equal(text(await call.response), 'French: bonjour');
  });

  test("sample after: the model reads the action's result and its reply is the result", async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'summarize', arguments: { text: 'A long, long text.' } });
    const asked = await peer.request('sampling/createMessage');
    assert.equal(asked.params.messages[0].content.text, 'Summarize in one line: A long, long text.');
    assert.equal(asked.params.systemPrompt, 'You are terse.');
    await peer.answer(asked, reply('Long text.'));
    assert.deepEqual((await call.response).result, { content: [{ type: 'text', text: 'Long text.' }] });
  });

  test('a client that refuses a request gets a tool error with its reason', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'translate', arguments: { text: 'hi' } });
    await peer.refuse(await peer.request('sampling/createMessage'), -1, 'User rejected sampling');
    const response = await call.response;
    assert.equal(response.result.isError, true);
    assert.equal(
      text(response),
      'Tool translate stopped: the client refused sampling/createMessage: User rejected sampling (-1). Nothing more was done.',
    );
  });

  test('roots feed a shell tool its working folder, checked inside its root', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    await peer.legacy('logging/setLevel', { level: 'info' });
    const work = realpathSync(join(s.dir, 'work'));
    let call = peer.start('tools/call', { name: 'where' });
    await peer.answer(await peer.request('roots/list'), {
      roots: [{ uri: pathToFileURL(work).href, name: 'work' }],
    });
    let response = await call.response;
    assert.equal(response.result.isError, undefined, text(response));
    assert.equal(text(response).trim(), work);
    // The tool's log lines reach a client that set a level, during the call.
    const logs = peer.sent.filter((m) => m.method === 'notifications/message');
    assert.deepEqual(
      logs.map((m) => m.params),
      [{ level: 'info', logger: 'where', data: `working in ${work}` }],
    );

    call = peer.start('tools/call', { name: 'where' });
    await peer.answer(await peer.request('roots/list'), { roots: [{ uri: 'file:///', name: 'everything' }] });
    response = await call.response;
    assert.equal(response.result.isError, true);
    assert.match(text(response), /Refused to run node: its working folder "\/" does not exist or is outside/);

    call = peer.start('tools/call', { name: 'where' });
    await peer.answer(await peer.request('roots/list'), { roots: [] });
    response = await call.response;
    assert.match(
      text(response),
      /working folder is empty for these values \(did the client share a root\?\)/,
    );
  });

  test('no log messages reach a client that set no level', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'where' });
    const work = realpathSync(join(s.dir, 'work'));
    await peer.answer(await peer.request('roots/list'), { roots: [{ uri: pathToFileURL(work).href }] });
    assert.equal(text(await call.response).trim(), work);
    assert.equal(peer.sent.filter((m) => m.method === 'notifications/message').length, 0);
  });

  test('an unanswered question times out: the request is withdrawn and the call ends with an error', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'quick_confirm' });
    const asked = await peer.request('elicitation/create');
    const response = await call.response;
    assert.equal(response.result.isError, true);
    assert.equal(
      text(response),
      'Tool quick_confirm stopped: the user did not answer within 100 ms. Nothing more was done.',
    );
    const withdrawn = peer.sent.find((m) => m.method === 'notifications/cancelled');
    assert.deepEqual(withdrawn.params, { requestId: asked.id, reason: 'no answer within 100 ms' });
    // A late answer is ignored quietly.
    await peer.answer(asked, { action: 'accept' });
    assert.ok(s.log.lines.some((line) => line.includes('ignored a client response')));
  });

  test('cancelling the call withdraws its pending question and answers nothing', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const call = peer.start('tools/call', { name: 'delete_order', arguments: { id: 3 } });
    const asked = await peer.request('elicitation/create');
    await peer.connection.receive({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: call.id, reason: 'user closed the tab' },
    });
    assert.equal(await call.response, undefined, 'no response after a cancel');
    const withdrawn = await waitFor(() => peer.sent.find((m) => m.method === 'notifications/cancelled'));
    assert.deepEqual(withdrawn.params, { requestId: asked.id, reason: 'the call was cancelled' });
  });

  test('a prompt asks its form; the answer fills the messages and is not an argument', async () => {
    const peer = s.client();
    await peer.initialize(ALL_CAPS);
    const listed = await peer.legacy('prompts/list');
    assert.deepEqual(listed.result.prompts[0].arguments, [
      { name: 'style', description: 'The style of the story', required: false },
    ]);
    const get = peer.start('prompts/get', { name: 'write_story', arguments: { style: 'short' } });
    const form = await peer.request('elicitation/create');
    assert.equal(form.params.message, 'What should the story be about?');
    await peer.answer(form, accept({ topic: 'a lighthouse' }));
    assert.deepEqual((await get.response).result.messages, [
      { role: 'user', content: { type: 'text', text: 'Write a short story about a lighthouse.' } },
    ]);
    const passed = await peer.legacy('prompts/get', { name: 'write_story', arguments: { topic: 'x' } });
    assert.equal(passed.error.code, -32602);
    assert.match(passed.error.message, /the prompt asks the user for it/);

    const asks = peer.sent.filter((m) => m.method === 'elicitation/create').length;
    const unknown = await peer.legacy('prompts/get', { name: 'write_story', arguments: { tone: 'x' } });
    assert.match(unknown.error.message, /unknown argument "tone"; the prompt takes: style/);
    assert.equal(
      peer.sent.filter((m) => m.method === 'elicitation/create').length,
      asks,
      'checked before asking',
    );

    const bare = s.client();
    await bare.initialize({});
    const refused = await bare.legacy('prompts/get', { name: 'write_story' });
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /Prompt write_story needs to ask the user/);
  });
});
