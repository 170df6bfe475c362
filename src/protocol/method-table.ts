/** Every method the server answers, in one Map: dispatch is a single lookup. */
import type { MethodSpec } from './context.js';
import { completionMethods } from './methods/completion.js';
import { lifecycleMethods } from './methods/lifecycle.js';
import { loggingMethods } from './methods/logging.js';
import { promptMethods } from './methods/prompts.js';
import { resourceMethods } from './methods/resources.js';
import { skillMethods } from './methods/skills.js';
import { subscriptionMethods } from './methods/subscriptions.js';
import { taskMethods } from './methods/tasks.js';
import { toolMethods } from './methods/tools.js';

export const METHODS: ReadonlyMap<string, MethodSpec> = new Map(
  Object.entries({
    ...lifecycleMethods,
    ...toolMethods,
    ...resourceMethods,
    ...skillMethods,
    ...promptMethods,
    ...completionMethods,
    ...loggingMethods,
    ...subscriptionMethods,
    ...taskMethods,
  }),
);
