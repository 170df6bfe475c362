/**
 * The steps' side of the interaction API (kinds/contract/interaction.ts): the faults a step's
 * question may end in. The era-neutral types are re-exported from the contract, where a kind that
 * relays another server's questions can reach them too.
 */
import { InvalidRequestParams } from '../kinds/contract/types.js';

export {
  type CarriedState,
  type InputMethod,
  type InputRequest,
  type InputRequests,
  InputRequired,
  type Interaction,
} from '../kinds/contract/interaction.js';

/**
 * The call needs something the client did not declare. 2026: -32021 with `required` as
 * `data.requiredCapabilities`; 2025: a tool error (or -32602 for a prompt) with the message.
 */
export class MissingClientCapability extends Error {
  constructor(
    readonly required: Readonly<Record<string, object>>,
    message: string,
  ) {
    super(message);
    this.name = 'MissingClientCapability';
  }
}

/** An answer that is not what was asked for (wrong shape, content outside the form's schema). */
export class InvalidInputResponse extends InvalidRequestParams {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputResponse';
  }
}

/** A 2025 question that got no usable answer: a timeout, or an error from the client. */
export class InteractionFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InteractionFailed';
  }
}
