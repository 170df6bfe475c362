/**
 * The conformance fixture (test/conformance/mcp.yaml), driven over real stdio by the official SDK v1
 * client: every tool, resource and prompt the conformance suite calls answers what the suite expects.
 * This runs in `npm test` without the suite (which needs Node 22 and HTTP; `npm run conformance`),
 * and it backs the suite's two weak checks: tools-call-simple-text and tools-call-error pass even
 * against a server that lacks those tools, so here they must exist and answer their own content.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, REPO } from '../helpers/demo.js';

const FIXTURE = join(REPO, 'test/conformance');
const MANIFEST = join(FIXTURE, 'mcp.yaml');
const PNG = readFileSync(join(FIXTURE, 'assets/pixel.png')).toString('base64');
const WAV = readFileSync(join(FIXTURE, 'assets/tone.wav')).toString('base64');

type Json = Record<string, any>;

test('the fixture validates', () => {
  const run = spawnSync(process.execPath, [CLI, 'validate', MANIFEST], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /is valid: 35 tools, 3 resources, 1 resource template, 5 prompts/);
});

describe('conformance fixture over stdio, SDK v1 client', () => {
  const client = new Client({ name: 'fixture-check', version: '1.0.0' });
  const logs: Json[] = [];
  const progress: Json[] = [];

  before(async () => {
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      progress.push(n.params);
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST], stderr: 'pipe' }),
    );
  });
  after(() => client.close());

  const call = (name: string, args: Json = {}) => client.callTool({ name, arguments: args }) as Promise<Json>;

  test('lists every tool the suite calls, each with a description and an object inputSchema', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'confirm_delete',
      'failing_job',
      'greet',
      'json_schema_2020_12_tool',
      'multi_input',
      'protocol_error_job',
      'slow_compute',
      'test_audio_content',
      'test_custom_header',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'test_embedded_resource',
      'test_error_handling',
      'test_image_content',
      'test_input_required_result_capabilities',
      'test_input_required_result_elicitation',
      'test_input_required_result_list_roots',
      'test_input_required_result_multi_round',
      'test_input_required_result_multiple_inputs',
      'test_input_required_result_request_state',
      'test_input_required_result_sampling',
      'test_input_required_result_tampered_state',
      'test_logging_tool',
      'test_missing_capability',
      'test_multiple_content_types',
      'test_reconnection',
      'test_sampling',
      'test_simple_text',
      'test_streaming_elicitation',
      'test_tool_with_logging',
      'test_tool_with_progress',
      'test_tool_with_task',
      'test_trigger_prompt_change',
      'test_trigger_tool_change',
    ]);
    for (const tool of tools) {
      assert.ok(tool.description, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, 'object');
    }
    const schema = tools.find((t) => t.name === 'json_schema_2020_12_tool')!.inputSchema as Json;
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual(Object.keys(schema.properties), ['name', 'address', 'contactMethod', 'phone', 'email']);
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.deepEqual(schema.properties.address, { $ref: '#/$defs/address' });
    assert.equal(schema.$defs.address.properties.city.type, 'string');
  });

  test('test_simple_text exists and answers its own text (an unknown tool is a protocol error)', async () => {
    assert.deepEqual(await call('test_simple_text'), {
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
    await assert.rejects(call('test_no_such_tool'), /Unknown tool: test_no_such_tool/);
  });

  test('test_error_handling exists and answers isError with its own text', async () => {
    assert.deepEqual(await call('test_error_handling'), {
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing.' }],
      isError: true,
    });
  });

  test('image, audio and embedded resource tools', async () => {
    assert.deepEqual((await call('test_image_content')).content, [
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    assert.deepEqual((await call('test_audio_content')).content, [
      { type: 'audio', data: WAV, mimeType: 'audio/wav' },
    ]);
    assert.deepEqual((await call('test_embedded_resource')).content, [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]);
    const mixed = (await call('test_multiple_content_types')).content;
    assert.deepEqual(
      mixed.map((c: Json) => c.type),
      ['text', 'image', 'resource'],
    );
    assert.equal(mixed[1].data, PNG);
    assert.equal(mixed[2].resource.uri, 'test://mixed-content-resource');
    assert.equal(mixed[2].resource.mimeType, 'application/json');
    assert.deepEqual(JSON.parse(mixed[2].resource.text), { test: 'data', value: 123 });
    assert.deepEqual((await call('json_schema_2020_12_tool', { name: 'Ada' })).content, [
      { type: 'text', text: 'ok' },
    ]);
  });

  test('test_tool_with_logging sends three log messages during the call', async () => {
    await client.setLoggingLevel('debug');
    logs.length = 0;
    const result = await call('test_tool_with_logging');
    assert.equal(result.isError, undefined);
    assert.match(result.content[0].text, /Tool with logging completed/);
    assert.deepEqual(logs, [
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution step 1 of 3' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution step 2 of 3' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution step 3 of 3' },
    ]);
    logs.length = 0;
    assert.match((await call('test_logging_tool')).content[0].text, /Logging tool completed/);
    assert.deepEqual(
      logs.map((l) => l.data),
      ['a log line'],
    );
  });

  test('test_tool_with_progress reports 0, 50 and 100 of 100', async () => {
    // Our own token and handler: the SDK's per-call onprogress is dropped before the response is
    // handled, which loses a last progress that arrives in the same read as the result.
    progress.length = 0;
    const result = await client.callTool({
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 'fixture-progress' },
    });
    assert.equal(result.isError, undefined);
    assert.deepEqual(progress, [
      { progressToken: 'fixture-progress', progress: 0, total: 100 },
      { progressToken: 'fixture-progress', progress: 50, total: 100 },
      { progressToken: 'fixture-progress', progress: 100, total: 100 },
    ]);
  });

  test('resources: static text, binary, the watched resource and the template', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => [r.uri, r.name, r.mimeType]),
      [
        ['test://static-text', 'static_text', 'text/plain'],
        ['test://static-binary', 'static_binary', 'image/png'],
        ['test://watched-resource', 'watched_resource', 'text/plain'],
        // The skills' SKILL.md files, after the resources (docs/skills.md).
        ['skill://csv-cleanup/SKILL.md', 'csv-cleanup', 'text/markdown'],
        ['skill://git-conventions/SKILL.md', 'git-conventions', 'text/markdown'],
        ['skill://report-writer/SKILL.md', 'report-writer', 'text/markdown'],
      ],
    );
    assert.deepEqual((await client.readResource({ uri: 'test://static-text' })).contents, [
      {
        uri: 'test://static-text',
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      },
    ]);
    assert.deepEqual((await client.readResource({ uri: 'test://static-binary' })).contents, [
      { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG },
    ]);
    assert.deepEqual(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
    assert.deepEqual(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ['test://template/{id}/data'],
    );
    const [data] = (await client.readResource({ uri: 'test://template/123/data' })).contents as Json[];
    assert.equal(data!.uri, 'test://template/123/data');
    assert.deepEqual(JSON.parse(data!.text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  test('prompts: simple, with arguments, embedded resource, image, and completion', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => [p.name, Boolean(p.description), (p.arguments ?? []).map((a) => a.name)]),
      [
        ['test_simple_prompt', true, []],
        ['test_prompt_with_arguments', true, ['arg1', 'arg2']],
        ['test_prompt_with_embedded_resource', true, ['resourceUri']],
        ['test_prompt_with_image', true, []],
        ['test_input_required_result_prompt', true, []],
      ],
    );
    assert.deepEqual((await client.getPrompt({ name: 'test_simple_prompt' })).messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    const withArgs = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'testValue1', arg2: 'testValue2' },
    });
    assert.deepEqual(withArgs.messages[0]!.content, {
      type: 'text',
      text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
    });
    await assert.rejects(
      client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }),
      /missing required argument: arg2/,
    );
    const embedded = await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://example-resource' },
    });
    assert.deepEqual(embedded.messages[0]!.content, {
      type: 'resource',
      resource: {
        uri: 'test://example-resource',
        mimeType: 'text/plain',
        text: 'Embedded resource content for testing.',
      },
    });
    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    assert.deepEqual(image.messages[0]!.content, { type: 'image', data: PNG, mimeType: 'image/png' });
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    });
    assert.deepEqual(completion.completion.values, ['test', 'testValue1', 'tested']);
  });
});
