/** The server's questions as dialogs: elicitation (a form or a URL), sampling and roots. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Json } from './mcp.js';
import { Tree } from './result.js';
import { type FieldErrors, initialValue, SchemaForm, validate } from './schema-form.js';
import { type Ask, store, update } from './store.js';

export function AskDialog(props: { readonly ask: Ask }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { method, params: p } = props.ask;
  const schema = p?.requestedSchema ?? { type: 'object', properties: {} };
  const [value, setValue] = useState<Json>(() => initialValue(schema) ?? {});
  const [errors, setErrors] = useState<FieldErrors>(new Map());
  const [reply, setReply] = useState('');
  const [roots, setRoots] = useState(() => (store.dev ? `file://${store.dev.folder}` : ''));
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal?.();
  }, []);
  const done = (result: Json) => {
    store.asks.shift();
    props.ask.resolve(result);
    update();
  };
  const send = (label: string, result: () => Json) => (
    <button type="button" onClick={() => done(result())}>
      {label}
    </button>
  );
  const refuse = (why: string) => (
    <button
      type="button"
      class="danger"
      onClick={() => {
        store.asks.shift();
        props.ask.reject(new Error(why));
        update();
      }}
    >
      Refuse
    </button>
  );
  let title = method;
  let body: Json = null;
  let buttons: Json = null;
  if (method === 'elicitation/create' && p?.mode === 'url') {
    title = 'The server asks you to open a page';
    body = (
      <p>
        {p.message}{' '}
        <a href={p.url} target="_blank" rel="noreferrer noopener">
          {p.url}
        </a>
      </p>
    );
    buttons = <ElicitButtons onAnswer={done} accept={() => done({ action: 'accept' })} />;
  } else if (method === 'elicitation/create') {
    const empty = Object.keys(schema.properties ?? {}).length === 0;
    title = empty ? 'Confirm' : 'The server asks';
    body = (
      <>
        <p class="ask-message">{p?.message}</p>
        {!empty && <SchemaForm id="ask" schema={schema} value={value} errors={errors} onChange={setValue} />}
      </>
    );
    buttons = (
      <ElicitButtons
        onAnswer={done}
        accept={() => {
          const found = validate(schema, value ?? {});
          setErrors(found);
          if (found.size === 0) done({ action: 'accept', content: value ?? {} });
        }}
      />
    );
  } else if (method === 'sampling/createMessage') {
    title = 'The server asks your model (sampling)';
    body = (
      <>
        {p?.systemPrompt && <p class="muted">System: {p.systemPrompt}</p>}
        {(p?.messages ?? []).map((m: Json, i: number) => (
          <div class="message" key={String(i)}>
            <span class="badge">{m.role}</span>{' '}
            <pre class="content-text">{m.content?.text ?? JSON.stringify(m.content)}</pre>
          </div>
        ))}
        <TextArea
          id="sampling-reply"
          label={`Reply as the model (at most ${p?.maxTokens} tokens)`}
          value={reply}
          set={setReply}
        />
      </>
    );
    buttons = (
      <>
        {send('Send reply', () => ({
          role: 'assistant',
          content: { type: 'text', text: reply },
          model: 'mcp-run-dev-playground',
          stopReason: 'endTurn',
        }))}
        {refuse('the user declined to sample')}
      </>
    );
  } else if (method === 'roots/list') {
    title = 'The server asks for your roots';
    body = <TextArea id="roots" label="Roots, one file:// URI a line" value={roots} set={setRoots} />;
    buttons = send('Send roots', () => ({
      roots: roots
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((uri) => ({ uri, name: uri.split('/').filter(Boolean).pop() ?? uri })),
    }));
  } else {
    body = <Tree value={p} />;
    buttons = refuse(`the playground cannot answer ${method}`);
  }
  return (
    <dialog
      ref={ref}
      aria-labelledby="ask-title"
      data-testid="ask-dialog"
      data-method={method}
      onCancel={(e) => {
        e.preventDefault();
        if (method === 'elicitation/create') done({ action: 'cancel' });
      }}
    >
      <h2 id="ask-title">{title}</h2>
      {body}
      <div class="actions">{buttons}</div>
    </dialog>
  );
}

function TextArea(props: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly set: (v: string) => void;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        rows={4}
        value={props.value}
        onInput={(e) => props.set((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </>
  );
}

function ElicitButtons(props: { readonly onAnswer: (r: Json) => void; readonly accept: () => void }) {
  return (
    <>
      <button type="button" onClick={props.accept}>
        Accept
      </button>
      <button type="button" onClick={() => props.onAnswer({ action: 'decline' })}>
        Decline
      </button>
      <button type="button" onClick={() => props.onAnswer({ action: 'cancel' })}>
        Cancel
      </button>
    </>
  );
}
