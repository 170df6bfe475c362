/**
 * The Interaction a request offers its tool or prompt (catalog/interaction.ts), per era, and the
 * wrapper that `tools/call` and `prompts/get` run through:
 *
 * - 2025: questions are server→client requests on the request's outlet (Outbound), gated by the
 *   capabilities the client declared at `initialize`.
 * - 2026 (MRTR): the request's `inputResponses` are the answers and its `requestState` (verified,
 *   single-use) is where the call resumes; a call that still needs answers ends with
 *   `{resultType: "input_required", inputRequests, requestState}`. Capabilities come from this
 *   request's envelope only.
 */

import { type ClientAskMethod, ClientAskRefused } from '../catalog/types.js';
import {
  type CarriedState,
  type InputMethod,
  type InputRequest,
  type InputRequests,
  InputRequired,
  type Interaction,
} from '../steps/interaction.js';
import { JsonRpcCode } from '../util/jsonrpc.js';
import { downgradeOutgoing } from './downgrade.js';
import { invalidParams, isObject } from './jsonrpc.js';
import type { RequestScope } from './request-scope.js';
import type { OpenedState } from './request-state.js';

type Capabilities = Readonly<Record<string, unknown>>;

/** Whether the client declared what `method` needs. Elicitation `{}` means form mode (spec). */
export function supports(capabilities: Capabilities, method: InputMethod): boolean {
  if (method === 'sampling/createMessage') return isObject(capabilities.sampling);
  if (method === 'roots/list') return isObject(capabilities.roots);
  const elicitation = capabilities.elicitation;
  if (!isObject(elicitation)) return false;
  return isObject(elicitation.form) || (elicitation.form === undefined && elicitation.url === undefined);
}

/**
 * CallContext.ask: one question to the calling client, mid-call. 2025: a server→client request, as
 * a step's; the client's JSON-RPC error or no answer in time is a ClientAskRefused with -32603
 * (the upstream that asked sees a failed request). 2026: refused (the era asks with the result: a
 * kind that relays questions asks through CallContext.interaction, as kinds/mcp/rounds.ts does).
 */
export async function askClient(
  interaction: Interaction,
  method: ClientAskMethod,
  params: Readonly<Record<string, unknown>>,
  timeoutMs: number,
): Promise<unknown> {
  if (interaction.stateless)
    throw new ClientAskRefused(
      JsonRpcCode.MethodNotFound,
      `${method} cannot reach a 2026-era client in the middle of a call (its era asks with input_required)`,
    );
  if (!interaction.supports(method))
    throw new ClientAskRefused(
      JsonRpcCode.MethodNotFound,
      `the client did not declare the capability ${method} needs (${CAPABILITY[method]})`,
    );
  try {
    const answers = await interaction.gather({ ask: { method, params } }, timeoutMs);
    return answers.ask;
  } catch (err) {
    throw new ClientAskRefused(JsonRpcCode.InternalError, (err as Error).message);
  }
}

const CAPABILITY: Readonly<Record<ClientAskMethod, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * Names form mode explicitly to clients that declared it by name; older clients get no `mode`.
 * Every question asked here is form mode (an upstream's too, kinds/mcp/relay.ts): the forced field
 * comes last, so no `mode` in the params (an upstream's `url`) reaches a client as another mode.
 */
function forClient(request: InputRequest, capabilities: Capabilities): InputRequest {
  const elicitation = capabilities.elicitation;
  if (request.method !== 'elicitation/create') return request;
  const { mode: _mode, ...params } = request.params as Readonly<Record<string, unknown>>;
  if (!isObject(elicitation) || !isObject(elicitation.form)) return { method: request.method, params };
  return { method: request.method, params: { ...params, mode: 'form' } };
}

function legacyInteraction(scope: RequestScope): Interaction {
  const capabilities = scope.session.clientCapabilities;
  return {
    stateless: false,
    carried: undefined,
    supports: (method) => supports(capabilities, method),
    async gather(requests, timeoutMs) {
      const answers: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        const { method, params } = forClient(request, capabilities);
        const shaped = downgradeOutgoing(method, params, scope.session.version);
        answers[key] = await scope.outbound.request(scope.outlet, method, shaped, timeoutMs, scope.signal);
      }
      return answers;
    },
  };
}

function modernInteraction(
  capabilities: Capabilities,
  responses: Readonly<Record<string, unknown>>,
  carried: CarriedState | undefined,
): Interaction {
  return {
    stateless: true,
    carried,
    supports: (method) => supports(capabilities, method),
    gather: async (requests) => {
      const answers: Record<string, unknown> = {};
      for (const key of Object.keys(requests))
        if (Object.hasOwn(responses, key)) answers[key] = responses[key];
      return answers;
    },
  };
}

/**
 * Runs a `tools/call` or `prompts/get` (the entry `name`), handing `run` the request's Interaction.
 * 2026: checks `inputResponses` and `requestState` first, and turns
 * InputRequired into the `input_required` result.
 */
export async function interactive(
  scope: RequestScope,
  name: string,
  run: (interaction: Interaction) => Promise<object>,
): Promise<object> {
  if (scope.era === 'legacy' || scope.envelope === undefined) {
    return run(legacyInteraction(scope));
  }
  const { params, method } = scope;
  const responses = params.inputResponses;
  if (responses !== undefined && !isObject(responses))
    throw invalidParams(`${method} "inputResponses" must be an object of answers by input request key`);
  const token = params.requestState;
  if (token !== undefined && typeof token !== 'string')
    throw invalidParams(`${method} "requestState" must be the string this server returned, echoed unchanged`);
  const binding = { method, name, args: params.arguments ?? {} };
  const { signer } = scope.server;
  const opened: OpenedState | undefined = token === undefined ? undefined : await signer.open(token, binding);
  const capabilities = scope.envelope.capabilities;
  const interaction = modernInteraction(capabilities, responses ?? {}, opened?.state);
  try {
    return await run(interaction);
  } catch (err) {
    if (err instanceof InputRequired) {
      return {
        resultType: 'input_required',
        inputRequests: adapt(err.requests, capabilities),
        requestState: signer.seal(binding, err.state),
      };
    }
    // A retry that failed before doing anything may be corrected and sent again.
    if (opened !== undefined) signer.release(opened);
    throw err;
  }
}

function adapt(requests: InputRequests, capabilities: Capabilities): Record<string, InputRequest> {
  return Object.fromEntries(Object.entries(requests).map(([key, r]) => [key, forClient(r, capabilities)]));
}
