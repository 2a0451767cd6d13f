import { GatewayError } from "@proxy/core";
import { pumpTurn, type TurnSession } from "@proxy/http-surface";
import { withCompactionInstruction } from "../compaction.js";
import type { ResolvedDeps } from "../deps.js";
import type { ParsedResponsesRequest } from "../request/decode-request.js";
import { compactionEncoder } from "../response/compaction-encoder.js";
import type { ResponsesEncoder } from "../response/encoder.js";
import { collectEvents, eventObjectSink } from "../response/event-sinks.js";
import type { ResponsesEvent } from "../response/text-delta-event.js";
import type { LeaseKeeper } from "./background-lease.js";
import type { StoredSize } from "./background-size.js";
import { tooLargeBody, tooLargeError, tooLargeEvent } from "./background-size.js";
import type { EventLog } from "./event-log.js";
import type { PreparedTurn } from "./prepare.js";
import type { StoredState } from "./state.js";

/** A background turn stored as `queued` under this process's lease, about to run detached. */
export interface BackgroundTurn {
  readonly id: string;
  readonly deps: ResolvedDeps;
  readonly state: StoredState;
  readonly parsed: ParsedResponsesRequest;
  readonly prepared: PreparedTurn;
  /** The turn's own session: stopped by `controller`, never by the request's client going away. */
  readonly session: TurnSession;
  readonly controller: AbortController;
  readonly encoder: ResponsesEncoder;
  readonly log: EventLog;
  readonly size: StoredSize;
  readonly lease: LeaseKeeper;
  /** A cancel was requested (the response ends `cancelled`). */
  cancelled(): boolean;
}

/**
 * Runs the turn, its events into the log as long as they fit the store, then stores the outcome
 * (the last events and the final status together). Rejects only with the turn's own unexpected
 * error, after the outcome is stored.
 */
export async function runBackgroundTurn(turn: BackgroundTurn): Promise<void> {
  const { size, log, encoder } = turn;
  try {
    if (size.tooLarge) throw tooLargeError(size.limit);
    await drive(turn);
  } catch (error) {
    if (!size.tooLarge) throw error;
  } finally {
    if (size.tooLarge) log.push([tooLargeEvent(encoder.response(), log.events.length, size.limit)]);
    else if (!encoder.finished) {
      const stopped = new GatewayError("backend_error", "The background turn stopped unexpectedly.");
      log.push(collectEvents((sink) => encoder.fail(stopped, sink)));
    }
    log.end();
    await turn.lease.stop();
    await storeOutcome(turn);
  }
}

/** Starts the turn on the backend and pumps its events into the log. */
async function drive(turn: BackgroundTurn): Promise<void> {
  const { id, deps, state, parsed, session, encoder, log, size } = turn;
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
  await state.store
    .markInProgress(id, state.replicaId, { ...encoder.response(), status: "in_progress" })
    .catch(() => undefined);
  // No client reads this turn: each batch's events go to the log, as long as they fit the store.
  let batch: ResponsesEvent[] = [];
  const sink = eventObjectSink(
    (event) => batch.push(event),
    () => {
      const events = batch;
      batch = [];
      if (size.tooLarge) return;
      if (size.admit(events)) log.push(events);
      // What is stored stays within the limit: the turn stops and the response fails, without output.
      else turn.controller.abort();
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
}

/** The final status, body, output and last events land together: a follower sees both or neither. */
async function storeOutcome(turn: BackgroundTurn): Promise<void> {
  const { id, state, prepared, encoder, size } = turn;
  const store = state.store;
  const response = size.tooLarge ? tooLargeBody(encoder.response(), size.limit) : encoder.response();
  const output = response.output.map((item) => ({ id: item.id, body: item }));
  const status = turn.cancelled() ? "cancelled" : response.status;
  const events = turn.lease.unflushed();
  await store
    .finishResponse(id, state.replicaId, { status, body: { ...response, status }, output, events })
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
