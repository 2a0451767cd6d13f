import { GatewayError } from "../errors/gateway-error.js";
import type { ParserEvent } from "../events/stream-event.js";
import { type GateResult, NONE } from "./gate-result.js";
import type { TurnCounters } from "./turn-telemetry.js";

/** The call the parser was reading when it rejected the block, if it had started one. */
export interface OpenCall {
  readonly name: string;
  /** The client has seen the call start. */
  readonly forwarded: boolean;
}

/** The tool rules a rejected block is judged by. */
export interface RejectionRules {
  /** tool_choice names this function. */
  readonly forced: string | undefined;
  /** The functions the request offered. */
  readonly known: ReadonlySet<string>;
}

/** A rejected call's verdict; `swallowNextText`: the block's raw text must not follow as text. */
export interface RejectedCallVerdict {
  readonly result: GateResult;
  readonly swallowNextText: boolean;
}

const PASS: RejectedCallVerdict = { result: NONE, swallowNextText: false };

/**
 * What a block the parser rejected means for the turn: a started call cut off is never a call (a
 * failure if the client saw part of it); a strict call that broke its schema, or a call to an offered
 * function other than the forced one, is a violation the turn may correct; anything else passes as
 * the parser's text. Counts parse and strict failures.
 */
export const judgeRejectedCall = (
  e: Extract<ParserEvent, { type: "tool-call-rejected" }>,
  open: OpenCall | undefined,
  rules: RejectionRules,
  telemetry: TurnCounters,
): RejectedCallVerdict => {
  if (e.index !== undefined && open !== undefined) {
    // A started call was cut off or outgrew the block limit: never a call. Unless the client
    // already has part of it, its raw block follows as ordinary text.
    telemetry.parseFailures++;
    if (!open.forwarded) return PASS;
    const code = e.reason === "block-too-large" ? "tool_call_too_large" : "tool_call_incomplete";
    const what = e.reason === "schema-mismatch" ? "was refused" : "was cut off";
    const message = `The model's call to ${open.name} ${what} (${e.detail}); the partial call was not completed.`;
    return {
      result: { events: [], failure: new GatewayError("tool_call_validation_failed", message, { code }) },
      swallowNextText: false,
    };
  }
  if (e.strict) {
    telemetry.strictFailures++;
    return {
      result: {
        events: [],
        violation: {
          kind: "tool_call_validation_failed",
          message: `the call to ${e.name ?? "a function"} was invalid (${e.detail})`,
        },
      },
      swallowNextText: false,
    };
  }
  if (e.reason !== "unknown-tool") telemetry.parseFailures++;
  const { forced } = rules;
  if (forced !== undefined && e.reason === "unknown-tool" && e.name !== undefined && rules.known.has(e.name))
    return {
      result: {
        events: [],
        violation: {
          kind: "tool_choice_not_satisfied",
          message: `it called ${e.name}, but only ${forced} may be called`,
        },
      },
      swallowNextText: true,
    };
  return PASS;
};
