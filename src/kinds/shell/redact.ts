/**
 * Secrets of a `shell` tool, kept out of everything it returns. The manifest resolves `${env:…}`
 * before a kind sees its config, so the kind cannot tell which `env:` values came from the
 * environment: every literal part of an `env:` value (the text around its `{{…}}` templates) that
 * is at least MIN_SECRET_LENGTH characters long counts as a secret, and is replaced by `***` in
 * stdout, stderr, log messages, progress messages and error texts. Arguments the model passes are
 * not secrets (it knows them).
 */

/** As in the logger: replacing every "1" or "yes" would garble the text. */
export const MIN_SECRET_LENGTH = 4;

export interface Redactor {
  readonly redact: (text: string) => string;
  /**
   * For text cut at a byte cap: also drops a trailing start of a secret (the rest of it was cut), so
   * that no prefix of a secret is shown.
   */
  readonly redactCut: (text: string) => string;
}

export function secretsOfEnv(env: Readonly<Record<string, string>> | undefined): string[] {
  const secrets = new Set<string>();
  for (const value of Object.values(env ?? {})) {
    for (const part of value.split(/\{\{[^}]*\}\}\}?/)) {
      if (part.length < MIN_SECRET_LENGTH) continue;
      secrets.add(part);
      // As it appears inside a JSON string a program prints.
      const json = JSON.stringify(part).slice(1, -1);
      if (json !== part) secrets.add(json);
    }
  }
  // Longest first, so a secret containing another is replaced whole.
  return [...secrets].sort((a, b) => b.length - a.length);
}

export function redactor(secrets: readonly string[]): Redactor {
  const redact = (text: string) =>
    secrets.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join('***') : out), text);
  return {
    redact,
    redactCut(text) {
      let out = redact(text);
      for (const secret of secrets) {
        for (let k = Math.min(secret.length - 1, out.length); k > 0; k--) {
          if (out.endsWith(secret.slice(0, k))) {
            out = out.slice(0, -k);
            break;
          }
        }
      }
      return out;
    },
  };
}
