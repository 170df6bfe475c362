/**
 * Claim-bound inputs: `owner: { fromClaim: email }` in a tool's `input:` (or a prompt's `arguments:`)
 * takes the argument's value from the caller's verified OAuth access token, so a query can be bound
 * to who is asking.
 *
 * - The kind sees it as one more declared argument (SQL `:owner`, `{{owner}}` in a path, a query,
 *   a header or a program's argv), with its schema minus `fromClaim`.
 * - The model never sees it: it is left out of the inputSchema `tools/list` shows.
 * - An argument that names it is refused, never overwritten silently: a caller that tries to set
 *   it is told so.
 * - Without a verified identity (stdio, a static token, an API key) the call is refused; so is a
 *   token without the claim, or a claim value that does not fit the input's schema.
 */

import type { Problem } from '../errors.js';
import { problems } from '../errors.js';
import { noteRedacted } from '../governance/audit/note.js';
import type { EntryPath } from '../kinds/contract/kinds.js';
import { type CallerIdentity, InvalidRequestParams, ResourceNotFound } from '../kinds/contract/types.js';
import type { Validator } from '../manifest/user-schemas.js';
import { isObject } from '../util/is-object.js';
import type { CatalogPrompt, CatalogTemplate, JsonSchema } from './types.js';

export interface ClaimBinding {
  /** The argument's name. */
  readonly name: string;
  /** The claim of the access token its value comes from. */
  readonly claim: string;
  /** The input's own schema, applied to the claim's value. */
  readonly validate: Validator | undefined;
  /** Whether the schema names a `type`; without one only strings, numbers and booleans are taken. */
  readonly typed: boolean;
}

export interface ClaimInputs {
  /** The input as the kind sees it: every argument, `fromClaim` removed. */
  readonly kindInput: Record<string, JsonSchema> | undefined;
  /** The input as the model sees it: without the claim-bound arguments. */
  readonly shownInput: Record<string, JsonSchema> | undefined;
  readonly bindings: readonly ClaimBinding[];
}

const FIELD = 'fromClaim';

/** Splits `input:` into what the kind and the model see; reports a malformed `fromClaim`. */
export function claimInputs(
  input: Record<string, JsonSchema> | undefined,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
  compile: (schema: JsonSchema) => Validator,
): ClaimInputs {
  if (input === undefined || !Object.values(input).some((s) => isObject(s) && FIELD in s))
    return { kindInput: input, shownInput: input, bindings: [] };
  const kindInput: Record<string, JsonSchema> = {};
  const shownInput: Record<string, JsonSchema> = {};
  const bindings: ClaimBinding[] = [];
  for (const [name, schema] of Object.entries(input)) {
    const define = (target: Record<string, JsonSchema>, value: JsonSchema) =>
      Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
    if (!isObject(schema) || !(FIELD in schema)) {
      define(kindInput, schema);
      define(shownInput, schema);
      continue;
    }
    const { [FIELD]: claim, ...rest } = schema as JsonSchema;
    define(kindInput, rest);
    if (typeof claim !== 'string' || claim === '') {
      report(
        [...at, name, FIELD],
        problems.MANIFEST_INVALID_VALUE(
          'fromClaim names a claim of the caller’s access token, e.g. fromClaim: email',
        ),
      );
      continue;
    }
    if ('default' in rest) {
      report(
        [...at, name, 'default'],
        problems.MANIFEST_INVALID_VALUE(
          `input "${name}" comes from the "${claim}" claim; it cannot have a default`,
          'remove the default: a caller without the claim is refused',
        ),
      );
    }
    const { required: _flag, ...own } = rest;
    let validate: Validator | undefined;
    try {
      validate = compile(own);
    } catch (err) {
      report([...at, name], problems.SCHEMA_INVALID((err as Error).message));
    }
    bindings.push({ name, claim, validate, typed: 'type' in own });
  }
  return { kindInput, shownInput, bindings };
}

/** A verbatim `inputSchema` cannot bind claims: its properties are served as they are. */
export function refuseVerbatimClaims(
  schema: JsonSchema,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property) || !(FIELD in property)) continue;
    report(
      [...at, 'properties', name, FIELD],
      problems.MANIFEST_INVALID_VALUE(
        'fromClaim works in `input:` only: a verbatim inputSchema is served unchanged',
        'declare the arguments with `input:` instead',
      ),
    );
  }
}

/** Arguments that try to set a claim-bound input: the refusal, or undefined. `what`: "Tool x", "Prompt y". */
export function claimOverride(
  what: string,
  bindings: readonly ClaimBinding[],
  args: object,
): string | undefined {
  const set = bindings.filter((b) => Object.hasOwn(args, b.name));
  if (set.length === 0) return undefined;
  // Whatever the caller put where a claim goes stays out of the audit record.
  noteRedacted(set.map((b) => `/${b.name.replaceAll('~', '~0').replaceAll('/', '~1')}`));
  const names = set.map((b) => `"${b.name}" (from the "${b.claim}" claim)`).join(', ');
  return `${what} refused the call: the argument ${names} is set from the caller's verified access token and cannot be passed. Call it again without it.`;
}

/** Writes each bound value into `values`; returns the refusal when it cannot. */
export function bindClaims(
  what: string,
  bindings: readonly ClaimBinding[],
  values: Record<string, unknown>,
  identity: CallerIdentity | undefined,
): string | undefined {
  if (bindings.length === 0) return undefined;
  if (identity === undefined) {
    const claims = [...new Set(bindings.map((b) => `"${b.claim}"`))].join(', ');
    return `${what} needs the caller's verified identity (the ${claims} claim of an OAuth access token), and this call has none: it is served only over HTTP with OAuth (server.auth), not over stdio, a static bearer token or an API key.`;
  }
  for (const binding of bindings) {
    const value = Object.hasOwn(identity.claims, binding.claim) ? identity.claims[binding.claim] : undefined;
    if (value === undefined || value === null)
      return `${what} needs the "${binding.claim}" claim of the caller's access token, and the token has none; ask the authorization server to include it.`;
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    const mismatch =
      !binding.typed && !scalar
        ? 'it is not a string, number or boolean (declare a type to accept it)'
        : binding.validate?.(value);
    // The claim's value is the caller's own data, but it is not repeated: it may be personal.
    if (mismatch !== undefined)
      return `${what} cannot use the "${binding.claim}" claim of the caller's access token for "${binding.name}": ${mismatch}.`;
    values[binding.name] = value;
  }
  return undefined;
}

/**
 * A prompt's claim-bound arguments (`fromClaim` under `arguments:`): the arguments as the kind sees
 * them (`fromClaim` removed) and the bindings. A prompt argument is a string, so a claim's number or
 * boolean is passed as its text.
 */
export function claimArguments(
  args: Readonly<Record<string, object>> | undefined,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): {
  readonly kindArguments: Record<string, object> | undefined;
  readonly bindings: readonly ClaimBinding[];
} {
  if (args === undefined || !Object.values(args).some((a) => isObject(a) && FIELD in a))
    return { kindArguments: args as Record<string, object> | undefined, bindings: [] };
  const kindArguments: Record<string, object> = {};
  const bindings: ClaimBinding[] = [];
  for (const [name, argument] of Object.entries(args)) {
    const { [FIELD]: claim, ...rest } = argument as Record<string, unknown>;
    Object.defineProperty(kindArguments, name, { value: rest, enumerable: true, writable: true });
    if (claim === undefined) continue;
    if ('enum' in rest || 'complete' in rest)
      report(
        [...at, name, FIELD],
        problems.MANIFEST_INVALID_VALUE(
          `argument "${name}" comes from the "${String(claim)}" claim: no client chooses it, so it has no enum or complete list`,
        ),
      );
    bindings.push({ name, claim: String(claim), validate: undefined, typed: false });
  }
  return { kindArguments, bindings };
}

/**
 * The prompt as a client sees it: without its claim-bound arguments, which a client may not pass
 * and which `get` fills from the caller's verified identity (or refuses to, saying why).
 */
export function claimPrompt(prompt: CatalogPrompt, bindings: readonly ClaimBinding[]): CatalogPrompt {
  const bound = new Set(bindings.map((b) => b.name));
  const { arguments: all, ...rest } = prompt.descriptor;
  const visible = all?.filter((a) => !bound.has(a.name));
  const what = `Prompt ${prompt.descriptor.name}`;
  return {
    descriptor: visible && visible.length > 0 ? { ...rest, arguments: visible } : rest,
    ...(prompt.argumentHints !== undefined && { argumentHints: prompt.argumentHints }),
    async get(args, signal, caller) {
      const override = claimOverride(what, bindings, args);
      if (override !== undefined) throw new InvalidRequestParams(override);
      const values: Record<string, unknown> = { ...args };
      const unbound = bindClaims(what, bindings, values, caller?.identity);
      if (unbound !== undefined) throw new InvalidRequestParams(unbound);
      for (const { name } of bindings) values[name] = String(values[name]);
      return prompt.get(values as Record<string, string>, signal, caller);
    },
    complete: (argument, prefix, context) =>
      bound.has(argument) ? Promise.resolve([]) : prompt.complete(argument, prefix, context),
  };
}

/**
 * A resource entry's claim-bound template variables (`fromClaim` under `variables:`): the variables
 * as the kind sees them (`fromClaim` removed) and the bindings. A variable is text, so a claim's
 * number or boolean is compared as its text.
 */
export function claimVariables(
  variables: Readonly<Record<string, object>> | undefined,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): {
  readonly kindVariables: Record<string, object> | undefined;
  readonly bindings: readonly ClaimBinding[];
} {
  const { kindArguments, bindings } = claimArguments(variables, at, report);
  return { kindVariables: kindArguments, bindings };
}

/**
 * A template whose variables include claim-bound ones, as clients see it. The URI template is listed
 * unchanged (a client must still write the whole URI), but a read is bound: the URI's value for each
 * bound variable must equal the caller's claim, and any other value is not found, exactly as a URI
 * no one serves, so a caller learns nothing of what other callers' URIs hold or whether they exist.
 * Without a verified identity (or the claim) the read is refused, saying why. Completion offers
 * nothing for a bound variable, and completes the others with the bound ones set from the caller
 * (a client's context cannot set them), or offers nothing without an identity.
 */
export function claimTemplate(template: CatalogTemplate, bindings: readonly ClaimBinding[]): CatalogTemplate {
  const names = templateNames(template.descriptor.uriTemplate);
  const own = bindings.filter((b) => names.has(b.name));
  if (own.length === 0) return template;
  const bound = new Set(own.map((b) => b.name));
  const what = `Resource template ${template.descriptor.uriTemplate}`;
  const hints = template.argumentHints;
  const shown = hints && Object.fromEntries(Object.entries(hints).filter(([name]) => !bound.has(name)));
  const fill = (context: Readonly<Record<string, string>>, identity: CallerIdentity | undefined) => {
    const values: Record<string, unknown> = { ...context };
    const refusal = bindClaims(what, own, values, identity);
    return { values, refusal };
  };
  return {
    descriptor: template.descriptor,
    ...(shown !== undefined && Object.keys(shown).length > 0 && { argumentHints: shown }),
    callerBound: true,
    boundVariables: [...bound],
    bindVariables(given, identity) {
      const override = claimOverride(what, own, given);
      if (override !== undefined) return override;
      const { values, refusal } = fill(given, identity);
      if (refusal !== undefined) return refusal;
      const filled: Record<string, string> = {};
      for (const [name, value] of Object.entries(values))
        Object.defineProperty(filled, name, { value: String(value), enumerable: true });
      return filled;
    },
    match: (uri) => template.match(uri),
    async read(uri, vars, signal, identity) {
      const { values, refusal } = fill({}, identity);
      if (refusal !== undefined) throw new InvalidRequestParams(refusal);
      // Another caller's URI is not found, the same answer as a URI nobody serves.
      if (own.some((b) => vars[b.name] !== String(values[b.name]))) throw new ResourceNotFound(uri);
      return template.read(uri, vars, signal, identity);
    },
    async complete(variable, prefix, context, identity) {
      if (bound.has(variable)) return [];
      const { values, refusal } = fill({}, identity);
      if (refusal !== undefined) return [];
      const mine: Record<string, string> = { ...context };
      for (const { name } of own) mine[name] = String(values[name]);
      return template.complete(variable, prefix, mine, identity);
    },
  };
}

/** The variable names of a URI template (`{owner}`, `{+path}`, `{?q,page}`). */
export function templateNames(uriTemplate: string): Set<string> {
  const names = new Set<string>();
  for (const [, body] of uriTemplate.matchAll(/\{([^}]*)\}/g))
    for (const part of (body ?? '').replace(/^[+#./;?&]/, '').split(','))
      names.add(part.replace(/[*]$|:\d+$/, '').trim());
  return names;
}

/** The warning for claim-bound values in a manifest without `server.auth`: nothing can supply them. */
export function claimsWithoutAuth(
  what: 'input' | 'argument' | 'variable',
  bindings: readonly ClaimBinding[],
  so: string,
): string {
  const names = bindings.map((b) => `"${b.name}"`).join(', ');
  return `${what} ${names} comes from the caller's access token (fromClaim), but the manifest has no server.auth: without OAuth no call carries a verified identity, so ${so}`;
}
