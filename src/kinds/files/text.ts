/**
 * Resource `text`: content written in the manifest itself, for notes, fixtures and small
 * references. With `{var}`s in `uri` it is a template whose `text` is a Handlebars template
 * rendered with the URI's variables.
 *
 * @example
 * ```yaml
 * resources:
 *   style: { kind: text, uri: notes://style, text: "Answer in British English." }
 *   greeting:
 *     kind: text
 *     uri: greet://{lang}
 *     text: "Greet the user in {{lang}}."
 *     variables:
 *       lang: { enum: [en, fr] }
 * ```
 */

import { problems } from '../../errors.js';
import type { ResourceKind } from '../contract/kinds.js';
import { ResourceNotFound } from '../contract/types.js';
import { compact } from '../shared/compact.js';
import { compileTemplate } from '../shared/template.js';
import { trackErrors } from '../shared/tracked-context.js';
import {
  hasScheme,
  hasTemplateVariables,
  parseUriTemplate,
  type UriTemplate,
} from '../shared/uri-template.js';
import {
  completeFrom,
  completionList,
  optionalHints,
  ownEntry,
  type VariableConfig,
} from '../shared/variables.js';
import { textResourceInfo } from './text.info.js';

export interface TextResourceConfig {
  readonly uri: string;
  readonly text: string;
  readonly mimeType?: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly variables?: Readonly<Record<string, VariableConfig>>;
}

export const textResource: ResourceKind<TextResourceConfig> = {
  ...textResourceInfo,

  async compile(config, ctx) {
    if (!hasScheme(config.uri)) {
      ctx.error(
        ['uri'],
        problems.MANIFEST_INVALID_VALUE(
          `the URI ${JSON.stringify(config.uri)} has no scheme`,
          'write e.g. notes://style',
        ),
      );
      return undefined;
    }
    const mimeType = config.mimeType ?? 'text/plain';
    const common = {
      name: config.name ?? ctx.name,
      title: config.title,
      description: config.description,
      mimeType,
    };

    if (!hasTemplateVariables(config.uri)) {
      if (config.variables !== undefined) {
        ctx.error(
          ['variables'],
          problems.MANIFEST_INVALID_VALUE('variables apply only when uri has {variables}'),
        );
        return undefined;
      }
      const contents = [{ uri: config.uri, mimeType, text: config.text }] as const;
      const descriptor = compact({ uri: config.uri, ...common, size: Buffer.byteLength(config.text) });
      // Subscribable: a manifest edit that changes the text reloads, and the changed version
      // tells this URI's subscribers.
      const resource = {
        descriptor,
        read: async () => contents,
        updates: true,
        version: JSON.stringify(contents),
      };
      return { resources: [resource], templates: [] };
    }

    let template: UriTemplate;
    try {
      template = parseUriTemplate(config.uri);
    } catch (err) {
      ctx.error(['uri'], problems.URI_TEMPLATE_INVALID((err as Error).message));
      return undefined;
    }
    const { ctx: tracked, failed } = trackErrors(ctx);
    for (const name of Object.keys(config.variables ?? {})) {
      if (template.variables.includes(name)) continue;
      tracked.error(
        ['variables', name],
        problems.URI_TEMPLATE_INVALID(
          `${JSON.stringify(name)} is not a variable of ${JSON.stringify(config.uri)}`,
        ),
      );
    }
    const render = compileTemplate(config.text, template.variables, ['text'], ctx);
    if (failed() || !render) return undefined;

    const variables = config.variables ?? {};
    return {
      resources: [],
      templates: [
        {
          descriptor: compact({ uriTemplate: config.uri, ...common }),
          ...optionalHints(variables),
          match: (uri: string) => template.match(uri),
          async read(uri: string, vars: Readonly<Record<string, string>>) {
            for (const name of template.variables) {
              const allowed = variables[name]?.enum;
              if (vars[name] === undefined || (allowed && !allowed.includes(vars[name])))
                throw new ResourceNotFound(uri);
            }
            return [{ uri, mimeType, text: render(vars) }];
          },
          async complete(variable: string, prefix: string) {
            return completeFrom(completionList(ownEntry(variables, variable)), prefix);
          },
        },
      ],
    };
  },
};
