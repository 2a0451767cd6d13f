import type { GatewayError } from "../errors/gateway-error.js";
import type { AssistantEvent } from "../events/stream-event.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";
import type { Violation } from "./call-gate.js";

/** What one backend attempt produced; `tail` holds its last events, for the turn to end with. */
export interface AttemptOutcome {
  readonly rawText: string;
  readonly finish?: Finish | undefined;
  readonly usage?: Usage | undefined;
  readonly stopped: boolean;
  readonly violation?: Violation | undefined;
  readonly error?: GatewayError | undefined;
  /** The error is a call the client saw start and that was cut off (never a tool-call finish). */
  readonly callCut?: boolean | undefined;
  readonly tail: AssistantEvent[];
}
