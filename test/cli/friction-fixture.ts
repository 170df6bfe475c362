/**
 * The manifest the command-line tests (friction.test.ts, manifest-arg.test.ts) run against: shell
 * tools that fail on stderr and take an array, SQL tools over an in-memory SQLite, a prompt and an
 * in-manifest test case.
 */
export const FRICTION_MANIFEST = `server: { name: friction }
sources:
  scratch: { kind: sqlite, path: ":memory:" }
tools:
  fails:
    kind: shell
    description: Prints a warning on stderr, then fails.
    command: ["sh", "-c", "echo 'stderr line one' >&2; echo 'stderr line two' >&2; exit 3"]
  tagged:
    kind: shell
    description: |
      Echoes the tags it is given.
      A second line of the description.
    input:
      tags: { type: array, items: { type: string }, description: The tags }
    command: ["echo", "{{tags}}"]
  sum:
    kind: sql
    source: scratch
    description: Adds up numbers.
    input:
      ids: { type: array, items: { type: integer }, description: Numbers to add }
    sql: SELECT (SELECT SUM(value) FROM json_each(:ids)) AS total
  query:
    kind: sql-query
    source: scratch
prompts:
  hello:
    description: Says hello.
    messages: [{ text: Hello! }]
tests:
  - { prompt: hello, expect: { contains: Hello } }
`;
