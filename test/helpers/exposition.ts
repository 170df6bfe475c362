/**
 * A strict reading of Prometheus' text exposition format (0.0.4), for tests of `/metrics`: every line
 * is a blank, a `# HELP`, a `# TYPE` or a sample; each family is declared once and its samples follow
 * its `# TYPE` (a histogram's `_bucket`, `_sum` and `_count` too); no series comes twice. Throws on
 * the first line that breaks a rule, naming it.
 */

export interface Sample {
  /** As written: a histogram's samples end in `_bucket`, `_sum` or `_count`. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly type: string;
  readonly samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\.)*"';
const NUMBER = '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?Inf|NaN';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${NUMBER})(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** The families of an exposition, by name; throws where the text breaks the format. */
export function readExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helped = new Set<string>();
  const seen = new Set<string>();
  let current: { name: string; family: Family } | undefined;
  text.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    const help = HELP.exec(line);
    if (help) {
      if (helped.has(help[1]!)) throw new Error(`${where}: a second HELP for ${help[1]}`);
      helped.add(help[1]!);
      return;
    }
    const type = TYPE.exec(line);
    if (type) {
      if (families.has(type[1]!)) throw new Error(`${where}: a second TYPE for ${type[1]}`);
      current = { name: type[1]!, family: { type: type[2]!, samples: [] } };
      families.set(current.name, current.family);
      return;
    }
    if (line.startsWith('#')) throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`${where}: not a sample`);
    const name = sample[1]!;
    const suffixes = SUFFIXES[current?.family.type ?? ''] ?? [''];
    if (current === undefined || !suffixes.some((suffix) => name === current!.name + suffix))
      throw new Error(`${where}: a sample outside its family's TYPE (${current?.name ?? 'none'})`);
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`${where}: the same series twice`);
    seen.add(series);
    current.family.samples.push({ name, labels, value: Number(sample[3]) });
  });
  return families;
}
