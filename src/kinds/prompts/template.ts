/**
 * Prompt `template`: messages written as Handlebars templates over declared arguments. Templates
 * are compiled once; using an undeclared argument is a manifest error, and a missing required
 * argument is refused rather than rendered as an empty string. Besides `text`, a message may carry
 * an image, audio, an embedded resource or a resource link (see shared/content-blocks.ts); files are
 * read once when the manifest loads.
 *
 * @example
 * ```yaml
 * prompts:
 *   summarize_customer:
 *     description: Summarise a customer's history.
 *     arguments:
 *       email: { description: Customer email, required: true }
 *       tone: { enum: [brief, detailed] }
 *     messages:
 *       - text: "Summarise the orders of {{email}}{{#if tone}} in a {{tone}} way{{/if}}."
 *       - image: { path: ./assets/logo.png }
 *       - resource: { uri: "crm://customers/{{email}}", text: "Customer {{email}}" }
 * ```
 */

import { suggest } from '../../util/suggest.js';
import type { PromptKind } from '../contract/kinds.js';
import { InvalidRequestParams, type PromptMessage } from '../contract/types.js';
import { compact } from '../shared/compact.js';
import { type ContentItemConfig, compileContentItem, type RenderContent } from '../shared/content-blocks.js';
import { completeFrom, completionList, optionalHints, ownEntry } from '../shared/variables.js';
import { templatePromptInfo } from './template.info.js';

export interface PromptArgumentConfig {
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly enum?: readonly string[];
  readonly complete?: readonly string[];
}

/** One message: a role and exactly one content item (`text`, `image`, `audio`, `resource`, …). */
export interface PromptMessageConfig extends ContentItemConfig {
  readonly role?: 'user' | 'assistant';
}

export interface PromptTemplateConfig {
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: Readonly<Record<string, PromptArgumentConfig>>;
  readonly messages: readonly PromptMessageConfig[];
}

export const templatePrompt: PromptKind<PromptTemplateConfig> = {
  ...templatePromptInfo,

  compile(config, ctx) {
    const args = config.arguments ?? {};
    const declared = Object.keys(args);
    const renders: { role: 'user' | 'assistant'; render: RenderContent | undefined }[] = config.messages.map(
      (message, i) => ({
        role: message.role ?? 'user',
        render: compileContentItem(message, declared, ['messages', i], ctx),
      }),
    );
    if (renders.some((m) => m.render === undefined)) return undefined;
    const required = declared.filter((name) => args[name]!.required === true);

    return {
      descriptor: compact({
        name: ctx.name,
        title: config.title,
        description: config.description,
        arguments:
          declared.length === 0
            ? undefined
            : declared.map((name) =>
                compact({
                  name,
                  title: args[name]!.title,
                  description: args[name]!.description,
                  required: args[name]!.required ?? false,
                }),
              ),
      }),
      ...optionalHints(args),

      async get(values) {
        for (const name of Object.keys(values)) {
          if (Object.hasOwn(args, name)) continue;
          const hint = suggest(name, declared);
          throw new InvalidRequestParams(
            `unknown argument ${JSON.stringify(name)}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ''}; ` +
              (declared.length
                ? `the prompt takes: ${declared.join(', ')}`
                : 'the prompt takes no arguments'),
          );
        }
        // An empty string counts as missing: clients send "" for fields the user left blank.
        const missing = required.filter((name) => values[name] === undefined || values[name] === '');
        if (missing.length > 0) {
          throw new InvalidRequestParams(
            `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
          );
        }
        for (const [name, value] of Object.entries(values)) {
          const allowed = args[name]!.enum;
          if (allowed && value !== undefined && !allowed.includes(value)) {
            throw new InvalidRequestParams(
              `argument ${JSON.stringify(name)} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`,
            );
          }
        }
        const messages: PromptMessage[] = renders.map(({ role, render }) => ({
          role,
          content: render!(values),
        }));
        return compact({ description: config.description, messages });
      },

      async complete(argument, prefix) {
        return completeFrom(completionList(ownEntry(args, argument)), prefix);
      },
    };
  },
};
