import { GatewayError, unixSeconds } from "@proxy/core";
import {
  callerOwner,
  foldTurn,
  openTurnSession,
  pumpTurn,
  readJsonBody,
  setToolCallHeaders,
} from "@proxy/http-surface";
import type { Context } from "hono";
import { withCompactionInstruction } from "../compaction.js";
import { decodeResponsesRequest, type ParsedResponsesRequest } from "../request/decode-request.js";
import { compactionEncoder } from "../response/compaction-encoder.js";
import { createResponsesEncoder } from "../response/encoder.js";
import { eventObjectSink, sseEventSink } from "../response/event-sinks.js";
import { startBackgroundResponse } from "../stored/background.js";
import { type PreparedTurn, prepareStoredTurn } from "../stored/prepare.js";
import { createRecorder, NOT_STORED_HEADER } from "../stored/record.js";
import type { ResolvedDeps } from "./deps.js";
import { RESPONSES_SURFACE } from "./surface.js";

/** `POST /responses`: decode, run one core turn, answer as SSE or as one Response object. */
export const handleCreateResponse = async (c: Context, deps: ResolvedDeps): Promise<Response> => {
  const session = openTurnSession(c, deps, RESPONSES_SURFACE);
  let parsed: ParsedResponsesRequest;
  let prepared: PreparedTurn | undefined;
  try {
    const json = await readJsonBody(c);
    // With a store: the chain or conversation becomes history, before any backend turn.
    prepared =
      deps.state === undefined
        ? undefined
        : await prepareStoredTurn(json, callerOwner(c), deps.state, deps.ids, deps.clock.now());
    parsed = decodeResponsesRequest(json, prepared?.resolve ?? deps.issued.lookup, prepared);
    if (deps.state !== undefined && prepared !== undefined && parsed.body.background === true)
      return await startBackgroundResponse(c, deps, deps.state, parsed, prepared);
  } catch (cause) {
    return session.fail(cause);
  }

  const { body, stream } = parsed;
  const started = await session.start({
    request: parsed.purpose === "compaction" ? withCompactionInstruction(parsed.turn) : parsed.turn,
    tools: parsed.tools,
    stream,
  });
  if (!started.accepted) return started.response;

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
  const turn = parsed.purpose === "compaction" ? compactionEncoder(encoder, deps.ids) : encoder;
  const recorder = deps.state && prepared ? createRecorder(deps.state, prepared, deps.clock) : undefined;
  const finalError = (): GatewayError | undefined =>
    encoder.failure() ??
    (encoder.response().status === "failed"
      ? new GatewayError("backend_error", "The backend turn failed.")
      : undefined);
  const done = () => {
    // Clients that keep store on (the AI SDK) refer back to these items with item_reference.
    // (With a store, its owner-keyed cache serves them instead.)
    if (body.store !== false && deps.state === undefined) deps.issued.remember(encoder.output());
    const error = finalError();
    if (error !== undefined) session.recordError(error);
  };

  if (stream) {
    return session.stream(async (sse) => {
      const sink = sseEventSink(sse, recorder?.keep);
      try {
        await pumpTurn(started.batches, turn, sink);
      } finally {
        // The client went away mid-turn: the response still ends, as failed, before it is stored.
        if (!encoder.finished) encoder.fail(clientGone(session.cancelled()), sink);
        done();
        // Stored before the stream closes, so the client's next turn can refer to it.
        await recorder?.save(encoder.response());
      }
    });
  }

  // Non-streaming: only the final Response object is answered (a stored turn keeps the events too).
  const sink = eventObjectSink(recorder?.keep);
  turn.start?.(sink);
  return foldTurn(session, started.batches, {
    push: (event) => turn.push(event, sink),
    async end(terminal) {
      await turn.end(terminal, sink);
      done();
      const warning = await recorder?.save(encoder.response());
      if (warning !== undefined) c.header(NOT_STORED_HEADER, warning);
      setToolCallHeaders(c, session.telemetry());
      const error = finalError();
      // Nothing was sent yet, so a failed turn is an HTTP error clients already know how to handle.
      return error === undefined ? { body: encoder.response() } : { error };
    },
  });
};

/** Why a stream stopped before its turn ended: the client left, or stopped reading. */
const clientGone = (cancelled: boolean): GatewayError =>
  cancelled
    ? new GatewayError("cancelled", "The client closed the connection.")
    : new GatewayError("timeout", "The client stopped reading the stream.");
