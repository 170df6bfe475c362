/**
 * The client config mcp-run prints works as printed: `mcp-run config`, the top-level --help and
 * the stdio banner name this Node, this CLI and the manifest by absolute paths, and the official v1
 * SDK client's stdio transport, given exactly that command and those args from another folder,
 * connects, lists the tools and calls one. `--client` prints each common client's block.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, demoCopy, REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const demo = demoCopy();
const elsewhere = mkdtempSync(join(tmpdir(), 'mcp-run-elsewhere-'));
after(() => {
  demo.cleanup();
  rmSync(elsewhere, { recursive: true, force: true });
});

interface Launch {
  command: string;
  args: string[];
}

/** Connects as a client would with the pasted config: its command and args, from another folder. */
async function connectWith(launch: Launch): Promise<void> {
  assert.ok(isAbsolute(launch.command), launch.command);
  for (const arg of launch.args) assert.ok(isAbsolute(arg), arg);
  const client = new Client({ name: 'pasted-config', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: launch.command, args: launch.args, cwd: elsewhere, stderr: 'pipe' }),
  );
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'find_orders'));
    const result = await client.callTool({
      name: 'find_orders',
      arguments: { email: 'ada@example.com', limit: 1 },
    });
    assert.equal(result.isError, undefined);
    assert.match(JSON.stringify(result.content), /1002/);
  } finally {
    await client.close();
  }
}

describe('the printed client config', () => {
  test('mcp-run config: the generic block connects with the v1 SDK stdio client', async () => {
    const run = runCli(['config', demo.manifest], { cwd: elsewhere });
    assert.equal(run.code, 0, run.stderr);
    const launch = JSON.parse(run.stdout) as Launch;
    assert.equal(launch.command, process.execPath);
    assert.deepEqual(launch.args, [CLI, demo.manifest]);
    await connectWith(launch);
  });

  test('--help prints a config for ./mcp.yaml that connects as printed', async () => {
    const help = runCli(['--help'], { cwd: demo.dir });
    assert.doesNotMatch(help.stdout, /npx/);
    const line = help.stdout.split('\n').find((l) => l.trim().startsWith('{"command"'));
    assert.ok(line, help.stdout);
    await connectWith(JSON.parse(line) as Launch);
  });

  test('the stdio banner (stdin a terminal) prints the same config', { skip: noScript() }, async () => {
    const run = spawnSync(
      'script',
      ['-qc', `"${process.execPath}" "${CLI}" mcp.yaml --no-watch`, '/dev/null'],
      {
        cwd: demo.dir,
        encoding: 'utf8',
        input: '',
        timeout: 30_000,
      },
    );
    const line = /Client config \(absolute paths, ready to paste\): (\{.*\})/.exec(run.stdout + run.stderr);
    assert.ok(line, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /npx/);
    await connectWith(JSON.parse(line[1]!) as Launch);
  });

  test('--client: the blocks of Claude Desktop, VS Code and Cursor, under the server name', () => {
    const block = (client: string) => {
      const run = runCli(['config', '-m', demo.manifest, '--client', client]);
      assert.equal(run.code, 0, run.stderr);
      return { json: JSON.parse(run.stdout), stderr: run.stderr };
    };
    const entry = { command: process.execPath, args: [CLI, demo.manifest] };
    const claude = block('claude-desktop');
    assert.deepEqual(claude.json, { mcpServers: { 'shop-assistant': entry } });
    assert.match(claude.stderr, /claude_desktop_config\.json/);
    assert.deepEqual(block('vscode').json, { servers: { 'shop-assistant': { type: 'stdio', ...entry } } });
    assert.deepEqual(block('cursor').json, { mcpServers: { 'shop-assistant': entry } });
    const bad = runCli(['config', demo.manifest, '--client', 'emacs']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /claude-desktop, vscode, cursor, generic/);
  });

  test('the variables the manifest reads are named for the env block', () => {
    const t = tempFiles({
      'mcp.yaml': `# \${env:IN_A_COMMENT}
sources:
  api: { kind: http, baseUrl: "\${env:API_URL:-https://api.example.com}", auth: { bearer: "\${env:API_TOKEN}" } }
tools:
  ping: { kind: http, source: api, description: Pings the API., path: /ping }
`,
    });
    try {
      const run = runCli(['config', join(t.dir, 'mcp.yaml')]);
      assert.equal(run.code, 0);
      assert.match(run.stderr, /The manifest reads API_TOKEN: set it in the client's "env" block/);
      assert.doesNotMatch(run.stderr, /IN_A_COMMENT|API_URL/);
    } finally {
      t.cleanup();
    }
  });
});

test('no doc or recipe tells users to run npx mcp-run or npm install -g mcp-run, but as what works once published', () => {
  const files = [
    'README.md',
    ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`),
    ...readdirSync(join(REPO, 'recipes'), { recursive: true })
      .map(String)
      .filter((f) => /\.(md|ya?ml)$/.test(f))
      .map((f) => `recipes/${f}`),
  ].filter((f) => f.endsWith('.md') || f.endsWith('.yaml') || f.endsWith('.yml'));
  // The registry forms may stand only under a heading that says "once published", or in a paragraph
  // that says the package is not on the registry yet; npx of a tarball (--package=) works today.
  const registryForm =
    /npx (-y |--yes )?mcp-run|npm install -g mcp-run|"command": "npx", "args": \["(-y|--yes)", "mcp-run"/;
  let mentions = 0;
  for (const file of files) {
    for (const section of readFileSync(join(REPO, file), 'utf8').split(/^(?=#{1,4} )/m)) {
      if (/^#{1,4} .*once published/i.test(section)) {
        mentions += Number(registryForm.test(section));
        continue;
      }
      for (const paragraph of section.split(/\n\s*\n/)) {
        if (!registryForm.test(paragraph)) continue;
        mentions++;
        assert.match(
          paragraph,
          /not on the npm registry yet/,
          `${file}: a registry form outside "once published":\n${paragraph}`,
        );
      }
    }
  }
  assert.ok(mentions > 0, 'the docs say nowhere what will work once the package is published');
});

/** Why the terminal test cannot run here, if it cannot: it needs util-linux's script(1) for a pty. */
function noScript(): string | false {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
    ? false
    : 'script(1) is not installed (apt-get install util-linux): it gives the CLI a terminal';
}
