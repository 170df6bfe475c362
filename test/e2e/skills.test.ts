/**
 * Skills over MCP (the io.modelcontextprotocol/skills extension, docs/skills.md), served by the
 * built CLI from a folder of skills the test writes: the official v2 client in the 2026-07-28 era
 * and a raw 2025 session over stdio list, get and read a skill (digests checked against the bytes
 * read); a symlink out of a skill and broken frontmatter are manifest errors at their place; an
 * edit of a skill file reloads it and tells the client; a toolset serves only its skills.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';
import { connectWatchedStdio } from '../helpers/reload-harness.js';
import { runCli } from '../helpers/run-cli.js';

const EXTENSION = 'io.modelcontextprotocol/skills';

const PDF_SKILL = `---
name: pdf-forms
description: Fill PDF forms from a customer's data. Use when a form must be filled.
metadata:
  version: "2.1"
---

# PDF forms

Pick the template in \`templates/\`.
`;

const GIT_SKILL = `---
name: git-flow
description: Branch and commit the team's way.
---

Branches are \`<ticket>-<topic>\`.
`;

/** The folder tree `files` describes (path → text), under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** The Standard Schema the v2 client takes for a method it has no schema of: any result, as is. */
const anyResult = {
  '~standard': {
    version: 1 as const,
    vendor: 'mcp-run-test',
    validate: (value: unknown) => ({ value: value as Record<string, any> }),
    /** Types only: what the client's request resolves with. */
    types: undefined as unknown as { input: unknown; output: Record<string, any> },
  },
};

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

/** A raw 2025 session's handshake (initialize, then initialized); the initialize response. */
async function handshake(peer: RawStdioPeer, protocolVersion = '2025-11-25') {
  const init = await peer.request({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return init;
}

describe('skills over MCP', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-run-skills-')));
  const manifest = join(dir, 'mcp.yaml');
  before(() => {
    writeTree(join(dir, 'skills'), {
      'pdf-forms/SKILL.md': PDF_SKILL,
      'pdf-forms/templates/invoice.md': '# Invoice\n',
      'pdf-forms/templates/regional/eu.md': '# EU invoice\n',
      'git-flow/SKILL.md': GIT_SKILL,
      'not-a-skill/notes.md': 'no SKILL.md here: not served\n',
    });
    writeFileSync(
      manifest,
      [
        'server: { name: skills-test, version: 1.0.0 }',
        'skills:',
        '  folders: [./skills]',
        '  pageSize: 1',
        'toolsets:',
        '  git:',
        '    skills: [git-flow]',
        '',
      ].join('\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the v2 client (2026-07-28) lists, gets and reads a skill, and browses its folders', async () => {
    const client = new Client(
      { name: 'skills-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest, '--no-watch'] }),
    );
    try {
      const capabilities = client.getServerCapabilities() as Record<string, any>;
      assert.deepEqual(capabilities.extensions?.[EXTENSION], { directoryRead: true });
      assert.ok(capabilities.resources, 'the resources capability comes with the extension');

      // Two skills, one a page: the cursor leads to the second, whole.
      const first = await client.request({ method: 'skills/list', params: {} }, anyResult);
      assert.equal(first.skills.length, 1);
      assert.equal(typeof first.nextCursor, 'string');
      assert.equal(typeof first.ttlMs, 'number');
      assert.equal(first.cacheScope, 'public');
      const second = await client.request(
        { method: 'skills/list', params: { cursor: first.nextCursor } },
        anyResult,
      );
      assert.equal(second.nextCursor, undefined);
      const entries = [...first.skills, ...second.skills] as Entry[];
      assert.deepEqual(
        entries.map((e) => e.uri),
        ['skill://git-flow/SKILL.md', 'skill://pdf-forms/SKILL.md'],
      );

      const got = await client.request(
        { method: 'skills/get', params: { uri: 'skill://pdf-forms/SKILL.md' } },
        anyResult,
      );
      const skill = got.skill as Entry;
      assert.deepEqual(skill.frontmatter, {
        name: 'pdf-forms',
        description: "Fill PDF forms from a customer's data. Use when a form must be filled.",
        metadata: { version: '2.1' },
      });
      assert.deepEqual(
        skill.resources.map((r) => r.uri),
        [
          'skill://pdf-forms/SKILL.md',
          'skill://pdf-forms/templates/invoice.md',
          'skill://pdf-forms/templates/regional/eu.md',
        ],
      );
      assert.deepEqual(entries[1], skill, 'skills/get sends the entry skills/list sends');

      // Every file read back matches its entry's size and digest.
      for (const file of skill.resources) {
        const read = await client.readResource({ uri: file.uri });
        const content = read.contents[0] as { text: string; mimeType: string };
        assert.equal(content.mimeType, 'text/markdown');
        assert.equal(Buffer.byteLength(content.text), file.size, file.uri);
        assert.equal(digestOf(content.text), file.digest, file.uri);
      }

      const root = await client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://pdf-forms' } },
        anyResult,
      );
      assert.deepEqual(root.resources, [
        {
          uri: 'skill://pdf-forms/SKILL.md',
          name: 'SKILL.md',
          mimeType: 'text/markdown',
          size: Buffer.byteLength(PDF_SKILL),
        },
      ]);
      const rest = await client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://pdf-forms', cursor: root.nextCursor } },
        anyResult,
      );
      assert.deepEqual(rest.resources, [
        { uri: 'skill://pdf-forms/templates', name: 'templates', mimeType: 'inode/directory' },
      ]);

      const listed = await client.listResources();
      assert.deepEqual(
        listed.resources.map((r) => [r.uri, r.name, r.mimeType]),
        [
          ['skill://git-flow/SKILL.md', 'git-flow', 'text/markdown'],
          ['skill://pdf-forms/SKILL.md', 'pdf-forms', 'text/markdown'],
        ],
        'each SKILL.md is listed, its other files are not',
      );

      await assert.rejects(
        client.request({ method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }, anyResult),
        (err: { code?: number }) => err.code === -32602,
      );
      await assert.rejects(
        client.request(
          { method: 'resources/directory/read', params: { uri: 'skill://pdf-forms/SKILL.md' } },
          anyResult,
        ),
        (err: { code?: number }) => err.code === -32602,
      );
    } finally {
      await client.close();
    }
  });

  test('validate counts the skills', () => {
    const run = runCli(['validate', manifest]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /is valid: 0 tools, 0 resources, 0 resource templates, 0 prompts, 2 skills/);
  });

  test('a raw 2025 session lists, gets and reads a skill', async () => {
    const peer = new RawStdioPeer([manifest, '--no-watch']);
    try {
      const init = await handshake(peer, '2025-06-18');
      assert.deepEqual(init.result.capabilities.extensions, { [EXTENSION]: { directoryRead: true } });
      const list = await peer.request({ jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} });
      assert.equal(list.result.skills[0].uri, 'skill://git-flow/SKILL.md');
      assert.equal(list.result.ttlMs, undefined, 'no 2026 decoration in a 2025 session');
      const got = await peer.request({
        jsonrpc: '2.0',
        id: 3,
        method: 'skills/get',
        params: { uri: 'skill://git-flow/SKILL.md' },
      });
      const [file] = got.result.skill.resources;
      assert.deepEqual(file, {
        uri: 'skill://git-flow/SKILL.md',
        digest: digestOf(GIT_SKILL),
        size: Buffer.byteLength(GIT_SKILL),
      });
      const read = await peer.request({
        jsonrpc: '2.0',
        id: 4,
        method: 'resources/read',
        params: { uri: 'skill://git-flow/SKILL.md' },
      });
      assert.equal(read.result.contents[0].text, GIT_SKILL);
      const missing = await peer.request({
        jsonrpc: '2.0',
        id: 5,
        method: 'resources/read',
        params: { uri: 'skill://git-flow/nothing.md' },
      });
      assert.equal(missing.error.code, -32002);
    } finally {
      await peer.end();
    }
  });

  test('a toolset serves only the skills it names', async () => {
    const peer = new RawStdioPeer([manifest, '--no-watch', '--toolset', 'git']);
    try {
      await handshake(peer);
      const list = await peer.request({ jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} });
      assert.deepEqual(
        list.result.skills.map((s: Entry) => s.uri),
        ['skill://git-flow/SKILL.md'],
      );
      const other = await peer.request({
        jsonrpc: '2.0',
        id: 3,
        method: 'resources/read',
        params: { uri: 'skill://pdf-forms/SKILL.md' },
      });
      assert.equal(other.error.code, -32002);
      const get = await peer.request({
        jsonrpc: '2.0',
        id: 4,
        method: 'skills/get',
        params: { uri: 'skill://pdf-forms/SKILL.md' },
      });
      assert.equal(get.error.code, -32602);
    } finally {
      await peer.end();
    }
  });
});

describe('skill folders are checked like the manifest', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-run-skills-bad-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a symlink out of a skill is refused', () => {
    writeTree(join(dir, 'linked/skills'), { 'leaky/SKILL.md': '---\nname: leaky\ndescription: x\n---\n' });
    writeFileSync(join(dir, 'secret.txt'), 'not for the model\n');
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'linked/skills/leaky/secret.txt'));
    writeFileSync(
      join(dir, 'linked/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const run = runCli(['validate', join(dir, 'linked/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error\[PATH_OUTSIDE_ROOT\] .*mcp\.yaml:3:13 skills\.folders\[0\]/);
    assert.match(run.stderr, /leaky\/secret\.txt" resolves outside its root/);
  });

  test('a skill folder linked from outside the listed folder is refused', () => {
    writeTree(join(dir, 'elsewhere/outside-skill'), {
      'SKILL.md': '---\nname: outside-skill\ndescription: x\n---\n',
    });
    mkdirSync(join(dir, 'via-link/skills'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere/outside-skill'), join(dir, 'via-link/skills/outside-skill'));
    writeFileSync(
      join(dir, 'via-link/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const run = runCli(['validate', join(dir, 'via-link/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error\[PATH_OUTSIDE_ROOT\] .*skills\.folders\[0\]/);
    assert.match(run.stderr, /skills\/outside-skill" resolves outside its root/);
  });

  test('a file swapped for a link out after loading is not found, never served', async () => {
    writeTree(join(dir, 'swap/skills'), {
      'swapped/SKILL.md': '---\nname: swapped\ndescription: x\n---\n',
      'swapped/notes.md': 'harmless\n',
    });
    writeFileSync(join(dir, 'swap/secret.txt'), 'not for the model\n');
    writeFileSync(
      join(dir, 'swap/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const peer = new RawStdioPeer([join(dir, 'swap/mcp.yaml'), '--no-watch']);
    try {
      await handshake(peer);
      const uri = 'skill://swapped/notes.md';
      const read = await peer.request({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri } });
      assert.equal(read.result.contents[0].text, 'harmless\n');
      rmSync(join(dir, 'swap/skills/swapped/notes.md'));
      symlinkSync(join(dir, 'swap/secret.txt'), join(dir, 'swap/skills/swapped/notes.md'));
      const reread = await peer.request({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri } });
      assert.equal(reread.error?.code, -32002, JSON.stringify(reread));
      assert.doesNotMatch(JSON.stringify(reread), /not for the model/);
    } finally {
      await peer.end();
    }
  });

  test('frontmatter errors are reported at once, at their line and column in the SKILL.md', () => {
    writeTree(join(dir, 'broken/skills'), {
      'no-description/SKILL.md': '---\nname: no-description\n---\n',
      'Bad_Name/SKILL.md': '---\nname: Bad_Name\ndescription: x\n---\n',
      'folder/SKILL.md': '---\nname: other\ndescription: x\n---\n',
      'reserved/SKILL.md':
        '---\nname: reserved\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n',
      'bare/SKILL.md': '# no frontmatter\n',
    });
    writeFileSync(
      join(dir, 'broken/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const run = runCli(['validate', join(dir, 'broken/mcp.yaml')]);
    assert.equal(run.code, 1);
    const at = (skill: string, line: number, col: number) =>
      `error[SKILL_FRONTMATTER] ${join(dir, 'broken/skills', skill, 'SKILL.md')}:${line}:${col}`;
    for (const expected of [
      `${at('no-description', 2, 1)}\n  the frontmatter has no \`description\``,
      `${at('Bad_Name', 2, 7)}\n  the name "Bad_Name" is not a skill name`,
      `${at('folder', 2, 7)}\n  the name "other" differs from the skill's folder "folder"`,
      `${at('reserved', 5, 3)}\n  the metadata key "io.modelcontextprotocol/x" uses the prefix`,
      `${at('bare', 1, 1)}\n  SKILL.md does not begin with YAML frontmatter`,
    ])
      assert.ok(run.stderr.includes(expected), `missing:\n${expected}\nin:\n${run.stderr}`);
    assert.match(run.stderr, /5 errors/);
  });

  test('a skill past the limit of 512 files is SKILL_TOO_LARGE', () => {
    const files: Record<string, string> = { 'big/SKILL.md': '---\nname: big\ndescription: x\n---\n' };
    for (let i = 0; i < 512; i++) files[`big/parts/${String(i).padStart(3, '0')}.md`] = `${i}\n`;
    writeTree(join(dir, 'large/skills'), files);
    writeFileSync(
      join(dir, 'large/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const run = runCli(['validate', join(dir, 'large/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error\[SKILL_TOO_LARGE\] .*mcp\.yaml:3:13 skills\.folders\[0\]/);
    assert.match(
      run.stderr,
      /the skill "big" is larger than the skills extension allows: more than 512 files/,
    );
  });

  test('a skill past 16 MiB in all is SKILL_TOO_LARGE, naming the file where it passed', () => {
    writeTree(join(dir, 'heavy/skills'), { 'heavy/SKILL.md': '---\nname: heavy\ndescription: x\n---\n' });
    const nineMiB = Buffer.alloc(9 * 1024 * 1024, 'a');
    writeFileSync(join(dir, 'heavy/skills/heavy/a.txt'), nineMiB);
    writeFileSync(join(dir, 'heavy/skills/heavy/b.txt'), nineMiB);
    writeFileSync(
      join(dir, 'heavy/mcp.yaml'),
      'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n',
    );
    const run = runCli(['validate', join(dir, 'heavy/mcp.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error\[SKILL_TOO_LARGE\]/);
    assert.match(run.stderr, /more than 16777216 bytes \(16 MiB\) in all, counting up to b\.txt/);
  });
});

describe('editing a skill reloads it', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-run-skills-edit-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('an edit of a skill file tells the client, and the entry carries the new digest', async () => {
    writeTree(join(dir, 'skills'), { 'git-flow/SKILL.md': GIT_SKILL, 'git-flow/notes.md': 'first\n' });
    const file = join(dir, 'mcp.yaml');
    writeFileSync(file, 'server: { name: s, version: 1.0.0 }\nskills:\n  folders: [./skills]\n');
    const client = new ClientV1({ name: 'skills-reload', version: '1.0.0' });
    const changes: string[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changes.push('list_changed');
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      changes.push(`updated ${n.params.uri}`);
    });
    const log = await connectWatchedStdio(client, file);
    try {
      await client.subscribeResource({ uri: 'skill://git-flow/notes.md' });
      await log.edit(join(dir, 'skills/git-flow/notes.md'), 'second, longer\n');
      // A request after the reload: its notifications came before the answer (stdout is ordered).
      const got = (await client.request(
        { method: 'skills/get', params: { uri: 'skill://git-flow/SKILL.md' } },
        (await import('zod')).z.any(),
      )) as { skill: Entry };
      const notes = got.skill.resources.find((r) => r.uri === 'skill://git-flow/notes.md');
      assert.deepEqual(notes, {
        uri: 'skill://git-flow/notes.md',
        digest: digestOf('second, longer\n'),
        size: 15,
      });
      assert.deepEqual(changes, ['list_changed', 'updated skill://git-flow/notes.md']);
      assert.match(log.text, /reloaded .*~1 resource/);

      // A new skill folder is a new skill: the list changed, and skills/list has it.
      const reloads = log.reloads();
      writeTree(join(dir, 'skills'), { 'pdf-forms/SKILL.md': PDF_SKILL });
      await log.waitFor(
        () => /reloaded .*\+1 resource/.test(log.text) && log.reloads() > reloads,
        'the new skill',
      );
      const listed = (await client.request(
        { method: 'skills/list', params: {} },
        (await import('zod')).z.any(),
      )) as { skills: Entry[] };
      assert.deepEqual(
        listed.skills.map((e) => e.uri),
        ['skill://git-flow/SKILL.md', 'skill://pdf-forms/SKILL.md'],
      );
      assert.equal(changes.at(-1), 'list_changed');
    } finally {
      await client.close();
    }
  });
});
