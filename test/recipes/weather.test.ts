/**
 * recipes/weather served by the built CLI over stdio to the official SDK v2 client (2026-07-28),
 * against a local stand-in answering like the Open-Meteo geocoding and forecast APIs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, REPO } from '../helpers/demo.js';
import { startUpstream, type Upstream } from '../kinds/http/upstream.js';
import { openMeteo } from '../testing/stand-ins.js';

const MANIFEST = join(REPO, 'recipes/weather/mcp.yaml');

describe('recipes/weather', () => {
  let upstream: Upstream;
  const client = new Client(
    { name: 'recipe-weather', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      content: { type: string; text: string }[];
      structuredContent?: unknown;
      isError?: boolean;
    };

  before(async () => {
    upstream = await startUpstream(() => openMeteo);
    const env = {
      ...(process.env as Record<string, string>),
      WEATHER_API_URL: upstream.origin,
      GEOCODING_API_URL: upstream.origin,
    };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    await upstream.close();
  });

  test('find_place sends the query as data and answers a readable line per place', async () => {
    const r = await call('find_place', { name: 'Lisbon' });
    assert.equal(upstream.seen.at(-1)!.url, '/v1/search?name=Lisbon&count=5&language=en&format=json');
    assert.equal(
      r.content[0]!.text,
      'Lisbon, Lisbon, Portugal: latitude 38.71667, longitude -9.13333 (Europe/Lisbon)\n',
    );
    const none = await call('find_place', { name: 'Atlantis' });
    assert.equal(none.content[0]!.text, 'No place of that name.');
  });

  test('current_weather keeps numbers as numbers and renders one sentence', async () => {
    const r = await call('current_weather', { latitude: 38.71667, longitude: -9.13333 });
    const sent = new URL(upstream.seen.at(-1)!.url, 'http://x').searchParams;
    assert.equal(sent.get('latitude'), '38.71667');
    assert.equal(sent.get('timezone'), 'auto');
    assert.equal(
      r.content[0]!.text,
      'At 2026-11-30T10:00: 16.4 °C, humidity 71 %, precipitation 0 mm, wind 12.2 km/h (WMO weather code 3).',
    );
    assert.deepEqual(r.structuredContent, {
      time: '2026-11-30T10:00',
      temperature: 16.4,
      humidity: 71,
      precipitation: 0,
      wind: 12.2,
      code: 3,
    });
  });

  test('forecast returns the daily series as structured data', async () => {
    const r = await call('forecast', { latitude: 38.7, longitude: -9.1, days: 2 });
    assert.deepEqual(r.structuredContent, {
      time: ['2026-11-30', '2026-12-01'],
      temperature_2m_max: [17, 18],
      temperature_2m_min: [10, 11],
      precipitation_sum: [0.4, 0.4],
    });
  });

  test('arguments out of bounds never reach the API', async () => {
    const before = upstream.seen.length;
    const r = await call('forecast', { latitude: 123, longitude: 0 });
    assert.equal(r.isError, true);
    assert.match(r.content[0]!.text, /latitude must be <= 90/);
    assert.equal(upstream.seen.length, before);
  });

  test('the packing_list prompt', async () => {
    const p = await client.getPrompt({ name: 'packing_list', arguments: { place: 'Lisbon', days: '3' } });
    const first = p.messages[0]!.content;
    assert.match(first.type === 'text' ? first.text : '', /^I am travelling to Lisbon for 3 days\./);
  });
});
