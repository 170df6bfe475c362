/** CallAbort: the light cancellation of a tool call behaves as an AbortSignal does for its users. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CallAbort } from '../../src/util/call-signal.js';

test('abort fires each listener once, with the reason set, and only the first abort counts', () => {
  const signal = new CallAbort();
  const seen: unknown[] = [];
  signal.addEventListener('abort', () => seen.push(['a', signal.reason]));
  signal.addEventListener('abort', () => seen.push(['b', signal.aborted]), { once: true });
  assert.equal(signal.aborted, false);
  signal.abort('why');
  signal.abort('again');
  assert.deepEqual(seen, [
    ['a', 'why'],
    ['b', true],
  ]);
  assert.equal(signal.reason, 'why');
});

test('a removed listener is not called; one added after the abort is not called either', () => {
  const signal = new CallAbort();
  let calls = 0;
  const listener = () => calls++;
  signal.addEventListener('abort', listener);
  signal.removeEventListener('abort', listener);
  signal.removeEventListener('abort', () => {}); // not added: nothing happens
  signal.abort(new Error('x'));
  signal.addEventListener('abort', listener);
  assert.equal(calls, 0);
});

test('a listener that throws does not keep the others from running; the error reaches the process', () => {
  // In a process of its own: the error is the process's uncaught exception, as an AbortSignal's.
  const module = new URL('../../src/util/call-signal.ts', import.meta.url).href;
  const script = `
    const { CallAbort } = await import(${JSON.stringify(module)});
    process.on('uncaughtException', (err) => { console.log('uncaught:', err.message); });
    const signal = new CallAbort();
    signal.addEventListener('abort', () => { throw new Error('listener failed'); });
    signal.addEventListener('abort', () => console.log('second ran'));
    signal.abort('stop');`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(run.stdout, 'second ran\nuncaught: listener failed\n', run.stderr);
});
