/**
 * Real tokenizers, when they are installed: `gpt-tokenizer` (OpenAI's o200k_base) and
 * `@anthropic-ai/tokenizer` (Anthropic's published tokenizer, which only approximates current Claude
 * models). Neither is a dependency of mcp-run: they are loaded with a dynamic import, so the CLI
 * bundle and the playground page never carry them (estimate.ts, which the page imports, stays a
 * heuristic). `mcp-run lint` counts with them where a project installed one, `npm run bench` and the
 * tests always (they are devDependencies); every figure names the tokenizer that made it.
 */

export interface Tokenizer {
  /** How figures name it: `o200k_base`, `claude (@anthropic-ai/tokenizer)`, `estimate`. */
  readonly name: string;
  count(text: string): number;
}

/** The named tokenizer, or undefined when its package is not installed. */
async function installed(name: 'o200k' | 'claude'): Promise<Tokenizer | undefined> {
  try {
    if (name === 'o200k') {
      const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
      return { name: 'o200k_base (gpt-tokenizer)', count: (text) => countTokens(text) };
    }
    const { getTokenizer } = await import('@anthropic-ai/tokenizer');
    const tokenizer = getTokenizer();
    // One instance for every count: making one per text (its countTokens does) rebuilds the ranks.
    return {
      name: 'claude (@anthropic-ai/tokenizer)',
      count: (text) => tokenizer.encode(text.normalize('NFKC'), 'all').length,
    };
  } catch {
    return undefined;
  }
}

/** The installed real tokenizers, o200k first. */
export async function realTokenizers(): Promise<Tokenizer[]> {
  const found = await Promise.all([installed('o200k'), installed('claude')]);
  return found.filter((t) => t !== undefined);
}
