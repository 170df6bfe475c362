/**
 * A prompt's view: a field per argument, the get and the rendered messages. An argument whose
 * values the server offers (completion/complete: the manifest's `enum` or `complete` list) is a
 * select of them, with "other value…" for one of the author's own (a `complete` list only suggests).
 */
import { useEffect, useState } from 'preact/hooks';
import { Header, OutcomeView } from './item.js';
import type { Json } from './mcp.js';
import { offeredValues, perform } from './session.js';
import { store } from './store.js';

type Values = Record<string, string>;

export function PromptView(props: { readonly prompt: Json }) {
  const p = props.prompt;
  const args: Json[] = p.arguments ?? [];
  const [values, setValues] = useState<Values>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [offers, setOffers] = useState<Record<string, string[]>>({});
  // Asked again when a reload gives the prompt a new descriptor.
  useEffect(() => {
    let current = true;
    void Promise.all(args.map(async (a) => [a.name, await offeredValues(p.name, a.name)] as const)).then(
      (found) => {
        if (current) setOffers(Object.fromEntries(found.filter(([, v]) => v !== undefined)));
      },
    );
    return () => {
      current = false;
    };
  }, [p]);
  const key = `prompt:${p.name}`;
  const set = (name: string, value: string | undefined) => {
    const { [name]: _old, ...rest } = values;
    setValues(value === undefined ? rest : { ...rest, [name]: value });
  };
  return (
    <section>
      <Header item={p} name={p.name} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const lacking = args.filter((a) => a.required && !values[a.name]).map((a) => a.name);
          setMissing(lacking);
          if (lacking.length === 0) void perform(key, 'prompts/get', { name: p.name, arguments: values });
        }}
      >
        <h3>Arguments</h3>
        {args.map((a) => (
          <div class="field" key={a.name}>
            <label for={`pa-${a.name}`}>
              {a.name}
              {a.required && <span class="required"> *</span>}
            </label>
            {offers[a.name] ? (
              <Choice
                argument={a}
                offered={offers[a.name]!}
                value={values[a.name]}
                invalid={missing.includes(a.name)}
                set={(v) => set(a.name, v)}
              />
            ) : (
              <input
                id={`pa-${a.name}`}
                aria-required={a.required || undefined}
                aria-invalid={missing.includes(a.name) || undefined}
                value={values[a.name] ?? ''}
                onInput={(e) => set(a.name, (e.currentTarget as HTMLInputElement).value)}
              />
            )}
            {a.description && <small class="muted">{a.description}</small>}
            {missing.includes(a.name) && (
              <small class="field-error" role="alert">
                required
              </small>
            )}
          </div>
        ))}
        <button type="submit">Get {p.name}</button>
      </form>
      <OutcomeView outcome={store.outcomes.get(key)} kind="prompt" />
    </section>
  );
}

/** No option's value can be this: the choice of typing a value instead. */
const OTHER = '\u0000other';

/** A select of the offered values; "other value…" opens a text field. Nothing chosen sends nothing. */
function Choice(props: {
  readonly argument: Json;
  readonly offered: readonly string[];
  readonly value: string | undefined;
  readonly invalid: boolean;
  readonly set: (value: string | undefined) => void;
}) {
  const { argument: a, value } = props;
  const [typing, setTyping] = useState(false);
  return (
    <>
      <select
        id={`pa-${a.name}`}
        aria-required={a.required || undefined}
        aria-invalid={props.invalid || undefined}
        value={typing ? OTHER : (value ?? '')}
        onChange={(e) => {
          const chosen = (e.currentTarget as HTMLSelectElement).value;
          setTyping(chosen === OTHER);
          props.set(chosen === '' || chosen === OTHER ? undefined : chosen);
        }}
      >
        <option value="">{a.required ? 'choose…' : '(none)'}</option>
        {props.offered.map((v) => (
          <option value={v} key={v}>
            {v}
          </option>
        ))}
        <option value={OTHER}>other value…</option>
      </select>
      {typing && (
        <input
          id={`pa-${a.name}-other`}
          aria-label={`${a.name}: another value`}
          value={value ?? ''}
          onInput={(e) => props.set((e.currentTarget as HTMLInputElement).value)}
        />
      )}
    </>
  );
}
