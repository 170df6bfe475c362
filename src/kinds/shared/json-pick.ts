/**
 * `output.pick`: a small path syntax that shapes a JSON value before it reaches the model.
 *
 * ```
 * a.b[0].c                     keys and array indexes; [-1] is the last element
 * items[*].name                [*] maps the rest of the path over every element of an array
 * {title, user: user.login}    a projection builds a new object; `name` alone means `name: name`
 * items[*].{id, title}         projections compose with paths and maps, and nest
 * ["odd key"].x                a bracketed string for keys that are not plain names
 * ```
 *
 * Plain names are letters, digits, `_`, `$` and `-`, not starting with a digit or `-`. A missing
 * key, an index out of range or a step through something of the wrong type gives null, never an
 * error: an API that leaves out an optional field still yields a result.
 */
import { isObject } from '../../util/is-object.js';

type Step =
  | { readonly kind: 'key'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'map' }
  | { readonly kind: 'project'; readonly fields: readonly (readonly [string, Path])[] };
type Path = readonly Step[];

export type Pick = (value: unknown) => unknown;

export class PickSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PickSyntaxError';
  }
}

/** Parses `source` once; throws PickSyntaxError with the position of the first mistake. */
export function compilePick(source: string): Pick {
  const path = new Parser(source).parse();
  return (value) => evaluate(path, 0, value);
}

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$-]/;

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  parse(): Path {
    const path = this.path();
    this.space();
    if (this.i < this.text.length) this.fail('"." or "[" or the end');
    return path;
  }

  private path(): Path {
    this.space();
    const steps: Step[] = [this.first()];
    for (;;) {
      this.space();
      const c = this.text[this.i];
      if (c === '[') steps.push(this.bracket());
      else if (c === '.') {
        this.i++;
        this.space();
        steps.push(this.text[this.i] === '{' ? this.projection() : { kind: 'key', name: this.name() });
      } else return steps;
    }
  }

  private first(): Step {
    const c = this.text[this.i];
    if (c === '{') return this.projection();
    if (c === '[') return this.bracket();
    return { kind: 'key', name: this.name() };
  }

  private bracket(): Step {
    this.i++; // [
    this.space();
    let step: Step;
    const c = this.text[this.i];
    if (c === '*') {
      this.i++;
      step = { kind: 'map' };
    } else if (c === '"' || c === "'") {
      step = { kind: 'key', name: this.quoted() };
    } else {
      const match = /^-?\d+/.exec(this.text.slice(this.i));
      if (!match) this.fail('an index, "*" or a quoted key');
      this.i += match[0].length;
      step = { kind: 'index', index: Number(match[0]) };
    }
    this.space();
    this.expect(']');
    return step;
  }

  private projection(): Step {
    this.i++; // {
    const fields: [string, Path][] = [];
    for (;;) {
      this.space();
      if (this.text[this.i] === '}' && fields.length > 0) break;
      const c = this.text[this.i];
      const name = c === '"' || c === "'" ? this.quoted() : this.name();
      if (fields.some(([f]) => f === name)) throw this.error(`the field "${name}" appears twice`);
      this.space();
      if (this.text[this.i] === ':') {
        this.i++;
        fields.push([name, this.path()]);
      } else fields.push([name, [{ kind: 'key', name }]]);
      this.space();
      if (this.text[this.i] !== ',') break;
      this.i++;
    }
    this.space();
    this.expect('}');
    return { kind: 'project', fields };
  }

  private name(): string {
    const start = this.i;
    if (!NAME_START.test(this.text[this.i] ?? '')) this.fail('a name');
    while (this.i < this.text.length && NAME_PART.test(this.text[this.i]!)) this.i++;
    return this.text.slice(start, this.i);
  }

  private quoted(): string {
    const quote = this.text[this.i]!;
    const end = this.text.indexOf(quote, this.i + 1);
    if (end === -1) throw this.error(`unclosed ${quote} quote`);
    const name = this.text.slice(this.i + 1, end);
    this.i = end + 1;
    return name;
  }

  private space(): void {
    while (this.text[this.i] === ' ') this.i++;
  }

  private expect(c: string): void {
    if (this.text[this.i] !== c) this.fail(`"${c}"`);
    this.i++;
  }

  private fail(expected: string): never {
    const found = this.i < this.text.length ? `"${this.text[this.i]}"` : 'the end';
    throw this.error(`expected ${expected} but found ${found}`);
  }

  private error(reason: string): PickSyntaxError {
    return new PickSyntaxError(`${reason} at column ${this.i + 1} of ${JSON.stringify(this.text)}`);
  }
}

function evaluate(path: Path, i: number, value: unknown): unknown {
  if (i === path.length) return value ?? null;
  const step = path[i]!;
  switch (step.kind) {
    case 'key':
      return isObject(value) && Object.hasOwn(value, step.name)
        ? evaluate(path, i + 1, value[step.name])
        : null;
    case 'index': {
      if (!Array.isArray(value)) return null;
      const at = step.index < 0 ? value.length + step.index : step.index;
      return at >= 0 && at < value.length ? evaluate(path, i + 1, value[at]) : null;
    }
    case 'map':
      return Array.isArray(value) ? value.map((item) => evaluate(path, i + 1, item)) : null;
    case 'project': {
      if (!isObject(value)) return null;
      const out: Record<string, unknown> = {};
      for (const [name, fieldPath] of step.fields) {
        // defineProperty: a field named "__proto__" stays a plain key.
        Object.defineProperty(out, name, {
          value: evaluate(fieldPath, 0, value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return evaluate(path, i + 1, out);
    }
  }
}
