/**
 * `--toolset` on the commands an author checks a toolset with (`list`, `call`, `read`, `prompt`,
 * `lint`, `test`): the built CLI as a child process shows and runs exactly what a client of that
 * toolset (or the union of several) sees, and an unknown name is bad usage that lists the toolsets.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const files = tempFiles({
  'mcp.yaml': `
toolsets:
  billing: { tools: ["billing_*"], prompts: [billing_note] }
  support: { tools: [ticket], resources: [faq], prompts: [greet] }
tools:
  billing_invoice: { kind: content, description: Show one invoice of the customer., content: [{ text: invoice }] }
  ticket: { kind: content, description: Open a support ticket for the customer., content: [{ text: ticket }] }
  status: { kind: content, description: x, content: [{ text: ok }] }
resources:
  faq: { kind: text, uri: "docs://faq", text: Ask., description: The frequently asked questions. }
  secret: { kind: text, uri: "docs://secret", text: Hidden., description: Not for the support desk. }
prompts:
  greet: { description: Greet the customer by name., messages: [{ text: Hi. }] }
  billing_note: { description: Write a note about a payment., messages: [{ text: Pay. }] }
tests:
  - call: ticket
    expect: { text: ticket }
  - call: status
    expect: { text: ok }
`,
});
after(() => files.cleanup());
const manifest = join(files.dir, 'mcp.yaml');

const listed = (toolsets: string[]) => {
  const run = runCli(['list', manifest, '--json', ...toolsets.flatMap((t) => ['--toolset', t])]);
  assert.equal(run.code, 0, run.stderr);
  const lists = JSON.parse(run.stdout) as Record<string, { name?: string; uri?: string }[]>;
  return {
    tools: lists.tools!.map((t) => t.name),
    resources: lists.resources!.map((r) => r.uri),
    prompts: lists.prompts!.map((p) => p.name),
  };
};

describe('--toolset', () => {
  test('list: only the toolset; repeated: the union; without it: everything', () => {
    assert.deepEqual(listed(['support']), {
      tools: ['ticket'],
      resources: ['docs://faq'],
      prompts: ['greet'],
    });
    assert.deepEqual(listed(['support', 'billing']), {
      tools: ['billing_invoice', 'ticket'],
      resources: ['docs://faq'],
      prompts: ['greet', 'billing_note'],
    });
    assert.deepEqual(listed([]).tools, ['billing_invoice', 'ticket', 'status']);
  });

  test('call, read and prompt: a member works; a non-member is as unknown as it is to the client', () => {
    assert.equal(runCli(['call', 'ticket', manifest, '--toolset', 'support']).stdout, 'ticket\n');
    const call = runCli(['call', 'status', manifest, '--toolset', 'support']);
    assert.equal(call.code, 1);
    assert.match(call.stderr, /status/);
    assert.equal(runCli(['call', 'status', manifest]).code, 0);

    assert.equal(runCli(['read', 'docs://faq', manifest, '--toolset', 'support']).stdout, 'Ask.\n');
    const read = runCli(['read', 'docs://secret', manifest, '--toolset', 'support']);
    assert.equal(read.code, 1);
    assert.doesNotMatch(read.stdout, /Hidden/);
    assert.equal(runCli(['read', 'docs://secret', manifest]).code, 0);

    assert.equal(runCli(['prompt', 'greet', manifest, '--toolset', 'support']).code, 0);
    assert.equal(runCli(['prompt', 'billing_note', manifest, '--toolset', 'support']).code, 1);
    assert.equal(runCli(['prompt', 'billing_note', manifest, '--toolset', 'billing']).code, 0);
  });

  test('an unknown toolset: exit 2, naming the toolsets there are', () => {
    for (const command of [
      ['list'],
      ['call', 'ticket'],
      ['read', 'docs://faq'],
      ['prompt', 'greet'],
      ['lint'],
    ]) {
      const run = runCli([...command, manifest, '--toolset', 'suport']);
      assert.equal(run.code, 2, `${command[0]}: ${run.stderr}`);
      assert.match(
        run.stderr,
        /--toolset: no toolset is named "suport".*support.*billing, support/s,
        command[0],
      );
    }
    const run = runCli(['test', manifest, '--toolset', 'suport']);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /--toolset: no toolset is named "suport".*billing, support/s);
  });

  test("lint: only the toolset's entries, and its tools' token cost", () => {
    const whole = runCli(['lint', manifest, '--json']);
    const report = JSON.parse(whole.stdout) as {
      findings: { entry: string }[];
      tokens: { tools: unknown[] };
    };
    assert.ok(report.findings.some((f) => f.entry === 'status'));
    assert.equal(report.tokens.tools.length, 3);
    const support = runCli(['lint', manifest, '--json', '--toolset', 'support']);
    assert.equal(support.code, 0, support.stderr);
    const view = JSON.parse(support.stdout) as typeof report;
    assert.deepEqual(view.findings, []);
    assert.equal(view.tokens.tools.length, 1);
  });

  test('test: the cases run as a client of the toolset sees the server', () => {
    assert.equal(runCli(['test', manifest]).code, 0);
    const run = runCli(['test', manifest, '--toolset', 'support']);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /status/);
  });
});
