import type { AssistantEvent } from "../events/stream-event.js";
import { createStopSequenceMatcher } from "./stop-sequences.js";

export interface GuardResult {
  readonly events: ReadonlyArray<AssistantEvent>;
  /** A stop sequence was reached: emit `events`, then end the output (finish `stop`). */
  readonly stopped: boolean;
  /** The stop sequence that was reached (when `stopped` by one). */
  readonly sequence?: string | undefined;
}

export interface OutputGuard {
  /** The call gate's events for one parser event → what the client may see now. */
  accept(events: ReadonlyArray<AssistantEvent>): GuardResult;
  /**
   * One text delta (not empty) → what the client may see now, pushed onto `out` as a `text-delta`
   * (no result object per delta). True when a stop sequence was reached (see `sequence`).
   */
  pushText(delta: string, out: AssistantEvent[]): boolean;
  /**
   * One event other than text (a call's start, delta or end…) → onto `out` now or once its call is
   * complete (`holdCalls`). True when the output has already ended.
   */
  pushEvent(event: AssistantEvent, out: AssistantEvent[]): boolean;
  /** The stop sequence that ended the output, once `pushText` returned true because of one. */
  readonly sequence: string | undefined;
  /** The output ended: held text is released; a call still held (cut short) is dropped. */
  flush(): AssistantEvent[];
}

export interface OutputGuardOptions {
  readonly stopSequences?: ReadonlyArray<string> | undefined;
  /**
   * Release each call only once it is complete, so a call the output limit cuts short is never
   * emitted (its arguments then arrive in one piece instead of streamed).
   */
  readonly holdCalls?: boolean | undefined;
}

/**
 * What the client's own output limits change in the event stream, after tool calls were parsed:
 * stop sequences apply to text only (never inside tool-call blocks), and calls are held whole when
 * an output token limit could cut them.
 */
export const createOutputGuard = (options: OutputGuardOptions): OutputGuard => {
  const holdCalls = options.holdCalls === true;
  if (!holdCalls && !(options.stopSequences ?? []).some((s) => s.length > 0)) return passThrough();
  const stops = createStopSequenceMatcher(options.stopSequences ?? []);
  let call: AssistantEvent[] | undefined;
  let ended = false;
  let matched: string | undefined;

  const releaseText = (out: AssistantEvent[]) => {
    const text = stops.flush();
    if (text !== "") out.push({ type: "text-delta", delta: text });
  };
  /** Text through the stop sequences onto `out`; true when one was reached (the output ends). */
  const scanText = (delta: string, out: AssistantEvent[]): boolean => {
    const scan = stops.push(delta);
    if (scan.text !== "") out.push({ type: "text-delta", delta: scan.text });
    if (!scan.stopped) return false;
    ended = true;
    matched = scan.sequence;
    return true;
  };
  /** A non-text event: a tool call ends any text a stop sequence could still complete. */
  const place = (event: AssistantEvent, out: AssistantEvent[]) => {
    if (event.type === "tool-call-start") releaseText(out);
    if (!holdCalls) out.push(event);
    else if (event.type === "tool-call-start") call = [event];
    else if (call !== undefined && event.type === "tool-call-delta") call.push(event);
    else if (call !== undefined && event.type === "tool-call-end") {
      out.push(...call, event);
      call = undefined;
    } else out.push(event);
  };

  return {
    get sequence() {
      return matched;
    },
    pushEvent(event, out) {
      if (ended) return true;
      place(event, out);
      return false;
    },
    pushText(delta, out) {
      return ended || scanText(delta, out);
    },
    accept(events) {
      const out: AssistantEvent[] = [];
      if (ended) return { events: out, stopped: true, sequence: matched };
      for (const event of events) {
        if (event.type !== "text-delta") place(event, out);
        else if (scanText(event.delta, out)) return { events: out, stopped: true, sequence: matched };
      }
      return { events: out, stopped: false };
    },
    flush() {
      const out: AssistantEvent[] = [];
      if (!ended) releaseText(out);
      call = undefined;
      ended = true;
      return out;
    },
  };
};

const ENDED: GuardResult = Object.freeze({ events: Object.freeze([]), stopped: true });

/** No stop sequence and no call held: the gate's events go on as they are (no copy per delta). */
const passThrough = (): OutputGuard => {
  let ended = false;
  return {
    sequence: undefined,
    pushText(delta, out) {
      if (ended) return true;
      out.push({ type: "text-delta", delta });
      return false;
    },
    pushEvent(event, out) {
      if (ended) return true;
      out.push(event);
      return false;
    },
    accept: (events) => (ended ? ENDED : { events, stopped: false }),
    flush() {
      ended = true;
      return [];
    },
  };
};
