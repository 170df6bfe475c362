/**
 * The manifest reference (docs/manifest.md), rendered from the manifest JSON Schema so the two can
 * never drift: every section, every kind, every field with its type, default and description.
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is read field by field
type Schema = Record<string, any>;

const SECTIONS = ['sources', 'tools', 'resources', 'prompts'] as const;

export function renderReference(schema: Schema): string {
  const definitions: Record<string, Schema> = schema.definitions ?? {};
  const out: string[] = [
    '# Manifest reference',
    '',
    '<!-- Generated from schemas/manifest.schema.json by `npm run schema`; edit the kinds, not this file. -->',
    '',
    String(schema.description ?? ''),
    '',
    'A manifest has up to eight top-level sections. `server` describes the server; `sources`, `tools`,',
    '`resources` and `prompts` map names to entries, and each entry picks its implementation with',
    '`kind`. Beside them, `include` merges other manifest files in, `schemas` names JSON Schemas that',
    'tools share (both below the sections, and in manifest-files.md), `reload` says how hot reload',
    'treats an edit (contract.md), `skills` serves agent skills (skills.md), and `tests` lists test',
    'cases for `mcp-run test`. Any string value may',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own ${env:…} syntax, as text
    'use `${env:NAME}` or `${env:NAME:-default}`, or `${file:/run/secrets/name}` for the content of a',
    'file (a Docker or Kubernetes secret, watched for rotation); values taken from the environment or a',
    'file are secrets and never appear in logs.',
    '',
    '## server',
    '',
    ...fieldTable(schema.properties?.server ?? {}),
  ];
  for (const section of SECTIONS) {
    const kinds = Object.entries(definitions)
      .filter(([key]) => key.startsWith(`${section}.`) && !key.endsWith('.default'))
      .map(([key, def]) => [key.slice(section.length + 1), def] as const);
    out.push(`## ${section}`, '', String(schema.properties?.[section]?.description ?? ''), '');
    const common = commonFields(kinds.map(([, def]) => def));
    if (kinds.length > 1 && common.length > 0) {
      out.push(`### Fields of every ${section.slice(0, -1)}`, '');
      out.push(...fieldTable({ properties: pick(kinds[0]![1].properties, common), required: [] }));
    }
    for (const [kind, def] of kinds) {
      out.push(`### kind: ${kind}`, '', String(def.description ?? ''), '');
      const own = Object.keys(def.properties ?? {}).filter((f) => f !== 'kind' && !common.includes(f));
      out.push(...fieldTable({ properties: pick(def.properties, own), required: def.required ?? [] }));
    }
  }
  for (const extra of ['include', 'schemas'] as const) {
    const described = schema.properties?.[extra]?.description;
    if (described) out.push(`## ${extra}`, '', String(described), '');
  }
  const reload = schema.properties?.reload;
  if (reload) out.push('## reload', '', String(reload.description ?? ''), '', ...fieldTable(reload), '');
  const skills = schema.properties?.skills;
  if (skills) out.push('## skills', '', String(skills.description ?? ''), '', ...fieldTable(skills), '');
  const tests = schema.properties?.tests;
  if (tests) {
    out.push('## tests', '', String(tests.description ?? ''), '', 'Each case:', '');
    out.push(...fieldTable(tests.items ?? {}));
    out.push('', '`expect`:', '', ...fieldTable(tests.items?.properties?.expect ?? {}));
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** Fields every kind of a section has with the same schema (the section's common fields). */
function commonFields(kinds: Schema[]): string[] {
  if (kinds.length < 2) return [];
  const [first, ...rest] = kinds;
  return Object.keys(first!.properties ?? {}).filter(
    (field) =>
      field !== 'kind' &&
      rest.every((k) => JSON.stringify(k.properties?.[field]) === JSON.stringify(first!.properties[field])),
  );
}

function pick(properties: Schema | undefined, fields: readonly string[]): Schema {
  return Object.fromEntries(fields.map((f) => [f, properties?.[f]]));
}

function fieldTable(schema: Schema): string[] {
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(
    ([name, field]) =>
      `| \`${name}\`${required.has(name) ? ' (required)' : ''} | ${cell(typeOf(field))} | ${
        field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``
      } | ${cell(String(field.description ?? ''))} |`,
  );
  if (rows.length === 0) return ['No fields besides `kind`.', ''];
  return ['| field | type | default | description |', '| --- | --- | --- | --- |', ...rows, ''];
}

function typeOf(field: Schema): string {
  if (field.const !== undefined) return JSON.stringify(field.const);
  if (Array.isArray(field.enum)) return field.enum.map((v: unknown) => JSON.stringify(v)).join(' \\| ');
  const variants = field.oneOf ?? field.anyOf;
  if (Array.isArray(variants)) return variants.map(typeOf).join(' or ');
  const type = Array.isArray(field.type) ? field.type.join(' or ') : field.type;
  if (type === 'array') return `array of ${field.items ? typeOf(field.items) : 'any'}`;
  if (type === 'object' && field.properties) return `object (${Object.keys(field.properties).join(', ')})`;
  const bounds = [
    field.minimum !== undefined && `≥ ${field.minimum}`,
    field.maximum !== undefined && `≤ ${field.maximum}`,
  ].filter(Boolean);
  return `${type ?? 'any'}${bounds.length ? ` ${bounds.join(', ')}` : ''}`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
