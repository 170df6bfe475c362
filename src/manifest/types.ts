/**
 * Types of the manifest side of the pipeline: parse → validate → resolve. Nothing here knows MCP.
 */
import type { Diagnostic, Problem } from '../errors.js';

/** A path from the manifest root, e.g. ['tools', 'find_orders', 'sql']. */
export type ManifestPath = readonly (string | number)[];

/** The manifest's top-level sections that hold named, kinded entries. */
export const ENTRY_SECTIONS = ['sources', 'tools', 'resources', 'prompts'] as const;
export type EntrySection = (typeof ENTRY_SECTIONS)[number];

/** One entry as the user wrote it (after `${env:…}` resolution). */
export interface EntryConfig {
  readonly kind: string;
  readonly [field: string]: unknown;
}

export interface ServerSection {
  readonly name?: string;
  readonly version?: string;
  readonly title?: string;
  readonly description?: string;
  readonly instructions?: string;
  readonly pageSize?: number;
  /** Whether tools list the outputSchema a kind derives (sql rows): only when `derived`. */
  readonly outputSchemas?: 'derived' | 'declared';
  /** OAuth resource server settings (HTTP only); transports/http/auth.ts reads them. */
  readonly auth?: ServerAuthSection;
  /** The toolset the default endpoint and stdio without --toolset serve (catalog/toolsets.ts). */
  readonly defaultToolset?: string;
  /** Named policies (governance/policy/); their shape is governance/policy/policy.ts PolicyConfig. */
  readonly policies?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** How tools/list discloses a big catalog (catalog/disclosure.ts). */
  readonly catalog?: CatalogSection;
  /** Resources and prompts served as tools too, unless an entry says `mirror: false` (catalog/mirror.ts). */
  readonly mirror?: boolean | { readonly resources?: boolean; readonly prompts?: boolean };
  /** Limits per caller over the whole server (governance/limits/); `requests` is HTTP-level (429). */
  readonly limits?: LimitsSection & { readonly requests?: string };
  /** Limits and timings of tasks (src/tasks/types.ts TaskSettings). */
  readonly tasks?: {
    readonly ttlMs?: number;
    readonly pollIntervalMs?: number;
    readonly maxPerCaller?: number;
    readonly maxBytes?: number;
  };
  /** The audit trail (governance/audit/): where it goes and what it records. */
  readonly audit?: ServerAuditSection;
}

/** `server.audit` (docs/governance.md#audit-trail). */
export interface ServerAuditSection {
  /** The JSON Lines file, relative to the manifest. */
  readonly file?: string;
  /** Size at which the file is rotated: `10MB`, or bytes. */
  readonly rotate?: string | number;
  /** Rotated files kept. */
  readonly keep?: number;
  readonly sink?: 'file' | 'stderr' | 'otel';
  /** `sink: otel`: the OTLP/HTTP endpoint (default from the OTEL_EXPORTER_OTLP_* environment). */
  readonly endpoint?: string;
  /** The methods audited (default tools/call, resources/read, prompts/get). */
  readonly include?: readonly string[];
  /** Queued bytes before new requests wait or are refused: `4MB`, or bytes. */
  readonly buffer?: string | number;
  readonly onBackpressure?: 'block' | 'refuse';
  /** Names this writer's chain (default hostname-pid-start). */
  readonly writer?: string;
}

/** A `limits:` block (server, toolset or entry): rates like `60/minute` and a cap on calls at once. */
export interface LimitsSection {
  readonly calls?: string | readonly string[];
  readonly concurrent?: number;
}

/** `catalog:` of the server or a toolset: every tool listed (`full`) or meta-tools over them (`search`). */
export interface CatalogSection {
  readonly mode: 'full' | 'search';
  readonly pin?: readonly string[];
}

export interface ServerAuthSection {
  readonly issuer: string;
  readonly resource?: string;
  readonly authorizationServers?: readonly string[];
  readonly jwksUri?: string;
  readonly algorithms?: readonly string[];
  readonly clockToleranceSec?: number;
  readonly introspection?: {
    readonly endpoint?: string;
    readonly clientId: string;
    readonly clientSecret: string;
  };
  readonly resourceName?: string;
  readonly scopes?: {
    readonly required?: readonly string[];
    readonly tools?: Readonly<Record<string, readonly string[]>>;
    readonly resources?: Readonly<Record<string, readonly string[]>>;
    readonly prompts?: Readonly<Record<string, readonly string[]>>;
  };
}

export interface ManifestData {
  readonly server?: ServerSection;
  readonly sources?: Readonly<Record<string, EntryConfig>>;
  readonly tools?: Readonly<Record<string, EntryConfig>>;
  readonly resources?: Readonly<Record<string, EntryConfig>>;
  readonly prompts?: Readonly<Record<string, EntryConfig>>;
  /** Named groups of tools, resources and prompts, each served on its own endpoint (catalog/toolsets.ts). */
  readonly toolsets?: Readonly<
    Record<
      string,
      {
        readonly description?: string;
        readonly tools?: readonly string[];
        readonly resources?: readonly string[];
        readonly prompts?: readonly string[];
        readonly skills?: readonly string[];
        readonly scopes?: readonly string[];
        readonly limits?: LimitsSection;
        /** Policies for what is served through the toolset (governance/policy/). */
        readonly policy?: unknown;
        readonly catalog?: CatalogSection;
      }
    >
  >;
  /** Shared JSON Schemas, referenced as `$ref: '#/schemas/Name'` (src/manifest/schemas.ts). */
  readonly schemas?: Readonly<Record<string, object | boolean>>;
  /** Other manifest files merged into this one (src/manifest/include.ts). */
  readonly include?: readonly string[];
  /** Test cases for `mcp-run test` (src/testing/cases.ts reads them); serving ignores them. */
  readonly tests?: readonly unknown[];
  /** How hot reload treats an edit (src/catalog/reload.ts). */
  readonly reload?: ReloadSection;
  /** Agent skills served over the skills extension (src/catalog/skill-folders.ts, docs/skills.md). */
  readonly skills?: SkillsSection;
}

export interface SkillsSection {
  /** Folders of skills, relative to the manifest: each subfolder holding a SKILL.md is one skill. */
  readonly folders?: readonly string[];
  /** Serve `resources/directory/read` (the extension's `directoryRead`); default true. */
  readonly directoryRead?: boolean;
  /** Skills per skills/list page and children per directory page; default server.pageSize. */
  readonly pageSize?: number;
  /** Toolsets to generate a skill from, each (reserved for the generated skills). */
  readonly fromToolsets?: readonly string[];
}

export interface ReloadSection {
  /** Keep serving the last good catalog when an edit breaks the contract (docs/contract.md). */
  readonly refuseBreaking?: boolean;
}

/**
 * What validation needs from the kind registry, without knowing about kinds: the known kind names of
 * a section, and the full JSON Schema of one kind's entries.
 */
export interface KindSchemas {
  kinds(section: EntrySection): readonly string[];
  /** The schema an entry of this kind must satisfy (its fields plus the section's common fields). */
  schema(section: EntrySection, kind: string): object | undefined;
  /** The kind an entry gets when it names none (prompts default to `template`), if any. */
  defaultKind(section: EntrySection): string | undefined;
}

/** A parsed, validated and resolved manifest, with the means to point back into its text. */
export interface LoadedManifest {
  /** Absolute path of the manifest file. */
  readonly file: string;
  /** Absolute folder of the manifest file. */
  readonly baseDir: string;
  /** The manifest's text, hashed by reload to skip edits that change nothing. */
  readonly text: string;
  /** Absolute paths of the files it includes (`include:`), which reload watches too. */
  readonly includes?: readonly string[];
  /** Validated data with `${env:…}` resolved; entries without `kind` have their default kind set. */
  readonly data: ManifestData;
  /** Values that came from the environment: the logger redacts them. */
  readonly secrets: readonly string[];
  /** The `${file:…}` secrets' absolute paths: hot reload watches them, and rebuilds when one changes. */
  readonly secretFiles?: readonly string[];
  /**
   * Turns a problem at a path into a diagnostic with file:line:col and a code frame; `needle`, text
   * inside the value at the path, moves the caret onto it (a policy expression's bad token).
   */
  diagnose(path: ManifestPath, problem: Problem, needle?: string): Diagnostic;
  /**
   * Only when loaded with `deferErrors`: the errors found before compiling (structure, environment),
   * which compile reports together with its own, and the warnings (offline: values needed at serve time).
   */
  readonly errors?: readonly Diagnostic[];
  readonly warnings?: readonly Diagnostic[];
  /** Entries that failed before compiling (or cannot be checked offline): compile skips them. */
  readonly skipped?: (section: EntrySection, name: string) => boolean;
}

export interface LoadOptions {
  /**
   * Return the manifest with its errors instead of throwing, so that compile checks every entry
   * that passed its schema and reports both at once. The file is still refused outright when it does
   * not parse, is not a mapping, or declares no section.
   */
  readonly deferErrors?: boolean;
  /** No secrets: a missing `${env:…}` is a warning (needed at serve time), not an error. */
  readonly offline?: boolean;
}
