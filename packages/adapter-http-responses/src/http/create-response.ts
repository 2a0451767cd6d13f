import type { AssistantEvent, TurnSummary } from "@proxy/core";
import {
  createTelemetry,
  GatewayError,
  resolveOutputMode,
  runTurn,
  toGatewayError,
  unixSeconds,
} from "@proxy/core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { withCompactionInstruction } from "../compaction.js";
import { decodeResponsesRequest, type ParsedResponsesRequest } from "../request/decode-request.js";
import { createResponsesEncoder } from "../response/encoder.js";
import { startBackgroundResponse } from "../stored/background.js";
import { type PreparedTurn, prepareStoredTurn } from "../stored/prepare.js";
import { createRecorder, NOT_STORED_HEADER } from "../stored/record.js";
import { ownerOf } from "../stored/state.js";
import type { ResolvedDeps } from "./deps.js";
import { errorResponse, readJsonBody } from "./error-response.js";
import { createResponseRun } from "./response-run.js";

/** `POST /responses`: decode, run one core turn, answer as SSE or as one Response object. */
export const handleCreateResponse = async (c: Context, deps: ResolvedDeps): Promise<Response> => {
  const startedAt = deps.clock.now();
  const outputMode = resolveOutputMode(c.req.header("x-proxy-output-mode"), deps.settings.outputMode);
  const report = (summary: Omit<TurnSummary, "api" | "outputMode">): void =>
    deps.observer?.onTurnEnd({ api: "responses", outputMode, ...summary });

  let parsed: ParsedResponsesRequest;
  let prepared: PreparedTurn | undefined;
  try {
    const json = await readJsonBody(c);
    // With a store: the chain or conversation becomes history, before any backend turn.
    prepared =
      deps.state === undefined
        ? undefined
        : await prepareStoredTurn(json, ownerOf(c), deps.state, deps.ids, deps.clock.now());
    parsed = decodeResponsesRequest(json, prepared?.resolve ?? deps.issued.lookup, prepared);
    if (deps.state !== undefined && prepared !== undefined && parsed.body.background === true)
      return await startBackgroundResponse(c, deps, deps.state, parsed, prepared, outputMode);
  } catch (cause) {
    const error = toGatewayError(cause);
    report({ model: "", stream: false, telemetry: createTelemetry([]), error });
    return errorResponse(c, error);
  }

  const { body, stream } = parsed;
  const controller = new AbortController();
  const abort = () => controller.abort();
  c.req.raw.signal.addEventListener("abort", abort, { once: true });
  const handle = runTurn(
    { backend: deps.backend, ids: deps.ids, clock: deps.clock, schemas: deps.schemas },
    {
      request: parsed.purpose === "compaction" ? withCompactionInstruction(parsed.turn) : parsed.turn,
      tools: parsed.tools,
      settings: { ...deps.settings, outputMode },
      signal: controller.signal,
    },
  );
  const iterator = handle.events[Symbol.asyncIterator]();
  const first = await iterator.next();
  const ttfbMs = deps.clock.now() - startedAt;
  const early =
    first.done === true
      ? new GatewayError("backend_error", "The backend produced no events.")
      : first.value.type === "error"
        ? first.value.error
        : undefined;
  if (early !== undefined || first.done === true) {
    // Nothing was sent yet: a failure before the backend started is a plain HTTP error.
    c.req.raw.signal.removeEventListener("abort", abort);
    const error = early ?? new GatewayError("backend_error", "The backend produced no events.");
    report({ model: body.model, stream, telemetry: handle.telemetry(), error, ttfbMs });
    return errorResponse(c, error);
  }

  const encoder = createResponsesEncoder({
    header: {
      id: deps.ids.next("resp"),
      createdAt: unixSeconds(deps.clock),
      model: body.model,
      body,
      stored: prepared?.store,
      conversationId: prepared?.conversationId,
    },
    ids: deps.ids,
    clock: deps.clock,
    outputMode,
    namespaces: parsed.namespaces,
  });
  const rest: AsyncIterable<AssistantEvent> = { [Symbol.asyncIterator]: () => iterator };
  const run = createResponseRun({
    encoder,
    events: rest,
    first: first.value,
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
    c.req.raw.signal.removeEventListener("abort", abort);
    // Clients that keep store on (the AI SDK) refer back to these items with item_reference.
    if (body.store !== false) deps.issued.remember(encoder.response().output);
    report({
      model: body.model,
      stream,
      telemetry: handle.telemetry(),
      finish: run.finish(),
      error: finalError(),
      ttfbMs,
    });
  };

  if (stream) {
    return streamSSE(c, async (sse) => {
      sse.onAbort(abort);
      try {
        for await (const batch of batches)
          for (const event of batch) await sse.writeSSE({ event: event.type, data: JSON.stringify(event) });
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
  const error = finalError();
  // Nothing was sent yet, so a failed turn is an HTTP error clients already know how to handle.
  if (error !== undefined) return errorResponse(c, error);
  return c.json(encoder.response());
};
