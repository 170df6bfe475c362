/**
 * A real browser for the playground tests: Debian's chromium, headless, driven by playwright-core,
 * one profile folder of its own per launch. Without chromium the tests are skipped with the reason
 * (`BROWSER_SKIP`). And `mcp-run dev` started as a user starts it, on a free port.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { CLI } from './demo.js';

export const CHROMIUM = process.env.MCP_RUN_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const BROWSER_SKIP = existsSync(CHROMIUM)
  ? false
  : `no chromium at ${CHROMIUM} (apt-get install chromium, or set MCP_RUN_TEST_CHROMIUM)`;

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mcp-run-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 1000 },
    colorScheme: options.colorScheme ?? 'light',
  });
  context.setDefaultTimeout(10_000);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface DevServer {
  /** The page, e.g. http://127.0.0.1:40123/ */
  readonly page: string;
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

const PAGE_LINE = /the playground is at (http:\/\/\S+)/;

/** `mcp-run dev <manifest> --port 0 [...args]`, once it printed the page's URL. */
export async function startDev(manifest: string, args: string[] = [], cwd?: string): Promise<DevServer> {
  const child = spawn(process.execPath, [CLI, 'dev', manifest, '--port', '0', ...args], {
    stdio: 'pipe',
    ...(cwd && { cwd }),
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const page = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no page URL within 15 s; stderr:\n${stderr}`)), 15_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = PAGE_LINE.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before listening; stderr:\n${stderr}`)));
  });
  return {
    page,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
