import type { AssistantEvent, TurnSummary } from "@proxy/core";
import {
  createTelemetry,
  GatewayError,
  resolveOutputMode,
  resolveToolMode,
  runTurn,
  toGatewayError,
  unixSeconds,
} from "@proxy/core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { withCompactionInstruction } from "../compaction.js";
import { decodeResponsesRequest, type ParsedResponsesRequest } from "../request/decode-request.js";
import { createResponsesEncoder } from "../response/encoder.js";
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
  try {
    parsed = decodeResponsesRequest(await readJsonBody(c), deps.issued.lookup);
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
      settings: {
        ...deps.settings,
        outputMode,
        toolMode: resolveToolMode(c.req.header("x-proxy-tool-mode"), deps.settings.toolMode),
      },
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
    header: { id: deps.ids.next("resp"), createdAt: unixSeconds(deps.clock), model: body.model, body },
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
        for await (const batch of run.batches())
          for (const event of batch) await sse.writeSSE({ event: event.type, data: JSON.stringify(event) });
      } finally {
        done();
      }
    });
  }

  try {
    for await (const _ of run.batches()) {
      // Non-streaming: only the final Response object matters.
    }
  } finally {
    done();
  }
  const error = finalError();
  // Nothing was sent yet, so a failed turn is an HTTP error clients already know how to handle.
  if (error !== undefined) return errorResponse(c, error);
  return c.json(encoder.response());
};
