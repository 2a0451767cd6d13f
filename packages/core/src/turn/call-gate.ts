import type { AssistantEvent, ParserEvent } from "../events/stream-event.js";
import { forcedName, mustCall, offeredTools } from "../model/tool-policy.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import type { IdGenerator } from "../ports/id-generator.js";
import { type GateResult, NONE, type Violation } from "./gate-result.js";
import { judgeRejectedCall, type RejectionRules } from "./rejected-call.js";
import { createSentText } from "./sent-text.js";
import type { TurnSettings } from "./turn-settings.js";
import { MAX_TOOL_WARNINGS, type ToolWarning, type TurnCounters } from "./turn-telemetry.js";

export type { GateResult, Violation } from "./gate-result.js";

interface PendingCall {
  readonly name: string;
  readonly id: string;
  readonly callId: string;
  index: number;
  args: string;
  forwarded: boolean;
  dropped: boolean;
  /** Arguments of earlier same-name calls this one may still duplicate. */
  readonly duplicates: string[];
  readonly heldDeltas: string[];
}

/** Keeps the first warnings of a turn (a model that repairs every call would flood the summary). */
const warn = (telemetry: TurnCounters, warning: ToolWarning): void => {
  if (telemetry.toolWarnings.length < MAX_TOOL_WARNINGS) telemetry.toolWarnings.push(warning);
};

/**
 * Applies the turn's tool policy to parser events: tool_choice none/required/forced, the per-turn
 * call cap (parallel_tool_calls:false ⇒ 1), dedup of identical blocks and stop-after-tools. It only
 * holds events when policy demands it (text under required/forced, possible duplicates).
 */
export const createCallGate = (deps: {
  readonly policy: ToolPolicy;
  readonly settings: TurnSettings;
  readonly ids: IdGenerator;
  readonly telemetry: TurnCounters;
  /**
   * Pass a call on only when it ends (nothing reads it sooner: a non-streamed answer), so a block
   * the parser rejects midway was never a call and its text follows as text.
   */
  readonly holdCalls?: boolean | undefined;
}) => {
  const { policy, settings, ids, telemetry } = deps;
  const holdCalls = deps.holdCalls === true;
  const deploymentCap = policy.parallel ? settings.toolBlockMax : 1;
  // 0 means no cap; the smaller of the deployment's and the client's caps applies.
  const cap =
    policy.maxCalls === undefined
      ? deploymentCap
      : Math.min(deploymentCap || policy.maxCalls, policy.maxCalls);
  const callRequired = mustCall(policy);
  const forced = forcedName(policy);
  const known = new Set(offeredTools(policy).map((t) => t.name));
  const rules: RejectionRules = { forced, known };
  const emitted: Array<{ name: string; args: string }> = [];
  const heldText: string[] = [];
  let pending: PendingCall | undefined;
  let swallowNextText = false;
  // Only tool rules call for a corrective attempt: without tools a long answer is not kept.
  const sent = createSentText(known.size > 0 && settings.correctiveRetries > 0);

  const capReached = () => cap > 0 && emitted.length >= cap;

  const forwardStart = (call: PendingCall): AssistantEvent[] => {
    call.forwarded = true;
    call.index = emitted.length;
    const out: AssistantEvent[] = [...forwardText(heldText.splice(0).join("")).events];
    out.push({
      type: "tool-call-start",
      index: call.index,
      id: call.id,
      callId: call.callId,
      name: call.name,
    });
    for (const delta of call.heldDeltas.splice(0))
      out.push({ type: "tool-call-delta", index: call.index, delta });
    return out;
  };

  const forwardText = (text: string): GateResult => {
    const fresh = sent.fresh(text);
    return fresh === "" ? NONE : { events: [{ type: "text-delta", delta: fresh }] };
  };

  /**
   * Text under the policy: the text to forward (possibly ""), or the result where the policy
   * swallows, holds or stops on it.
   */
  const passText = (text: string): string | GateResult => {
    if (swallowNextText) {
      swallowNextText = false;
      return NONE;
    }
    if (emitted.length > 0 && settings.stopAfterTools && text.trim() !== "") {
      telemetry.stoppedEarly = true;
      return { events: [], stop: true };
    }
    if (callRequired && emitted.length === 0) {
      heldText.push(text);
      return NONE;
    }
    return sent.fresh(text);
  };

  const onText = (text: string): GateResult => {
    const passed = passText(text);
    if (typeof passed !== "string") return passed;
    return passed === "" ? NONE : { events: [{ type: "text-delta", delta: passed }] };
  };

  const onStart = (name: string, callId: string | undefined): GateResult => {
    const dropped = policy.choice.type === "none" || capReached();
    if (capReached()) telemetry.truncated = true;
    const duplicates = settings.toolBlockDedup
      ? emitted.filter((c) => c.name === name).map((c) => c.args)
      : [];
    pending = {
      name,
      id: ids.next("fc"),
      callId: callId ?? ids.next("call"),
      index: -1,
      args: "",
      forwarded: false,
      dropped,
      duplicates,
      heldDeltas: [],
    };
    if (dropped || duplicates.length > 0 || holdCalls) return NONE;
    return { events: forwardStart(pending) };
  };

  /** A call's delta: the index it goes on under (a call already forwarded), or the result. */
  const passDelta = (call: PendingCall, delta: string): number | GateResult => {
    call.args += delta;
    if (call.dropped) return NONE;
    if (call.forwarded) return call.index;
    call.heldDeltas.push(delta);
    const args = call.args;
    return holdCalls || call.duplicates.some((d) => d.startsWith(args))
      ? NONE
      : { events: forwardStart(call) };
  };

  const onDelta = (call: PendingCall, delta: string): GateResult => {
    const index = passDelta(call, delta);
    return typeof index === "number" ? { events: [{ type: "tool-call-delta", index, delta }] } : index;
  };

  const onEnd = (call: PendingCall, e: Extract<ParserEvent, { type: "tool-call-end" }>): GateResult => {
    pending = undefined;
    telemetry.callsDetected++;
    if (e.repaired) {
      telemetry.repairs++;
      warn(telemetry, { tool: call.name, kind: "json-repaired" });
    }
    if (e.schemaWarning !== undefined) {
      telemetry.schemaWarnings++;
      warn(telemetry, { tool: call.name, kind: "soft-schema", detail: e.schemaWarning });
    }
    // tool_choice none: the model called anyway; a block it may not use is plain text.
    if (policy.choice.type === "none") return forwardText(e.raw);
    if (call.dropped) return NONE;
    if (!call.forwarded && call.duplicates.includes(call.args)) {
      telemetry.deduped++;
      return NONE;
    }
    const events = call.forwarded ? [] : forwardStart(call);
    events.push({
      type: "tool-call-end",
      index: call.index,
      id: call.id,
      callId: call.callId,
      name: call.name,
      arguments: call.args,
    });
    emitted.push({ name: call.name, args: call.args });
    telemetry.callsEmitted = emitted.length;
    telemetry.calledTools.push(call.name);
    telemetry.callIds.push(call.callId);
    const stop = settings.stopAfterTools && settings.stopAfterToolsMode === "first";
    if (stop) telemetry.stoppedEarly = true;
    return { events, stop };
  };

  const onRejected = (e: Extract<ParserEvent, { type: "tool-call-rejected" }>): GateResult => {
    const open = pending;
    if (e.index !== undefined) pending = undefined;
    const verdict = judgeRejectedCall(e, open, rules, telemetry);
    if (verdict.swallowNextText) swallowNextText = true;
    return verdict.result;
  };

  return {
    /**
     * A `text-delta`'s common case without a result object: the text to forward (possibly ""), or
     * the full result where policy holds, swallows or stops on text.
     */
    acceptText: passText,
    /**
     * A `tool-call-delta`'s common case without a result object: the index it goes on under (a call
     * already forwarded), or the full result where the call is held or dropped.
     */
    acceptDelta: (delta: string): number | GateResult => (pending ? passDelta(pending, delta) : NONE),
    accept(e: ParserEvent): GateResult {
      switch (e.type) {
        case "text-delta":
          return onText(e.delta);
        case "tool-call-start":
          return onStart(e.name, e.callId);
        case "tool-call-delta":
          return pending ? onDelta(pending, e.delta) : NONE;
        case "tool-call-end":
          return pending ? onEnd(pending, e) : NONE;
        case "tool-call-rejected":
          return onRejected(e);
      }
    },
    /** A new backend attempt starts with a new parser: forget half-seen blocks. */
    beginAttempt(): void {
      pending = undefined;
      swallowNextText = false;
      sent.beginAttempt();
    },
    /** At the end of a backend attempt: was tool_choice required/forced satisfied? */
    endAttempt(): Violation | undefined {
      if (!callRequired || emitted.length > 0) return undefined;
      const message =
        forced !== undefined
          ? `it did not call the function ${forced}, which is required`
          : "it did not call any function, and a function call is required";
      return { kind: "tool_choice_not_satisfied", message };
    },
    /** Text held for a required call that never came is dropped with the failed attempt. */
    discardHeld(): void {
      heldText.length = 0;
    },
    emittedCount: () => emitted.length,
    /** A call the client has seen start but not end: a failure now would leave it cut. */
    callOpen: () => pending?.forwarded === true && !pending.dropped,
  };
};

export type CallGate = ReturnType<typeof createCallGate>;
