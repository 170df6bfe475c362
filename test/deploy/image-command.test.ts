/**
 * The container image's default command, run outside a container (this machine has no Docker
 * daemon, and no registry for the base image): the Dockerfile's ENTRYPOINT script and CMD, with the
 * manifest path and port swapped for a temp file and a free one. Secrets arrive as files in the
 * secrets folder and become the variables the command names; the server starts, answers /healthz
 * without auth, and refuses an MCP request without the token. The build stage is checked to copy
 * every input `npm run build` reads.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO } from '../helpers/demo.js';
import { LISTENING } from '../transports/http-harness.js';

const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];

describe('the container image (Dockerfile, deploy/docker-entrypoint.sh)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-image-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies what the build reads into the build stage', () => {
    const build = dockerfile.slice(0, dockerfile.indexOf('\nFROM ', dockerfile.indexOf('AS build')));
    const copied = [...build.matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
    const script = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts.build as string;
    for (const input of ['package.json', 'package-lock.json', 'tsconfig.json', 'src'])
      assert.ok(copied.includes(input), `the build stage does not copy ${input}`);
    for (const [, path] of script.matchAll(/node (\S+)\//g))
      assert.ok(copied.includes(path!), `npm run build runs ${path}/, which the build stage does not copy`);
  });

  it('its default command serves with the token from a secret file, and refuses a request without it', async () => {
    writeFileSync(
      join(dir, 'mcp.yaml'),
      'server: { name: image, version: 1.0.0 }\ntools:\n  ping: { kind: content, description: Answers pong., content: [{ text: pong }] }\n',
    );
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    const token = 'image-test-token';
    assert.ok(cmd.includes('--auth-token-env'), 'the default command serves beyond loopback: it needs auth');
    const tokenVar = cmd[cmd.indexOf('--auth-token-env') + 1]!;
    writeFileSync(join(secrets, tokenVar), `${token}\n`);
    const args = cmd.map((arg) => (arg === '/etc/mcp-run/mcp.yaml' ? join(dir, 'mcp.yaml') : arg));
    args[args.indexOf('--port') + 1] = '0';
    const env: NodeJS.ProcessEnv = { ...process.env, MCP_RUN_HOME: REPO, MCP_RUN_SECRETS_DIR: secrets };
    delete env[tokenVar];
    const child = spawn('sh', [join(REPO, 'deploy/docker-entrypoint.sh'), ...args], { env, stdio: 'pipe' });
    let stderr = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not listening within 20 s:\n${stderr}`)), 20_000);
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          const match = LISTENING.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve((match[1] ?? match[2])!);
          }
        });
        child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${stderr}`)));
      });
      const origin = new URL(url).origin;
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      const initialize = (authorization?: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'image', version: '1' },
            },
          }),
        });
      assert.equal((await initialize()).status, 401);
      const ok = await initialize(`Bearer ${token}`);
      assert.equal(ok.status, 200, await ok.clone().text());
      assert.match(await ok.text(), /"protocolVersion":"2025-06-18"/);
      assert.ok(!stderr.includes(token), 'the token reached the log');
      // --log-format json: every line the server wrote is one JSON object.
      for (const line of stderr.split('\n').filter(Boolean)) JSON.parse(line);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
