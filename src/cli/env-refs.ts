/**
 * The environment variables a manifest reads, found in its string values: `${env:NAME}` is
 * required (validate fails without it), `${env:NAME:-default}` optional, `$${env:…}` a literal and
 * not a reference. Comments are not values, so the YAML is parsed first.
 */
import { yamlLib } from '../manifest/yaml-lib.js';

export interface EnvReferences {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

const REFERENCE = /(\$?)\$\{env:([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g;

export function envReferences(text: string): EnvReferences {
  const required = new Set<string>();
  const optional = new Set<string>();
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      for (const [, escaped, name, fallback] of node.matchAll(REFERENCE)) {
        if (escaped || !name) continue;
        (fallback === undefined ? required : optional).add(name);
      }
    } else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  for (const doc of yamlLib().parseAllDocuments(text))
    if (!('errors' in doc && doc.errors.length)) walk(doc.toJS());
  for (const name of required) optional.delete(name);
  return { required: [...required].sort(), optional: [...optional].sort() };
}
