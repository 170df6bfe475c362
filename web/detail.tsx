/** The item picked in the catalog, or the server's overview when none is. */

import { PromptView } from './prompts.js';
import { ResourceView, TemplateView } from './resources.js';
import { Tree } from './result.js';
import { SkillView } from './skills.js';
import { keyOf, store } from './store.js';
import { ToolView } from './tools.js';

export function Detail() {
  const s = store.selected;
  if (!s) return <Overview />;
  const list = {
    tool: store.catalog.tools,
    resource: store.catalog.resources,
    template: store.catalog.templates,
    prompt: store.catalog.prompts,
    skill: store.catalog.skills,
  }[s.kind];
  const item = list.find((x) => keyOf(s.kind, x) === s.key);
  if (!item) {
    if (s.kind === 'resource') return <ResourceView item={{ uri: s.key }} />;
    return <p class="muted">{s.key} is no longer served (the manifest changed).</p>;
  }
  if (s.kind === 'tool') return <ToolView tool={item} key={s.key} />;
  if (s.kind === 'resource') return <ResourceView item={item} key={s.key} />;
  if (s.kind === 'template') return <TemplateView item={item} key={s.key} />;
  if (s.kind === 'skill') return <SkillView skill={item} key={s.key} />;
  return <PromptView prompt={item} key={s.key} />;
}

function Overview() {
  const c = store.client;
  return (
    <section>
      <h2>{c?.serverInfo?.title ?? c?.serverInfo?.name ?? 'Server'}</h2>
      {c?.instructions && <p class="instructions">{c.instructions}</p>}
      <p class="muted">
        Pick a tool, resource, template, prompt or skill on the left to try it. This page is an MCP client of{' '}
        <code>{store.dev?.mcpPath ?? '/mcp'}</code> on this origin, speaking the {store.era} era.
      </p>
      {store.dev && (
        <p class="muted">
          Manifest: <code>{store.dev.manifest}</code> (edit it: the page follows)
        </p>
      )}
      <details>
        <summary>Server capabilities</summary>
        <Tree value={c?.capabilities ?? {}} />
      </details>
    </section>
  );
}
