import { GatewayError, unixSeconds } from "@proxy/core";
import { callerOwner, openTurnSession, readJsonBody, setToolCallHeaders } from "@proxy/http-surface";
import type { Context } from "hono";
import { withCompactionInstruction } from "../compaction.js";
import { decodeResponsesRequest, type ParsedResponsesRequest } from "../request/decode-request.js";
import { createResponsesEncoder } from "../response/encoder.js";
import { responsesEventFrame } from "../response/text-delta-event.js";
import { startBackgroundResponse } from "../stored/background.js";
import { type PreparedTurn, prepareStoredTurn } from "../stored/prepare.js";
import { createRecorder, NOT_STORED_HEADER } from "../stored/record.js";
import type { ResolvedDeps } from "./deps.js";
import { createResponseRun } from "./response-run.js";
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
  const run = createResponseRun({
    encoder,
    batches: started.batches,
    purpose: parsed.purpose,
    ids: deps.ids,
  });
  const recorder = deps.state && prepared ? createRecorder(deps.state, prepared, deps.clock) : undefined;
  const batches = recorder ? recorder.tap(run.batches()) : run.batches();
  const finalError = (): GatewayError | undefined =>
    run.failure() ??
    (encoder.response().status === "failed"
      ? new GatewayError("backend_error", "The backend turn failed.")
      : undefined);
  const done = () => {
    // Clients that keep store on (the AI SDK) refer back to these items with item_reference.
    // (With a store, its owner-keyed cache serves them instead.)
    if (body.store !== false && deps.state === undefined) deps.issued.remember(encoder.response().output);
    const error = finalError();
    if (error !== undefined) session.recordError(error);
  };

  if (stream) {
    return session.stream(async (sink) => {
      try {
        for await (const batch of batches) {
          for (const event of batch) sink.queueText(responsesEventFrame(event));
          await sink.flush();
        }
      } finally {
        done();
        // Stored before the stream closes, so the client's next turn can refer to it.
        await recorder?.save(encoder.response());
      }
    });
  }

  try {
    for await (const _ of batches) {
      // Non-streaming: only the final Response object matters.
    }
  } finally {
    done();
  }
  const warning = await recorder?.save(encoder.response());
  if (warning !== undefined) c.header(NOT_STORED_HEADER, warning);
  setToolCallHeaders(c, session.telemetry());
  const error = finalError();
  // Nothing was sent yet, so a failed turn is an HTTP error clients already know how to handle.
  if (error !== undefined) return session.fail(error);
  return session.json(encoder.response());
};
