import type { AssistantEvent, BackendEvent, ParserEvent } from "../events/stream-event.js";
import type { BackendRequest } from "../ports/text-backend.js";
import type { AttemptOutcome } from "./attempt-outcome.js";

/** How one backend attempt ended, as a trace sees it (the attempt's text is not repeated). */
export type AttemptEnd = Omit<AttemptOutcome, "tail" | "rawText">;

/**
 * An optional per-turn observer for a request inspector: what the backend was sent, every backend
 * event as it arrived (the raw model text), the parser's decisions and how each attempt ended.
 * Absent, the turn pays one undefined check per event; the objects handed over are the turn's own
 * (no copies are made for the trace), so an implementation must not keep them past its bounds.
 */
export interface TurnTrace {
  /** An attempt starts: the first one, then each corrective turn (`attempt` counts from 0). */
  onBackendRequest(request: BackendRequest, attempt: number): void;
  /** One backend event as it arrived, before the gateway read it. */
  onBackendEvent(event: BackendEvent): void;
  /** A parser decision other than plain text: a call found, its end (repaired?), a rejection and why. */
  onParserEvent(event: ParserEvent): void;
  /** How an attempt ended: finish, a stop (stop sequence, limit, stop-after-tools), a violation, an error. */
  onAttemptEnd(end: AttemptEnd, attempt: number): void;
  /** The events the turn handed to the surface, one batch at a time. */
  onAssistantBatch(batch: ReadonlyArray<AssistantEvent>): void;
}
