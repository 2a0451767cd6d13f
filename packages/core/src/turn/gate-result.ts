import type { GatewayError } from "../errors/gateway-error.js";
import type { AssistantEvent } from "../events/stream-event.js";

/** What the call gate makes of one parser event. */
export interface GateResult {
  readonly events: AssistantEvent[];
  /** Stop the backend turn: nothing more of it will be forwarded. */
  readonly stop?: boolean;
  /** The attempt broke tool_choice / strict rules: run a corrective turn or fail. */
  readonly violation?: Violation;
  /** The turn cannot end well (part of a call that is now withdrawn reached the client). */
  readonly failure?: GatewayError;
}

export interface Violation {
  readonly kind: "tool_call_validation_failed" | "tool_choice_not_satisfied";
  /** Says what went wrong, addressed to the model ("it called X, but …"). */
  readonly message: string;
}

/** Nothing to forward (shared: a gate result is never mutated). */
export const NONE: GateResult = { events: [] };
