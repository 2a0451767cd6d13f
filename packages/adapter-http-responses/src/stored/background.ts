import { invalidRequest } from "@proxy/core";
import { unixSeconds } from "@proxy/core/gateway";
import { openTurnSession } from "@proxy/http-surface";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { ResolvedDeps } from "../deps.js";
import { RESPONSES_SURFACE } from "../profile.js";
import type { ParsedResponsesRequest } from "../request/decode-request.js";
import { createResponsesEncoder } from "../response/encoder.js";
import { collectEvents } from "../response/event-sinks.js";
import { LeaseKeeper } from "./background-lease.js";
import { runBackgroundTurn } from "./background-run.js";
import { jsonBytes, StoredSize } from "./background-size.js";
import { createEventLog } from "./event-log.js";
import type { PreparedTurn } from "./prepare.js";
import { sseFrames } from "./replay.js";
import type { StoredState } from "./state.js";

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
  await state.store.createResponse({
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
    lease: { holder: state.replicaId, until: now + state.leaseMs },
  });

  const log = createEventLog();
  log.push(queued);
  // Input, events and the final body all count against PROXY_STORE_MAX_RESPONSE_BYTES.
  const size = new StoredSize(state.maxResponseBytes, jsonBytes(prepared.input) + jsonBytes(queued));
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    controller.abort();
  };
  let settle = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  // Registered before the turn starts, so a cancel or follower always finds it.
  state.running.set(id, { log, cancel, done });
  const lease = new LeaseKeeper({
    id,
    state,
    clock: deps.clock,
    log,
    storedEvents: queued.length,
    onCancel: cancel,
  });
  const turn = { id, deps, state, parsed, prepared, session, controller, encoder, log, size, lease };
  void runBackgroundTurn({ ...turn, cancelled: () => cancelled })
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
