/**
 * The JSON Schema of a policy (docs/governance.md#policies): CEL `allow`/`deny` over claims, args,
 * entry and toolset, and output rules that mask what a caller may not see; governance/policy/
 * compiles it. In util/ because the manifest's envelope (server.policies, a toolset's `policy`) and
 * the entries' common fields (an entry's `policy`) both declare it, and neither may import the
 * other: one schema, so the two cannot drift.
 */
export const OUTPUT_RULE_SCHEMA = {
  type: 'object',
  description:
    'What to hide from the result when this rule applies: `when` holds (default: always) and `unless` does not.',
  properties: {
    when: {
      type: 'string',
      minLength: 1,
      description: 'CEL: apply the rule when this holds, e.g. !("hr" in claims.roles).',
    },
    unless: { type: 'string', minLength: 1, description: 'CEL: do not apply the rule when this holds.' },
    mask: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'JSON paths whose values are masked: $.rows[*].ssn, $.owner.email, $..email (any depth). A string becomes "***", anything else null.',
    },
    drop: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'JSON paths whose keys are removed from the structured result (in plain text they are masked).',
    },
    columns: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'Columns of a SQL result to mask (the same as mask: [$.rows[*].<column>]), in the rows and in the table the model reads.',
    },
    detect: {
      type: 'array',
      items: { enum: ['email', 'phone', 'card', 'iban'] },
      description:
        'Mask what these detectors find in every string: email addresses, phone numbers, card numbers (Luhn-checked), IBANs (mod-97-checked).',
    },
  },
  additionalProperties: false,
} as const;

export const POLICY_SCHEMA = {
  type: 'object',
  properties: {
    description: { type: 'string', description: 'What the policy is for.' },
    allow: {
      type: 'string',
      minLength: 1,
      description: 'CEL that must hold for the call to go on, e.g. "analyst" in claims.roles.',
    },
    deny: {
      type: 'string',
      minLength: 1,
      description: 'CEL that refuses the call when it holds, e.g. args.limit > 1000.',
    },
    output: {
      type: 'array',
      items: OUTPUT_RULE_SCHEMA,
      description: 'Output rules: what to mask, for whom.',
    },
  },
  additionalProperties: false,
} as const;

/** `policy:` on an entry or a toolset: server policies by name, a policy of its own, or a list of both. */
export const POLICY_FIELD_SCHEMA = {
  description:
    "Who may use this and what of its results they see (docs/governance.md#policies): the name of a server policy, a policy of its own (`allow`, `deny`, `output`), or a list of both. Every policy that applies must pass; an entry the caller's claims alone refuse is left out of that caller's lists.",
  anyOf: [
    { type: 'string', minLength: 1 },
    POLICY_SCHEMA,
    { type: 'array', items: { anyOf: [{ type: 'string', minLength: 1 }, POLICY_SCHEMA] } },
  ],
} as const;
