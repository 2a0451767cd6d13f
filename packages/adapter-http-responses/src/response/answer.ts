import { GatewayError, type ToolPolicy, type TurnRequest } from "@proxy/core";
import { unixSeconds } from "@proxy/core/gateway";
import type { TurnExchange } from "@proxy/http-surface";
import type { ResolvedDeps } from "../deps.js";
import type { ParsedResponsesRequest } from "../request/decode-request.js";
import type { PreparedTurn } from "../stored/prepare.js";
import { createRecorder } from "../stored/record.js";
import { compactionEncoder } from "./compaction-encoder.js";
import { createResponsesEncoder } from "./encoder.js";

/** One decoded `POST /responses`: what the kit starts, and what its answer is built from. */
export interface ResponsesTurn {
  /** The turn as the backend runs it (a compaction asks for the handoff summary). */
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
  readonly parsed: ParsedResponsesRequest;
  /** With a store: the chain or conversation it continues and what is stored of it. */
  readonly prepared: PreparedTurn | undefined;
}

/**
 * The answer of an accepted turn, streamed or folded alike: the encoder (the compaction one for a
 * compaction), the recorder of a stored turn, and what ends the turn once its response is final.
 */
export const openResponsesAnswer = (turn: ResponsesTurn, { deps, session }: TurnExchange<ResolvedDeps>) => {
  const { parsed, prepared } = turn;
  const { body } = parsed;
  const encoder = createResponsesEncoder({
    header: {
      id: deps.ids.next("resp"),
      createdAt: unixSeconds(deps.clock),
      model: body.model,
      body,
      stored: prepared?.store,
      conversationId: prepared?.conversationName,
    },
    ids: deps.ids,
    clock: deps.clock,
    outputMode: session.settings.outputMode,
    namespaces: parsed.namespaces,
    customTools: parsed.customTools,
  });
  const frames = parsed.purpose === "compaction" ? compactionEncoder(encoder, deps.ids) : encoder;
  const recorder = deps.state && prepared ? createRecorder(deps.state, prepared, deps.clock) : undefined;
  const finalError = (): GatewayError | undefined =>
    encoder.failure() ??
    (encoder.response().status === "failed"
      ? new GatewayError("backend_error", "The backend turn failed.")
      : undefined);
  return {
    encoder,
    frames,
    recorder,
    finalError,
    /** The response is final: its items are remembered, its error is the turn's. */
    done(): void {
      // Clients that keep store on (the AI SDK) refer back to these items with item_reference.
      // (With a store, its owner-keyed cache serves them instead.)
      if (body.store !== false && deps.state === undefined) deps.issued.remember(encoder.output());
      const error = finalError();
      if (error !== undefined) session.recordError(error);
    },
  };
};
