/**
 * The import rules of src/ (docs/architecture.md, "The rooms"), checked by `npm run lint`:
 * no circle anywhere, the rooms import downwards only, and a kind reaches the core only through its
 * contract.
 */
/** A kind family: any folder of src/kinds/ but the contract and the shared helpers (group 1: its name). */
const FAMILY = '^src/kinds/(?!contract/|shared/)([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'governance-knows-no-wire',
      severity: 'error',
      comment:
        'Policies, limits and the audit trail (governance/) sit below the catalog that applies them: they know no JSON-RPC framing, transport, kind family, CLI or playground. Shared counters go through state/.',
      from: { path: '^src/governance/' },
      to: {
        path: '^src/(catalog|protocol|transports|cli|dev|openapi|testing|lint|steps|tasks)/|^src/kinds/(?!contract/|shared/)',
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle: the layers must stay one-way (file → manifest → catalog → protocol → wire).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'kinds-stay-behind-their-contract',
      severity: 'error',
      comment:
        'A kind imports only kinds/contract, its own family, kinds/shared, errors, util and log; never the catalog, the steps, the protocol, the transports, the CLI or the manifest pipeline.',
      from: { path: '^src/kinds/[^/]+/' },
      to: { path: '^src/(catalog|steps|protocol|transports|cli|openapi|manifest)/' },
    },
    {
      name: 'the-registry-stays-below-the-steps',
      severity: 'error',
      comment:
        "The registry and its list (kinds/registry.ts, kinds/builtin.ts) sit below every room that uses kinds: the fields a section's entries share (a tool's steps among them) come from kinds/contract/, never from steps/, the catalog or anything above.",
      from: { path: '^src/kinds/[^/]+$' },
      to: { path: '^src/(steps|catalog|tasks|protocol|transports|state|ops|cli|dev|openapi|testing|lint)/' },
    },
    {
      name: 'manifest-knows-no-kind',
      severity: 'error',
      comment:
        'The manifest pipeline (parse, validate, resolve) is the lowest room but util/: it imports only itself, util/, errors.ts and log.ts. The kinds reach it through the KindSchemas interface it declares (manifest/types.ts), never the other way; a type both need lives in util/.',
      from: { path: '^src/manifest/' },
      to: { path: '^src/', pathNot: '^src/(manifest/|util/|errors\\.ts$|log\\.ts$)' },
    },
    {
      name: 'kind-families-stay-apart',
      severity: 'error',
      comment:
        'A family uses another family only through kinds/shared: a helper two families need belongs there.',
      from: { path: FAMILY },
      to: { path: '^src/kinds/(?!contract/|shared/)[^/]+/', pathNot: '^src/kinds/$1/' },
    },
    {
      name: 'sql-engines-stay-apart',
      severity: 'error',
      comment:
        'An SQL engine (a folder of kinds/sql/) uses another only through the family root: what two engines need is written there once.',
      from: { path: '^src/kinds/sql/([^/]+)/' },
      to: { path: '^src/kinds/sql/[^/]+/', pathNot: '^src/kinds/sql/$1/' },
    },
    {
      name: 'sql-root-knows-no-engine',
      severity: 'error',
      comment:
        'The tools, resources and helpers at the root of kinds/sql/ serve every engine through the sql capability, so they import none (builtin.ts names the engines).',
      from: { path: '^src/kinds/sql/[^/]+$' },
      to: { path: '^src/kinds/sql/[^/]+/' },
    },
    {
      name: 'shared-and-contract-know-no-family',
      severity: 'error',
      comment: 'kinds/shared and kinds/contract serve every family, so they import none.',
      from: { path: '^src/kinds/(contract|shared)/' },
      to: { path: '^src/kinds/(?!contract/|shared/)[^/]+/' },
    },
    {
      name: 'core-knows-no-kind',
      severity: 'error',
      comment:
        'The catalog, the steps, the protocol and the transports never name a kind; only the contract.',
      from: { path: '^src/(catalog|steps|protocol|transports)/' },
      to: { path: '^src/kinds/', pathNot: '^src/kinds/(contract/|shared/template|registry)' },
    },
    {
      name: 'steps-stay-below-the-catalog',
      severity: 'error',
      comment:
        'The catalog builds on the steps (it wraps tools and prompts with them), so the steps never import the catalog: what both need lives lower (manifest/, kinds/contract/, util/).',
      from: { path: '^src/steps/' },
      to: { path: '^src/catalog/' },
    },
    {
      name: 'only-the-registry-names-a-family',
      severity: 'error',
      comment:
        "Outside src/kinds/, a kind family is named only by the registry's list (kinds/builtin.ts): the OpenAPI importer, the CLI and the rest reach a family's helpers through a lower room (util/, kinds/shared/ for families), never its internals.",
      from: { path: '^src/', pathNot: '^src/kinds/' },
      to: { path: '^src/kinds/(?!contract/|shared/)[^/]+/' },
    },
    {
      name: 'protocol-knows-no-yaml',
      severity: 'error',
      comment: 'The protocol and the transports know nothing of the manifest side.',
      from: { path: '^src/(protocol|transports)/' },
      to: { path: '^src/(manifest|kinds|steps/(?!interaction)|cli|openapi)' },
    },
    {
      name: 'only-the-cli-reaches-the-playground',
      severity: 'error',
      comment:
        'The dev playground (src/dev/) is served by `mcp-run dev` alone: the core and the plain command never import it.',
      from: { path: '^src/', pathNot: '^src/(dev/|cli/dev\\.ts$|cli/program\\.ts$)' },
      to: { path: '^src/dev/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-page-stays-in-the-browser',
      severity: 'error',
      comment:
        'src/ never imports the page (web/, bundled for the browser); the page takes from src/ only code with no Node in it (the token estimate).',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'the-page-takes-only-pure-code',
      severity: 'error',
      comment: 'The page (web/) runs in a browser: of src/ it may import only the token estimate.',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/lint/estimate\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
