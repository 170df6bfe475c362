/**
 * A generated OpenAPI 3.0 document shaped like the GitHub REST description (which is not in the
 * repository, and the network is closed): about 900 operations over 40 tags, 600 component schemas
 * in three tiers that reference each other (a tier-2 "issue" reaches tier-1 "repository"s that
 * reach tier-0 "user"s), JSON bodies, path and query parameters, and an `issues` tag of 58
 * operations like the one the issue measured. Deterministic: the same options give the same text.
 */

export interface BigSpecOptions {
  readonly operations?: number;
  readonly tags?: number;
  /** Operations tagged `issues` (taken from the total). */
  readonly issues?: number;
}

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'repository',
  'issue',
  'pull',
  'comment',
  'label',
  'milestone',
  'user',
  'team',
  'project',
  'release',
  'asset',
  'hook',
  'check',
  'run',
  'deployment',
  'status',
  'branch',
  'commit',
  'tree',
  'blob',
];

export function bigSpec(options: BigSpecOptions = {}): Record<string, unknown> {
  const total = options.operations ?? 900;
  const tagCount = options.tags ?? 40;
  const issues = options.issues ?? 58;
  const rnd = random(14);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const word = () => pick(WORDS);
  const sentence = (n: number) =>
    Array.from({ length: n }, () => word())
      .join(' ')
      .replace(/^./, (c) => c.toUpperCase());

  const tiers = [200, 300, 100];
  const names: string[][] = tiers.map((count, tier) =>
    Array.from({ length: count }, (_, i) => `${word()}-${['simple', 'full', 'detailed'][tier]}-${i}`),
  );
  const schemas: Record<string, unknown> = {};
  for (const [tier, list] of names.entries()) {
    for (const name of list) {
      const properties: Record<string, unknown> = {};
      for (let p = 0; p < 12; p++) {
        const kind = p % 4;
        properties[`${word()}_${p}`] =
          kind === 0
            ? { type: 'string', description: sentence(8), example: 'octocat' }
            : kind === 1
              ? { type: 'integer', format: 'int64', description: sentence(6) }
              : kind === 2
                ? { type: 'boolean', description: sentence(5) }
                : {
                    type: 'string',
                    enum: ['open', 'closed', 'all'],
                    nullable: true,
                    description: sentence(6),
                  };
      }
      if (tier >= 1) {
        for (let r = 0; r < 3; r++)
          properties[`ref_${r}`] = { $ref: `#/components/schemas/${pick(names[tier - 1]!)}` };
        properties.owners = { type: 'array', items: { $ref: `#/components/schemas/${pick(names[0]!)}` } };
      }
      if (tier === 2) properties.extra = { $ref: `#/components/schemas/${pick(names[0]!)}` };
      schemas[name] = {
        title: name,
        description: sentence(12),
        type: 'object',
        properties,
        required: Object.keys(properties).slice(0, 4),
      };
    }
  }

  const tags = ['issues', ...Array.from({ length: tagCount - 1 }, (_, i) => `${word()}s-${i}`)];
  const paths: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < total; i++) {
    const tag = i < issues ? 'issues' : tags[1 + (i % (tagCount - 1))]!;
    const method = ['get', 'get', 'get', 'post', 'patch', 'delete'][i % 6]!;
    const path = `/repos/{owner}/{repo}/${tag}/${word()}-${i}/{id}`;
    const response =
      method === 'delete'
        ? { description: 'No content' }
        : {
            description: 'Response',
            content: {
              'application/json': {
                schema:
                  i % 3 === 0
                    ? { type: 'array', items: { $ref: `#/components/schemas/${pick(names[1]!)}` } }
                    : { $ref: `#/components/schemas/${pick(names[2]!)}` },
              },
            },
          };
    const op: Record<string, unknown> = {
      operationId: `${tag}/${method}-${word()}-${i}`,
      summary: sentence(5),
      description: sentence(30),
      tags: [tag],
      parameters: [
        { name: 'owner', in: 'path', required: true, schema: { type: 'string' }, description: 'The owner.' },
        {
          name: 'repo',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'The repository.',
        },
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: sentence(6) },
        ...(method === 'get'
          ? [
              { name: 'per_page', in: 'query', schema: { type: 'integer', default: 30, maximum: 100 } },
              { name: 'page', in: 'query', schema: { type: 'integer', default: 1 } },
              { name: 'state', in: 'query', schema: { type: 'string', enum: ['open', 'closed', 'all'] } },
            ]
          : []),
      ],
      responses: { [method === 'post' ? '201' : method === 'delete' ? '204' : '200']: response },
    };
    if (method === 'post' || method === 'patch') {
      op.requestBody = {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: Object.fromEntries(
                Array.from({ length: 5 }, (_, f) => [
                  `${word()}_${f}`,
                  { type: 'string', description: sentence(6) },
                ]),
              ),
              required: [],
            },
          },
        },
      };
    }
    paths[path] = { ...paths[path], [method]: op };
  }
  return {
    openapi: '3.0.3',
    info: { title: "GitHub's official OpenAPI spec (generated stand-in)", version: '1.1.4' },
    servers: [{ url: 'https://api.github.com' }],
    tags: tags.map((name) => ({ name })),
    security: [{ token: [] }],
    paths,
    components: { schemas, securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
  };
}
