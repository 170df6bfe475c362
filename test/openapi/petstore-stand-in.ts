/**
 * A stand-in for the Petstore APIs of the fixtures, on 127.0.0.1, answering as each document
 * describes it (and refusing what the API would refuse):
 *
 * - `/v1`: petstore.yaml (OpenAPI 3.0): list (`limit`), create (201, no content), show one pet;
 * - `/swagger/v1`: petstore.json (Swagger 2.0): the same, but showPetById answers `Pets`, an array;
 * - `/api`: petstore-expanded (3.0 and 2.0): find by tags, add (answers the new Pet), find by id,
 *   delete (204); tags arrive repeated (`tags=a&tags=b`) or comma-joined (`tags=a,b`).
 *
 * Errors are the documents' `Error` objects: `{code, message}`.
 */
import type { ServerResponse } from 'node:http';
import { type Seen, send, startUpstream, type Upstream } from '../kinds/http/upstream.js';

export interface Pet {
  id: number;
  name: string;
  tag?: string;
}

export interface PetstoreStandIn extends Upstream {
  readonly pets: Pet[];
}

export async function startPetstore(): Promise<PetstoreStandIn> {
  const pets: Pet[] = [
    { id: 1, name: 'Fido', tag: 'dog' },
    { id: 2, name: 'Tom', tag: 'cat' },
    { id: 3, name: 'Rex', tag: 'dog' },
  ];
  const upstream = await startUpstream(() => (seen, res) => answer(pets, seen, res));
  return Object.assign(upstream, { pets });
}

const error = (res: ServerResponse, status: number, message: string) =>
  send(res, status, { code: status, message });

function answer(pets: Pet[], seen: Seen, res: ServerResponse) {
  const url = new URL(seen.url, 'http://stand-in');
  const match = /^(\/v1|\/swagger\/v1|\/api)\/pets(?:\/([^/]+))?$/.exec(url.pathname);
  if (!match) return error(res, 404, `no route ${seen.method} ${url.pathname}`);
  const [, base, rawId] = match;
  const id = rawId === undefined ? undefined : decodeURIComponent(rawId);
  const found = id === undefined ? undefined : pets.find((p) => String(p.id) === id);
  const body = () => {
    if (!String(seen.headers['content-type']).startsWith('application/json')) return undefined;
    try {
      return JSON.parse(seen.body) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };

  if (seen.method === 'GET' && id === undefined) {
    const limit = Number(url.searchParams.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return error(res, 400, 'limit must be 1 to 100');
    const tags = url.searchParams.getAll('tags').flatMap((t) => t.split(','));
    const chosen = pets.filter((p) => tags.length === 0 || tags.includes(p.tag ?? '')).slice(0, limit);
    return send(res, 200, chosen, base === '/api' ? {} : { 'x-next': `${base}/pets?page=2` });
  }
  if (seen.method === 'GET') {
    if (!found) return error(res, 404, `pet ${id} not found`);
    return send(res, 200, base === '/swagger/v1' ? [found] : found);
  }
  if (seen.method === 'POST' && id === undefined) {
    const data = body();
    if (typeof data?.name !== 'string') return error(res, 400, 'a pet needs a name');
    if (base === '/api') {
      const pet: Pet = {
        id: Math.max(0, ...pets.map((p) => p.id)) + 1,
        name: data.name,
        ...(typeof data.tag === 'string' && { tag: data.tag }),
      };
      pets.push(pet);
      return send(res, 200, pet);
    }
    if (typeof data.id !== 'number') return error(res, 400, 'a pet needs a numeric id');
    if (pets.some((p) => p.id === data.id)) return error(res, 409, `pet ${data.id} exists`);
    pets.push({ id: data.id, name: data.name, ...(typeof data.tag === 'string' && { tag: data.tag }) });
    res.writeHead(201).end();
    return;
  }
  if (seen.method === 'DELETE' && base === '/api' && id !== undefined) {
    if (!found) return error(res, 404, `pet ${id} not found`);
    pets.splice(pets.indexOf(found), 1);
    res.writeHead(204).end();
    return;
  }
  error(res, 405, `${seen.method} is not allowed here`);
}
