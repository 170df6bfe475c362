/**
 * `mcp-run test [paths…]`: runs the test cases of manifests (their `tests:` section and the
 * `tests/*.yaml` files beside them) and prints each case, the failures with their diffs, and a
 * summary. Exit codes: 0 no case failed (each passed, was skipped, or needs --record outside CI),
 * 1 a case failed, 2 bad usage (a path or test file that cannot be used).
 */
import { writeFile } from 'node:fs/promises';
import { findTestFiles, loadTestFile, type TestFile, TestFileError } from '../testing/cases.js';
import { format, type Reporter, summary, totals } from '../testing/report.js';
import { type FileResult, runTestFile } from '../testing/runner.js';
import { escapeControls } from './print.js';

export interface TestOptions {
  readonly reporter: Reporter;
  readonly output?: string;
  readonly update?: boolean;
  readonly record?: boolean;
  /** A request no fixture answers goes to the real upstream, and is not recorded. */
  readonly live?: boolean;
  /** `--toolset`, repeatable: run the cases against what a client of those toolsets sees. */
  readonly toolset?: readonly string[];
}

export async function testCommand(paths: string[], options: TestOptions): Promise<void> {
  const tests: TestFile[] = [];
  try {
    for (const path of paths.length ? paths : ['mcp.yaml']) {
      const files = await findTestFiles(path);
      if (files.length === 0)
        throw new TestFileError(
          `${path}: no test cases (a tests: section in the manifest, or tests/*.yaml beside it)`,
        );
      for (const file of files) tests.push(await loadTestFile(file));
    }
  } catch (err) {
    if (!(err instanceof TestFileError)) throw err;
    process.stderr.write(`mcp-run test: ${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  const results: FileResult[] = [];
  for (const test of tests) {
    results.push(
      await runTestFile(test, {
        update: options.update === true,
        record: options.record === true,
        live: options.live === true,
        ci: isCI(process.env.CI),
        ...(options.toolset !== undefined && { toolsets: options.toolset }),
      }),
    );
  }
  const report = format(options.reporter, results);
  // The spec report is for a person and quotes what tools returned (an upstream's text): escaped.
  // TAP and JUnit are for machines and stay as they are.
  const forPerson = () => escapeControls(options.reporter === 'spec' ? report : format('spec', results));
  if (options.output) {
    await writeFile(options.output, report);
    process.stdout.write(forPerson());
  } else process.stdout.write(options.reporter === 'spec' ? forPerson() : report);
  if (options.reporter !== 'spec' && !options.output) process.stderr.write(`${summary(totals(results))}\n`);
  process.exitCode = totals(results).failed > 0 ? 1 : 0;
}

/**
 * CI is on when `CI` is set to anything but empty, `false` or `0`, as Jest reads it (CI services
 * set CI=true): there, a missing snapshot or HTTP fixture fails rather than being written or
 * waiting for --record, since nothing written there would be kept.
 */
export function isCI(value: string | undefined): boolean {
  return value !== undefined && value !== '' && !/^(false|0)$/i.test(value);
}
