/** A tool's view: its schemas, a form generated from its input schema, the call and its outcome. */
import { useState } from 'preact/hooks';
import { estimateJsonTokens, modelEntry } from '../src/lint/estimate.js';
import { AppView } from './app-view.js';
import { Header, OutcomeView } from './item.js';
import type { Json } from './mcp.js';
import { type FieldErrors, initialValue, SchemaForm, validate } from './schema-form.js';
import { callTool } from './session.js';
import { store } from './store.js';

export function ToolView(props: { readonly tool: Json }) {
  const tool = props.tool;
  const [value, setValue] = useState<Json>(() => initialValue(tool.inputSchema ?? {}) ?? {});
  const [errors, setErrors] = useState<FieldErrors>(new Map());
  const [tried, setTried] = useState(false);
  const run = store.runs.get(tool.name);
  const outcome = store.outcomes.get(`tool:${tool.name}`);
  const change = (v: Json) => {
    setValue(v);
    if (tried) setErrors(validate(tool.inputSchema, v ?? {}));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const args = value ?? {};
    const found = validate(tool.inputSchema, args);
    setErrors(found);
    setTried(true);
    if (found.size === 0) void callTool(tool, args);
  };
  return (
    <section data-testid="tool-view">
      <Header item={tool} name={tool.name} />
      <p class="muted tokens">
        {modelEntry(tool) === undefined
          ? "only views call it: not in the model's tools/list"
          : `~${estimateJsonTokens(modelEntry(tool))} tokens in tools/list`}
      </p>
      <details>
        <summary>Input schema</summary>
        <pre class="schema">{JSON.stringify(tool.inputSchema, null, 2)}</pre>
      </details>
      {tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <pre class="schema">{JSON.stringify(tool.outputSchema, null, 2)}</pre>
        </details>
      )}
      <form onSubmit={submit} aria-label={`call ${tool.name}`} noValidate>
        <h3>Try it</h3>
        <SchemaForm
          id={`f-${tool.name}`}
          schema={tool.inputSchema}
          value={value}
          errors={errors}
          onChange={change}
        />
        {errors.size > 0 && (
          <p class="field-error" role="alert" data-testid="form-errors">
            Not sent: {[...errors].map(([path, m]) => `${path || '(arguments)'} ${m.join('; ')}`).join(' · ')}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={run !== undefined}>
            Call {tool.name}
          </button>
          {run && (
            <button type="button" class="danger" onClick={() => run.abort.abort()}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {run && (
        <div class="running" role="status">
          {run.progress ? (
            <>
              <label for="call-progress">{run.progress.message ?? 'progress'}</label>{' '}
              <progress
                id="call-progress"
                data-testid="progress"
                value={run.progress.value}
                max={run.progress.total ?? undefined}
              />{' '}
              <span class="muted">
                {run.progress.value}
                {run.progress.total !== undefined ? ` / ${run.progress.total}` : ''}
              </span>
            </>
          ) : (
            <span>running…</span>
          )}
        </div>
      )}
      {outcome?.result !== undefined && !outcome.result.isError && (
        <AppView tool={tool} args={outcome.args} result={outcome.result} />
      )}
      <OutcomeView outcome={outcome} kind="tool" />
    </section>
  );
}
