import { GatewayError, invalidRequest, unixSeconds } from "@proxy/core";
import { openTurnSession, pumpTurn } from "@proxy/http-surface";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { withCompactionInstruction } from "../compaction.js";
import type { ResolvedDeps } from "../http/deps.js";
import { RESPONSES_SURFACE } from "../http/surface.js";
import type { ParsedResponsesRequest } from "../request/decode-request.js";
import { compactionEncoder } from "../response/compaction-encoder.js";
import { createResponsesEncoder } from "../response/encoder.js";
import { collectEvents, eventObjectSink } from "../response/event-sinks.js";
import type { ResponseObject } from "../response/response-object.js";
import type { ResponsesEvent } from "../response/text-delta-event.js";
import { createEventLog } from "./event-log.js";
import type { PreparedTurn } from "./prepare.js";
import { sseFrames } from "./replay.js";
import type { StoredState } from "./state.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Size of a value as stored (JSON text). */
const jsonBytes = (value: unknown): number => JSON.stringify(value).length;

const tooLargeError = (limit: number) =>
  new GatewayError(
    "request_too_large",
    `The background response grew past ${limit} bytes, the most the store keeps (PROXY_STORE_MAX_RESPONSE_BYTES); it was stopped.`,
    { code: "response_too_large" },
  );

/** The stored outcome of a background response that outgrew the store: failed, without its output. */
const tooLargeBody = (response: ResponseObject, limit: number): ResponseObject => {
  const error = tooLargeError(limit);
  return { ...response, status: "failed", output: [], error: { code: error.code, message: error.message } };
};

const tooLargeEvent = (response: ResponseObject, sequence: number, limit: number): ResponsesEvent =>
  ({
    type: "response.failed",
    sequence_number: sequence,
    response: tooLargeBody(response, limit),
  }) as ResponsesEvent;

/**
 * `background: true`: the turn is stored as `queued` under a lease held by this process and runs
 * detached from the request; it becomes `in_progress` once the backend accepted it (past admission).
 * While it runs, its events are appended to the store and the lease renewed every `pollMs`; a cancel
 * requested on any replica is seen at the next renewal. The client gets the Response at once, or
 * (with `stream`) the live events, and may leave and resume later.
 */
export const startBackgroundResponse = async (
  c: Context,
  deps: ResolvedDeps,
  state: StoredState,
  parsed: ParsedResponsesRequest,
  prepared: PreparedTurn,
): Promise<Response> => {
  if (!prepared.store)
    throw invalidRequest("Background mode requires 'store' to be true.", "store", "invalid_value");
  const { body } = parsed;
  const { store, replicaId: holder } = state;
  const id = deps.ids.next("resp");
  const controller = new AbortController();
  // The turn's own session: it is stopped by `cancel`, never by this request's client going away.
  const session = openTurnSession(c, deps, RESPONSES_SURFACE, { signal: controller.signal });
  const encoder = createResponsesEncoder({
    header: {
      id,
      createdAt: unixSeconds(deps.clock),
      model: body.model,
      body,
      stored: true,
      conversationId: prepared.conversationName,
    },
    ids: deps.ids,
    clock: deps.clock,
    outputMode: session.useModel(body.model).outputMode,
    namespaces: parsed.namespaces,
    customTools: parsed.customTools,
  });
  const now = deps.clock.now();
  const queued = collectEvents(encoder.queue);
  await store.createResponse({
    id,
    owner: prepared.owner,
    previousResponseId: prepared.previousResponseId,
    conversationId: prepared.conversationId,
    status: "queued",
    background: true,
    createdAt: now,
    expiresAt: now + state.ttlMs,
    body: encoder.response(),
    input: prepared.input,
    output: [],
    events: queued,
    lease: { holder, until: now + state.leaseMs },
  });

  const log = createEventLog();
  log.push(queued);
  // Input, events and the final body all count against PROXY_STORE_MAX_RESPONSE_BYTES.
  let storedBytes = jsonBytes(prepared.input) + jsonBytes(queued);
  let tooLarge = storedBytes > state.maxResponseBytes;
  let cancelled = false;
  let ended = false;
  const cancel = () => {
    cancelled = true;
    controller.abort();
  };

  let flushed = queued.length;
  const flush = async () => {
    const pending = log.events.slice(flushed);
    if (pending.length === 0) return;
    await store.appendEvents(id, flushed, pending);
    flushed += pending.length;
  };
  /** Events out, lease renewed, cancel requests and lost leases seen; never overlapping itself. */
  const heartbeat = async () => {
    while (!ended) {
      await sleep(state.pollMs);
      if (ended) return;
      try {
        await flush();
        const lease = await store.renewLease(id, holder, deps.clock.now() + state.leaseMs);
        if (lease === undefined || lease.cancelRequested) cancel();
      } catch {
        // The store is unreachable for now: keep the turn; the lease holds up to leaseMs.
      }
    }
  };

  const drive = async () => {
    const started = await session.start({
      request: parsed.purpose === "compaction" ? withCompactionInstruction(parsed.turn) : parsed.turn,
      tools: parsed.tools,
      stream: parsed.stream,
      // The event log holds the whole answer until it is stored, streamed or not.
      heldWhole: true,
    });
    if (!started.accepted) {
      // Refused before it began (overloaded, backend down): the stored response fails with that error.
      const { error } = (await started.response.json()) as { error?: { code?: string; message?: string } };
      const refusal = new GatewayError("backend_error", error?.message ?? "The backend refused the turn.", {
        code: error?.code,
      });
      log.push(collectEvents((sink) => encoder.fail(refusal, sink)));
      return;
    }
    // The turn really runs now: retrieval shows `in_progress` (the `response.in_progress` event follows).
    await store
      .markInProgress(id, holder, { ...encoder.response(), status: "in_progress" })
      .catch(() => undefined);
    // No client reads this turn: each batch's events go to the log, as long as they fit the store.
    let batch: ResponsesEvent[] = [];
    const sink = eventObjectSink(
      (event) => batch.push(event),
      () => {
        const events = batch;
        batch = [];
        if (tooLarge) return;
        storedBytes += jsonBytes(events);
        if (storedBytes <= state.maxResponseBytes) log.push(events);
        else {
          // What is stored stays within the limit: the turn stops and the response fails, without output.
          tooLarge = true;
          controller.abort();
        }
      },
    );
    await pumpTurn(
      started.batches,
      parsed.purpose === "compaction" ? compactionEncoder(encoder, deps.ids) : encoder,
      sink,
    );
    const failure = encoder.failure();
    if (failure !== undefined) session.recordError(failure);
    // Reports the turn once; the body goes nowhere (the client had its answer when the turn began).
    session.json({});
  };

  let settle = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  // Registered before the turn starts, so a cancel or follower always finds it.
  state.running.set(id, { log, cancel, done });
  const beat = heartbeat();
  void (async () => {
    try {
      if (tooLarge) throw tooLargeError(state.maxResponseBytes);
      await drive();
    } catch (error) {
      if (!tooLarge) throw error;
    } finally {
      if (tooLarge) log.push([tooLargeEvent(encoder.response(), log.events.length, state.maxResponseBytes)]);
      else if (!encoder.finished) {
        const stopped = new GatewayError("backend_error", "The background turn stopped unexpectedly.");
        log.push(collectEvents((sink) => encoder.fail(stopped, sink)));
      }
      ended = true;
      log.end();
      await beat;
      const response = tooLarge
        ? tooLargeBody(encoder.response(), state.maxResponseBytes)
        : encoder.response();
      const output = response.output.map((item) => ({ id: item.id, body: item }));
      const status = cancelled ? "cancelled" : response.status;
      // The last events and the final status land together: a follower elsewhere sees both or neither.
      const events = { fromSeq: flushed, events: log.events.slice(flushed) };
      await store
        .finishResponse(id, holder, { status, body: { ...response, status }, output, events })
        .then((finished) =>
          finished && prepared.conversationId !== null
            ? store.appendConversationItems(prepared.owner, prepared.conversationId, [
                ...prepared.input,
                ...output,
              ])
            : undefined,
        )
        // The store failed us: the lease runs out and any replica marks the response failed.
        .catch(() => undefined);
    }
  })()
    .catch(() => undefined)
    .finally(() => {
      state.running.delete(id);
      settle();
    });

  if (!parsed.stream) return c.json(encoder.response());
  return streamSSE(c, async (sse) => {
    // Leaving stops the following, never the turn: it is resumed with GET ?stream=true&starting_after.
    for await (const batch of log.follow(-1)) {
      if (sse.aborted) return;
      await sse.write(sseFrames(batch));
    }
    // Closed once stored, so a retrieve right after the stream sees the final state.
    await done;
  });
};
