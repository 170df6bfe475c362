/**
 * `mcp-run <manifest> --http` as a real process: the parseable URL line, SIGTERM ending it with
 * exit 0, authentication from environment variables (never logged), and the startup errors.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { CLI, demoCopy } from '../helpers/demo.js';
import { modernRequest, post, spawnHttpCli } from '../transports/http-harness.js';

const listTools = modernRequest(1, 'tools/list');

describe('mcp-run --http', () => {
  test('prints where it listens, serves, and exits 0 on SIGTERM (and on SIGINT)', async () => {
    const copy = demoCopy();
    try {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const served = await spawnHttpCli([copy.manifest, '--no-watch'], { cwd: copy.dir });
        assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        const res = await post(served.url, listTools.message, listTools.headers);
        assert.equal(res.json().result.tools.length, 3);
        assert.equal(await served.stop(signal), 0, served.stderr());
      }
    } finally {
      copy.cleanup();
    }
  });

  test('honours --path, and with --auth-token-env / --api-key-env requires a credential it never logs', async () => {
    const copy = demoCopy();
    const env = { ...process.env, MCP_TOKENS: 'tok-alpha-123, tok-beta-456', MCP_KEYS: 'key-gamma-789' };
    const served = await spawnHttpCli(
      [
        copy.manifest,
        '--path',
        '/rpc',
        '--auth-token-env',
        'MCP_TOKENS',
        '--api-key-env',
        'MCP_KEYS',
        '--log-level',
        'debug',
      ],
      { env },
    );
    try {
      assert.match(served.url, /\/rpc$/);
      assert.equal((await post(served.url, listTools.message, listTools.headers)).status, 401);
      const withToken = await post(served.url, listTools.message, {
        ...listTools.headers,
        authorization: 'Bearer tok-beta-456',
      });
      assert.equal(withToken.status, 200);
      const withKey = await post(served.url, listTools.message, {
        ...listTools.headers,
        'x-api-key': 'key-gamma-789',
      });
      assert.equal(withKey.status, 200);
    } finally {
      assert.equal(await served.stop(), 0);
      copy.cleanup();
    }
    assert.doesNotMatch(served.stderr(), /tok-alpha|tok-beta|key-gamma/);
  });

  test('beyond loopback without authentication: refused (exit 2) unless --allow-unauthenticated-remote', async () => {
    const copy = demoCopy();
    try {
      const refused = spawnSync(
        process.execPath,
        [CLI, copy.manifest, '--no-watch', '--http', '--port', '0', '--host', '0.0.0.0'],
        { encoding: 'utf8', timeout: 15_000 },
      );
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /not serving on 0\.0\.0\.0 without authentication/);
      assert.match(refused.stderr, /--allow-unauthenticated-remote/);
      const served = await spawnHttpCli([
        copy.manifest,
        '--no-watch',
        '--host',
        '0.0.0.0',
        '--allow-unauthenticated-remote',
      ]);
      try {
        // The lines after "listening on" may still be on their way.
        for (let i = 0; i < 500 && !served.stderr().includes('client config:'); i++)
          await new Promise((r) => setTimeout(r, 20));
        assert.match(served.stderr(), /beyond loopback, without authentication/);
        // The banner names an address a client can use, never the wildcard.
        assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.doesNotMatch(served.stderr(), /http:\/\/0\.0\.0\.0/);
        assert.match(served.stderr(), /bound to 0\.0\.0\.0: reachable on all interfaces at port \d+/);
        assert.match(served.stderr(), /\(3 tools, 3 resources, 1 resource template, 1 prompt\)/);
        const listed = await post(served.url, listTools.message, listTools.headers);
        assert.equal(listed.status, 200);
      } finally {
        assert.equal(await served.stop(), 0);
      }
    } finally {
      copy.cleanup();
    }
  });

  test('exits 2 with HTTP_AUTH_ENV_MISSING when a named variable is unset', () => {
    const copy = demoCopy();
    try {
      const env = { ...process.env };
      delete env.MCP_NO_SUCH_TOKENS;
      const run = spawnSync(
        process.execPath,
        [CLI, copy.manifest, '--http', '--port', '0', '--auth-token-env', 'MCP_NO_SUCH_TOKENS'],
        {
          env,
          encoding: 'utf8',
          timeout: 15_000,
        },
      );
      assert.equal(run.status, 2);
      assert.match(
        run.stderr,
        /error\[HTTP_AUTH_ENV_MISSING\] --auth-token-env names the environment variable MCP_NO_SUCH_TOKENS/,
      );
    } finally {
      copy.cleanup();
    }
  });

  test('exits 1 with HTTP_LISTEN_FAILED when the port is taken', async () => {
    const copy = demoCopy();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const run = spawnSync(
        process.execPath,
        [CLI, copy.manifest, '--no-watch', '--http', '--port', String(port)],
        {
          encoding: 'utf8',
          timeout: 15_000,
        },
      );
      assert.equal(run.status, 1, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`error\\[HTTP_LISTEN_FAILED\\] cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
    } finally {
      blocker.close();
      copy.cleanup();
    }
  });

  test('refuses a port that is not one', () => {
    const run = spawnSync(process.execPath, [CLI, 'x.yaml', '--http', '--port', '70000'], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /a port is an integer from 0 to 65535/);
  });
});
