// A node:test reporter that test/run.mjs adds beside the runner's usual one: one JSON line per
// skipped test or suite, for test/helpers/skip-summary.ts to group by reason. It reads the runner's
// events, not its text, so it is the same under Node 20's TAP and Node 24's spec. Plain JavaScript:
// the runner loads reporters before `--import tsx` applies.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file, details } = event.data;
    if (skip === undefined || skip === false) continue;
    // A skipped suite is one event: its tests are not run, and the runner's "skipped" count leaves them out.
    const type = details?.type === 'suite' ? 'suite' : 'test';
    yield `${JSON.stringify({ skip, type, name, file })}\n`;
  }
}
