/**
 * The stand-in upstreams of the HTTP recipes: a GitHub (rest-api) and an Open-Meteo (weather), which
 * the recipes' own suites in test/recipes/ also serve, and the Petstore of test/openapi. The
 * recipes' `mcp-run test` fixtures are recorded from them, never from the internet:
 * `recordRecipes` points each recipe at these.
 */
import type { ServerResponse } from 'node:http';
import { CLI } from '../helpers/demo.js';
import { type Seen, send, startUpstream } from '../kinds/http/upstream.js';
import { startPetstore } from '../openapi/petstore-stand-in.js';

export const TOKEN = 'ghp_recipeTestToken0123456789';

const user = (login: string) => ({ login, id: login.length, type: 'User' });
const label = (name: string) => ({ id: name.length, name, color: 'ededed' });
const issue = (number: number, title: string, extra: Record<string, unknown> = {}) => ({
  url: `https://api.github.com/repos/acme/widgets/issues/${number}`,
  html_url: `https://github.com/acme/widgets/issues/${number}`,
  number,
  title,
  state: 'open',
  state_reason: null,
  user: user('ann'),
  labels: [label('bug')],
  assignees: [user('bob')],
  comments: 2,
  created_at: '2026-01-02T10:00:00Z',
  updated_at: '2026-01-03T10:00:00Z',
  body: `Body of ${number}`,
  ...extra,
});

/** Answers like api.github.com for the recipe's calls. */
export function github(seen: Seen, res: ServerResponse) {
  const url = new URL(seen.url, 'http://stand-in');
  const json = seen.body ? JSON.parse(seen.body) : undefined;
  if (seen.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { message: 'Bad credentials' });
  if (seen.headers['x-github-api-version'] !== '2022-11-28')
    return send(res, 400, { message: 'bad version' });
  const route = `${seen.method} ${url.pathname}`;
  if (route === 'GET /repos/acme/widgets/issues') {
    const all = [issue(2, 'Crash on start'), issue(1, 'Slow search', { labels: [] })];
    const page = Number(url.searchParams.get('page'));
    return send(res, 200, page === 1 ? all.slice(0, Number(url.searchParams.get('per_page'))) : []);
  }
  if (route === 'GET /repos/acme/widgets/issues/2') return send(res, 200, issue(2, 'Crash on start'));
  if (route === 'GET /repos/acme/widgets/issues/2/comments') {
    return send(res, 200, [
      { id: 11, user: user('cy'), created_at: '2026-01-04T00:00:00Z', body: 'Same here' },
    ]);
  }
  if (route === 'GET /search/issues') {
    return send(res, 200, { total_count: 1, incomplete_results: false, items: [issue(2, 'Crash on start')] });
  }
  if (route === 'POST /repos/acme/widgets/issues') {
    if (typeof json?.title !== 'string') return send(res, 422, { message: 'Validation Failed' });
    return send(res, 201, issue(3, json.title, { body: json.body ?? null }));
  }
  if (route === 'POST /repos/acme/widgets/issues/2/comments') {
    return send(res, 201, {
      id: 12,
      html_url: 'https://github.com/acme/widgets/issues/2#issuecomment-12',
      body: json.body,
    });
  }
  if (route === 'PATCH /repos/acme/widgets/issues/2') {
    return send(res, 200, issue(2, 'Crash on start', { state: json.state, state_reason: json.state_reason }));
  }
  send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
}

export function openMeteo(seen: Seen, res: ServerResponse) {
  const url = new URL(seen.url, 'http://stand-in');
  const q = url.searchParams;
  if (url.pathname === '/v1/search') {
    if (q.get('name') !== 'Lisbon') return send(res, 200, { generationtime_ms: 0.2 });
    return send(res, 200, {
      results: [
        {
          id: 2267057,
          name: 'Lisbon',
          latitude: 38.71667,
          longitude: -9.13333,
          country: 'Portugal',
          admin1: 'Lisbon',
          timezone: 'Europe/Lisbon',
          population: 517802,
        },
      ].slice(0, Number(q.get('count'))),
    });
  }
  if (url.pathname === '/v1/forecast' && q.get('current')) {
    return send(res, 200, {
      latitude: Number(q.get('latitude')),
      current_units: { temperature_2m: '°C' },
      current: {
        time: '2026-11-30T10:00',
        temperature_2m: 16.4,
        relative_humidity_2m: 71,
        precipitation: 0,
        wind_speed_10m: 12.2,
        weather_code: 3,
      },
    });
  }
  if (url.pathname === '/v1/forecast' && q.get('daily')) {
    const days = Number(q.get('forecast_days'));
    const dates = ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03'].slice(0, days);
    return send(res, 200, {
      daily: {
        time: dates,
        temperature_2m_max: dates.map((_, i) => 17 + i),
        temperature_2m_min: dates.map((_, i) => 10 + i),
        precipitation_sum: dates.map(() => 0.4),
      },
    });
  }
  send(res, 400, { error: true, reason: `unexpected ${seen.url}` });
}

/**
 * Records the fixtures of the HTTP recipes under `recipesDir` (the repository's, or a copy) from the
 * stand-ins: `mcp-run test --record`, with each recipe's base URL variables pointing at them.
 */
export async function recordRecipes(
  recipesDir: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const gitHub = await startUpstream(() => github);
  const meteo = await startUpstream(() => openMeteo);
  const pets = await startPetstore();
  try {
    const env = {
      ...process.env,
      ISSUES_API_URL: gitHub.origin,
      GITHUB_TOKEN: TOKEN,
      WEATHER_API_URL: meteo.origin,
      GEOCODING_API_URL: meteo.origin,
      PETSTORE_BASE_URL: `${pets.origin}/api`,
    };
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      // Asynchronous: the stand-ins answer in this process while the CLI records.
      import('node:child_process').then(({ execFile }) => {
        execFile(
          process.execPath,
          [CLI, 'test', '--record', ...['rest-api', 'weather', 'petstore'].map((r) => `${recipesDir}/${r}`)],
          { env, encoding: 'utf8' },
          (err, stdout, stderr) =>
            resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    });
    return run;
  } finally {
    await Promise.all([gitHub.close(), meteo.close(), pets.close()]);
  }
}

// `node --import tsx test/testing/stand-ins.ts`: re-record the repository's fixtures.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { REPO } = await import('../helpers/demo.js');
  const run = await recordRecipes(`${REPO}/recipes`);
  process.stdout.write(run.stdout + run.stderr);
  process.exitCode = run.status ?? 1;
}
