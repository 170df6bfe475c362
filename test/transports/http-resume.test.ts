/**
 * Resumable 2025-era SSE streams (2025-11-25 transports, resumability and polling): priming, event
 * ids per stream, GET with Last-Event-ID replaying only that stream, a POST stream dropped mid-call
 * whose result arrives exactly once on resume (whether the result comes before or after the
 * resume), polling (the server closes a long call's stream early), the replay bounds, and no
 * priming for sessions of older revisions. The slow tool finishes only when a test releases it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  initSession,
  openStream,
  parseSse,
  post,
  type Served,
  send,
  sessionHeaders,
  startHttp,
} from './http-harness.js';

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

/** Releases the slow tool's calls once `count` of them are pending. */
async function releaseSlow(s: Served, count = 1): Promise<void> {
  await until(() => s.fixture.probe.releaseSlow.length >= count);
  for (const release of s.fixture.probe.releaseSlow.splice(0)) release();
}

const resumeHeaders = (session: string, lastEventId: string) => ({
  ...sessionHeaders(session),
  accept: 'text/event-stream',
  'last-event-id': lastEventId,
});

describe('resumable streams', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ sseRetryMs: 250 });
  });
  after(() => s.close());

  it('a tools/call of a 2025-11-25 session still running after 100 ms opens a primed stream: an id, empty data, retry', async () => {
    const session = await initSession(s.url);
    const stream = await openStream(s.url, {
      body: JSON.stringify(call(1, 'slow')),
      headers: sessionHeaders(session),
    });
    await until(() => stream.ids.length > 0);
    await releaseSlow(s);
    const body = await stream.text;
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.match(body, /^id: [0-9a-z]+\/0\nretry: 250\ndata: \n\n/, 'the priming event comes first');
    const frames = parseSse(body);
    assert.deepEqual(frames.retries, [250]);
    assert.equal(frames.messages.length, 1);
    assert.equal(frames.messages[0].id, 1);
    const [priming, result] = frames.ids;
    assert.equal(priming?.split('/')[0], result?.split('/')[0], 'both events belong to one stream');
    assert.notEqual(priming, result);
  });

  it('one answered sooner, with nothing emitted, is one JSON body', async () => {
    const session = await initSession(s.url);
    const res = await post(s.url, call(11, 'echo'), sessionHeaders(session));
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(JSON.parse(res.body).id, 11);
  });

  it('a POST stream dropped mid-call: its result, produced while nobody listens, is replayed once', async () => {
    const session = await initSession(s.url);
    const stream = await openStream(s.url, {
      body: JSON.stringify(call(2, 'slow')),
      headers: sessionHeaders(session),
    });
    await until(() => stream.ids.length > 0);
    const priming = stream.ids[0] as string;
    stream.close();
    await stream.ended;
    await releaseSlow(s);
    // The result is recorded on the stream although its connection is gone (had the call not quite
    // finished yet, the resume below would simply carry it live).
    const resumed = await send(s.url, { method: 'GET', headers: resumeHeaders(session, priming) });
    assert.equal(resumed.status, 200);
    const events = resumed.events();
    assert.equal(events.length, 1, 'the result, exactly once');
    assert.equal(events[0].id, 2);
    assert.equal(events[0].result.content[0].text, 'finished');

    // Resuming after the result's own id gives nothing more: the stream is finished and closes.
    const resultId = parseSse(resumed.body).ids.at(-1) as string;
    const again = await send(s.url, { method: 'GET', headers: resumeHeaders(session, resultId) });
    assert.equal(again.status, 200);
    assert.deepEqual(again.events(), []);
  });

  it('a POST stream dropped mid-call and resumed before the result: the result arrives live, once', async () => {
    const session = await initSession(s.url);
    const stream = await openStream(s.url, {
      body: JSON.stringify(call(3, 'slow')),
      headers: sessionHeaders(session),
    });
    await until(() => stream.ids.length > 0);
    const priming = stream.ids[0] as string;
    stream.close();
    await stream.ended;

    const seen = s.log.lines.length;
    const resumed = send(s.url, { method: 'GET', headers: resumeHeaders(session, priming) });
    await until(() => s.log.lines.slice(seen).some((l) => l.includes(`resumed after ${priming}`)));
    await releaseSlow(s);
    const res = await resumed;
    assert.equal(res.status, 200);
    const events = res.events();
    assert.equal(events.length, 1, 'the result, exactly once, and then the resumed stream ends');
    assert.equal(events[0].id, 3);
    assert.equal(events[0].result.content[0].text, 'finished');
  });

  it('a resume replays only the named stream, only after the id', async () => {
    const session = await initSession(s.url);
    const first = await post(s.url, call(4, 'work'), sessionHeaders(session));
    const second = await post(s.url, call(5, 'work'), sessionHeaders(session));
    const firstIds = parseSse(first.body).ids;
    assert.ok(firstIds.length >= 3, 'priming, notifications, result');
    const secondStream = parseSse(second.body).ids[0]?.split('/')[0];
    const res = await send(s.url, { method: 'GET', headers: resumeHeaders(session, firstIds[1] as string) });
    const frames = parseSse(res.body);
    assert.deepEqual(frames.ids, firstIds.slice(2), 'the events after the id, of that stream only');
    assert.ok(frames.ids.every((id) => id.split('/')[0] !== secondStream));
    assert.equal(res.events().at(-1).id, 4);
  });

  it('a GET stream is resumable too: notifications sent while it was down are replayed', async () => {
    const session = await initSession(s.url);
    const get = await openStream(s.url, { method: 'GET', headers: sessionHeaders(session) });
    s.protocol.notifyListChanged(new Set(['tools']));
    assert.equal((await get.next()).method, 'notifications/tools/list_changed');
    const last = get.ids.at(-1) as string;
    const seen = s.log.lines.length;
    get.close();
    await until(() => s.log.lines.slice(seen).some((l) => l.includes('its GET closed')));
    s.protocol.notifyListChanged(new Set(['prompts']));

    const resumed = await openStream(s.url, { method: 'GET', headers: resumeHeaders(session, last) });
    assert.equal(resumed.status, 200);
    assert.equal((await resumed.next()).method, 'notifications/prompts/list_changed');
    resumed.close();
  });

  it('Last-Event-ID that names no stream of the session: 400 with the reason', async () => {
    const session = await initSession(s.url);
    const other = await initSession(s.url);
    // A call that emits progress answers on a stream (a quick echo would be one JSON body).
    const res = await post(s.url, call(6, 'work'), sessionHeaders(other));
    const foreign = parseSse(res.body).ids.at(-1) as string;
    const unknown = await send(s.url, { method: 'GET', headers: resumeHeaders(session, foreign) });
    // A fresh session has no stream with that key, or the seq is beyond what it sent.
    assert.equal(unknown.status, 400);
    assert.match(unknown.json().error.message, /no stream of this session/);
    const malformed = await send(s.url, { method: 'GET', headers: resumeHeaders(session, 'nonsense') });
    assert.equal(malformed.status, 400);
    assert.match(malformed.json().error.message, /not an event id/);
  });

  it('a session of 2025-06-18 gets event ids but no priming and no retry', async () => {
    const session = await initSession(s.url, '2025-06-18');
    const plain = await post(s.url, call(7, 'echo'), sessionHeaders(session, '2025-06-18'));
    assert.match(String(plain.headers['content-type']), /^application\/json/, 'no eager stream');
    const streamed = await post(s.url, call(8, 'work'), sessionHeaders(session, '2025-06-18'));
    assert.match(String(streamed.headers['content-type']), /^text\/event-stream/);
    const frames = parseSse(streamed.body);
    assert.deepEqual(frames.retries, []);
    assert.ok(!/data: \n/.test(streamed.body), 'no empty-data event');
    assert.equal(frames.ids.length, frames.messages.length, 'every event has an id');
    assert.ok(frames.ids.every((id) => !id.endsWith('/0')));
  });
});

describe('polling and replay bounds', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({
      ssePollMs: 20,
      sseRetryMs: 5,
      sseReplay: { events: 2, bytes: 1 << 20, streams: 1 },
    });
  });
  after(() => s.close());

  it('the server closes a long call’s stream after retry:, and a resume gets the result', async () => {
    const session = await initSession(s.url);
    const res = await post(s.url, call(9, 'slow'), sessionHeaders(session));
    // The POST ended although the call is still running: priming, then retry, no result.
    const frames = parseSse(res.body);
    assert.deepEqual(frames.retries, [5, 5]);
    assert.deepEqual(frames.messages, []);
    const priming = frames.ids[0] as string;

    const seen = s.log.lines.length;
    const resumed = send(s.url, { method: 'GET', headers: resumeHeaders(session, priming) });
    await until(() => s.log.lines.slice(seen).some((l) => l.includes(`resumed after ${priming}`)));
    await releaseSlow(s);
    const events = (await resumed).events();
    assert.equal(events.length, 1);
    assert.equal(events[0].id, 9);
  });

  it('a stream keeps at most its bound of events, and a session its bound of finished streams', async () => {
    const session = await initSession(s.url);
    const withProgress = {
      ...call(10, 'work'),
      params: { name: 'work', arguments: {}, _meta: { progressToken: 'p' } },
    };
    const work = await post(s.url, withProgress, sessionHeaders(session));
    const ids = parseSse(work.body).ids;
    assert.ok(ids.length > 4, `priming, progress, logs and the result; got ${ids.length}`);
    // Only the last two events are kept: a resume from the priming id replays just those.
    const replay = await send(s.url, { method: 'GET', headers: resumeHeaders(session, ids[0] as string) });
    assert.deepEqual(parseSse(replay.body).ids, ids.slice(-2));

    // A second finished stream evicts the first (one spare stream per session).
    await post(s.url, call(11, 'work'), sessionHeaders(session));
    const evicted = await send(s.url, { method: 'GET', headers: resumeHeaders(session, ids[0] as string) });
    assert.equal(evicted.status, 400);
  });
});
