/**
 * "Did you mean": the closest candidate by Damerau-Levenshtein distance (optimal string alignment),
 * as commander suggests commands. Only a candidate close enough to be a plausible typo is offered.
 *
 * The input may come from a caller (describe_tool's name, browse_tools' group), so the work is
 * bounded: no suggestion for an input longer than MAX_INPUT or than twice the longest candidate
 * (nothing that long is a typo of one), and each distance stops as soon as it must exceed the limit.
 */

/** Inputs longer than this get no suggestion: no name a person types by hand is that long. */
const MAX_INPUT = 128;

export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  if (input.length > MAX_INPUT) return undefined;
  const names = [...candidates];
  const longest = names.reduce((most, name) => Math.max(most, name.length), 0);
  if (input.length > 2 * longest) return undefined;
  const typed = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of names) {
    const limit = Math.max(1, Math.floor(Math.max(input.length, candidate.length) * 0.4));
    const bound = Math.min(limit, bestDistance - 1);
    if (bound < 0 || Math.abs(candidate.length - input.length) > bound) continue;
    const d = boundedDistance(typed, candidate.toLowerCase(), bound);
    if (d <= bound) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The distance from `a` to `b`, or `bound + 1` once it is sure to exceed `bound`. Three rolling
 * rows (a transposition looks two rows back); a path through the table crosses every row or skips
 * one by a transposition, and never decreases, so when two rows in a row all exceed the bound, the
 * distance does too.
 */
function boundedDistance(a: string, b: string, bound: number): number {
  const cols = b.length + 1;
  let before = new Array<number>(cols).fill(0);
  let prev = Array.from({ length: cols }, (_, j) => j);
  let row = new Array<number>(cols).fill(0);
  let prevMin = 0;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > bound && prevMin > bound) return bound + 1;
    prevMin = rowMin;
    [before, prev, row] = [prev, row, before];
  }
  return prev[b.length]!;
}
