/** A prompt's view: a field per argument, the get and the rendered messages. */
import { useState } from 'preact/hooks';
import { Header, OutcomeView } from './item.js';
import type { Json } from './mcp.js';
import { perform } from './session.js';
import { store } from './store.js';

export function PromptView(props: { readonly prompt: Json }) {
  const p = props.prompt;
  const [values, setValues] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const key = `prompt:${p.name}`;
  return (
    <section>
      <Header item={p} name={p.name} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const lacking = (p.arguments ?? [])
            .filter((a: Json) => a.required && !values[a.name])
            .map((a: Json) => a.name);
          setMissing(lacking);
          if (lacking.length === 0) void perform(key, 'prompts/get', { name: p.name, arguments: values });
        }}
      >
        <h3>Arguments</h3>
        {(p.arguments ?? []).map((a: Json) => (
          <div class="field" key={a.name}>
            <label for={`pa-${a.name}`}>
              {a.name}
              {a.required && <span class="required"> *</span>}
            </label>
            <input
              id={`pa-${a.name}`}
              aria-required={a.required || undefined}
              aria-invalid={missing.includes(a.name) || undefined}
              value={values[a.name] ?? ''}
              onInput={(e) => setValues({ ...values, [a.name]: (e.currentTarget as HTMLInputElement).value })}
            />
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
