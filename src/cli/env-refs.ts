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
  // The scalars of the YAML nodes, not of its data: an alias is a node met once (data with an alias
  // inside its own anchor never ends), and a key is no value.
  const { visit } = yamlLib();
  for (const doc of yamlLib().parseAllDocuments(text)) {
    if ('errors' in doc && doc.errors.length) continue;
    visit(doc, {
      Scalar(key, node) {
        if (key === 'key' || typeof node.value !== 'string') return;
        for (const [, escaped, name, fallback] of node.value.matchAll(REFERENCE)) {
          if (escaped || !name) continue;
          (fallback === undefined ? required : optional).add(name);
        }
      },
    });
  }
  for (const name of required) optional.delete(name);
  return { required: [...required].sort(), optional: [...optional].sort() };
}
