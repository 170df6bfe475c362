/**
 * A skill's view (the skills extension, `skills/list`): its frontmatter, its files with their size
 * and digest, and its SKILL.md read through `resources/read` and shown rendered (markdown.tsx: DOM
 * from text, never HTML), or as its source. It is read again when a reload changes its digest.
 */
import { useEffect, useState } from 'preact/hooks';
import { Markdown, splitFrontmatter } from './markdown.js';
import type { Json } from './mcp.js';
import { Tree } from './result.js';
import { perform, readResource } from './session.js';
import { store } from './store.js';

export function SkillView(props: { readonly skill: Json }) {
  const skill = props.skill;
  const front: Json = skill.frontmatter ?? {};
  const files: Json[] = Array.isArray(skill.resources) ? skill.resources : [];
  const own = files.find((f) => f.uri === skill.uri);
  const key = `skill:${skill.uri}`;
  const [source, setSource] = useState(false);
  useEffect(() => {
    void perform(key, 'resources/read', { uri: skill.uri });
  }, [skill.uri, own?.digest]);
  const outcome = store.outcomes.get(key);
  const content: Json | undefined = outcome?.result?.contents?.[0];
  const text = typeof content?.text === 'string' ? content.text : undefined;
  return (
    <section data-testid="skill-view">
      <h2>
        {typeof front.name === 'string' ? front.name : skill.uri}
        <span class="muted"> · skill</span>
      </h2>
      {typeof front.description === 'string' && <p class="description">{front.description}</p>}
      <p>
        <code class="uri">{skill.uri}</code>
      </p>
      <details>
        <summary>Frontmatter</summary>
        <Tree value={front} />
      </details>
      <h3>Files</h3>
      {skill.resources === 'dynamic' ? (
        <p class="muted">The server lists this skill's files as dynamic.</p>
      ) : (
        <ul class="skill-files" data-testid="skill-files">
          {files.map((f) => (
            <li key={f.uri}>
              <button type="button" class="link" onClick={() => readResource(f.uri)}>
                {f.uri}
              </button>{' '}
              <span class="muted">
                {f.size} bytes · <code title={f.digest}>{String(f.digest).slice(0, 19)}…</code>
              </span>
            </li>
          ))}
        </ul>
      )}
      <h3>
        SKILL.md{' '}
        <button type="button" class="small" onClick={() => setSource(!source)} aria-pressed={source}>
          {source ? 'Rendered' : 'Source'}
        </button>
      </h3>
      {outcome?.error && (
        <p class="banner error" role="alert">
          {outcome.error}
        </p>
      )}
      {text !== undefined &&
        (source ? (
          <pre class="code" data-testid="skill-source">
            {text}
          </pre>
        ) : (
          <Markdown text={splitFrontmatter(text).body} />
        ))}
    </section>
  );
}
