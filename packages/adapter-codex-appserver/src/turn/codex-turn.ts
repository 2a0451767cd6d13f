import {
  type AdmissionGate,
  type BackendBatch,
  type BackendEvent,
  type BackendRequest,
  GatewayError,
} from "@proxy/core";
import type { Logger } from "../logger.js";
import { mapRpcError } from "../map-codex-error.js";
import type { ProcessPool } from "../pool/process-pool.js";
import type { ThreadSource } from "../pool/warm-threads.js";
import type { ExitInfo } from "../transport/app-server-process.js";
import { describe } from "../transport/app-server-process.js";
import { JsonRpcError } from "../transport/rpc-errors.js";
import { answerServerRequest } from "../transport/server-requests.js";
import { createAsyncQueue } from "./async-queue.js";
import { toCodexTurnInput } from "./codex-input.js";
import { nativeThreadParams, nativeToolNames } from "./native-tools.js";
import { providerAnswered, refusalOf } from "./turn-acceptance.js";
import { createTurnMapper } from "./turn-mapper.js";

export interface TurnContext {
  readonly pool: ProcessPool;
  /** Where a turn's thread comes from: pre-started for its exact config, or started now. */
  readonly threads: ThreadSource;
  readonly admission: AdmissionGate;
  readonly logger: Logger;
  /** The sealed `thread/start` params (waits for the sealed catalog on first use). */
  readonly sealedParams: () => Promise<Record<string, unknown>>;
  readonly allowRemoteImages: boolean;
  /** Per JSON-RPC request (thread/start, inject_items, turn/start). */
  readonly requestTimeoutMs: number;
  /** How long a request waits for a (re)starting app-server. */
  readonly startWaitMs: number;
  /** Whole-turn limit; 0 = none. */
  readonly turnTimeoutMs: number;
  /** `item/tool/call` requests of native turns not yet answered, across the backend (a gauge). */
  readonly pendingToolRequests: { count: number };
  /**
   * Bytes of notifications a turn may hold for a consumer that stopped reading (each counted as its
   * line plus the parsed object's overhead). codex's stdout is shared by every turn of its process
   * and cannot be paused for one, so beyond this the turn fails instead.
   */
  readonly maxPendingNotificationBytes: number;
}

/** What a parsed notification costs beyond its line: the objects and strings JSON.parse made. */
const NOTE_OVERHEAD_BYTES = 256;

type Signal =
  | {
      readonly kind: "note";
      readonly method: string;
      readonly params: Record<string, unknown>;
      /** What holding it costs; 0 for what is not counted (held tool requests). */
      readonly bytes: number;
    }
  | { readonly kind: "exit"; readonly info: ExitInfo }
  | { readonly kind: "abort" }
  | { readonly kind: "timeout" }
  | { readonly kind: "overflow" };

interface TurnStartResult {
  readonly turn: { readonly id: string };
}

/** How long an aborted turn waits for codex's usage before it ends. */
const USAGE_DRAIN_MS = 1_000;

/** Resolves with `promise`'s value, or `undefined` as soon as `signal` aborts. */
const unlessAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(undefined);
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });

/**
 * One request = one ephemeral, sealed thread: `thread/start` → `thread/inject_items` (history) →
 * `turn/start` → notifications until `turn/completed` → `thread/unsubscribe`. Aborting `signal`
 * sends `turn/interrupt` at once (from the abort listener, not when the consumer next pulls); the
 * iterable then yields only codex's usage and ends with the interrupted turn (within a second).
 * `stream-start` waits until the model provider answered (see turn-acceptance.ts): failures before
 * it are thrown (an HTTP status for the client), after it they are `error` events.
 * Yields batches: every notification already queued when the consumer pulls, mapped in one pass.
 */
export async function* runCodexTurn(
  ctx: TurnContext,
  request: BackendRequest,
  signal: AbortSignal,
): AsyncGenerator<BackendBatch> {
  const names = nativeToolNames(request);
  const plan = toCodexTurnInput(request, {
    allowRemoteImages: ctx.allowRemoteImages,
    ...(names ? { codexName: names.toCodex } : {}),
  });
  const { logger } = ctx;
  let releaseAdmission: (() => void) | undefined;
  try {
    releaseAdmission = await ctx.admission.acquire(signal);
  } catch (e) {
    if (signal.aborted) return;
    throw e;
  }
  const queue = createAsyncQueue<Signal>();
  const cleanups: Array<() => void> = [releaseAdmission];
  let phase = "thread/start";
  let streamStarted = false;
  let completed = false;
  /** The events mapped from what was queued, handed over together. */
  let batch: BackendEvent[] = [];
  const onAbort = () => queue.push({ kind: "abort" });
  signal.addEventListener("abort", onAbort, { once: true });
  cleanups.push(() => signal.removeEventListener("abort", onAbort));
  if (ctx.turnTimeoutMs > 0) {
    const timer = setTimeout(() => queue.push({ kind: "timeout" }), ctx.turnTimeoutMs);
    cleanups.push(() => clearTimeout(timer));
  }

  try {
    const sealed = await ctx.sealedParams();
    const lease = await ctx.pool.acquire(signal, ctx.startWaitMs);
    cleanups.push(lease.release);
    const proc = lease.process;
    const rpc = proc.connection;
    cleanups.push(proc.onExit((info) => queue.push({ kind: "exit", info })));
    if (names && !proc.experimentalApi)
      throw new GatewayError(
        "invalid_request",
        "Native tool mode needs codex's experimental API, which this codex app-server refused; use tool mode auto or prompt.",
        { param: "x-proxy-tool-mode", code: "native_tools_unavailable" },
      );
    const call = <T>(method: string, params: unknown) => {
      phase = method;
      return rpc.request<T>(method, params, { signal, timeoutMs: ctx.requestTimeoutMs });
    };

    // Not cancelled by the signal either: a thread codex creates after we stopped waiting would
    // stay loaded, so a late answer is unsubscribed instead.
    const opened = ctx.threads.open(
      proc,
      {
        ...sealed,
        ...(request.model ? { model: request.model } : {}),
        baseInstructions: request.instructions,
        ...(request.tools && names ? nativeThreadParams(request.tools, names) : {}),
      },
      request.partition,
    );
    const threadStart = opened.started;
    const started = await unlessAborted(threadStart, signal);
    if (started === undefined) {
      threadStart
        .then((r) =>
          rpc.request("thread/unsubscribe", { threadId: r.thread.id }, { timeoutMs: ctx.requestTimeoutMs }),
        )
        .catch(() => {});
      return;
    }
    const threadId = started.thread.id;
    // This config worked: the next turn with it finds a thread ready (started after this turn).
    cleanups.push(opened.refill);
    // Native turns: codex asks for each tool result and waits. The client runs the tools and sends
    // the results in its next request (a new thread), so these are held only until the turn is
    // interrupted below, then answered (codex ignores answers to a cancelled call).
    const held = new Set<(error: Error) => void>();
    const holdToolRequest = (method: string, params: Record<string, unknown>) => {
      if (method !== "item/tool/call") return Promise.resolve(answerServerRequest(method));
      queue.push({ kind: "note", method, params, bytes: 0 });
      ctx.pendingToolRequests.count++;
      return new Promise<never>((_, reject) => {
        const release = (error: Error) => {
          held.delete(release);
          ctx.pendingToolRequests.count--;
          reject(error);
        };
        held.add(release);
      });
    };
    const releaseToolRequests = () => {
      const answer = new JsonRpcError(-32000, "the client returns tool results in its next request");
      for (const release of [...held]) release(answer);
    };
    let overflowed = false;
    let pendingBytes = 0;
    const onNote = (method: string, params: Record<string, unknown>, size: number) => {
      if (overflowed) return;
      const bytes = size + NOTE_OVERHEAD_BYTES;
      if (pendingBytes + bytes <= ctx.maxPendingNotificationBytes) {
        pendingBytes += bytes;
        return queue.push({ kind: "note", method, params, bytes });
      }
      // The consumer is blocked: the turn is interrupted when it reads the failure or is aborted.
      overflowed = true;
      queue.push({ kind: "overflow" });
    };
    cleanups.push(proc.subscribe(threadId, onNote, names ? holdToolRequest : undefined));

    // Interrupt (once a turn exists and has not completed), then unsubscribe — in the
    // background, so neither the abort listener nor the generator's exit waits on codex.
    let turnStart: Promise<TurnStartResult> | undefined;
    let turnId: string | undefined;
    let interrupt: Promise<unknown> | undefined;
    const quiet = (what: string) => (e: unknown) =>
      logger.debug({ err: e, threadId }, `codex ${what} failed`);
    const sendInterrupt = () => {
      if (interrupt || completed || turnId === undefined) return;
      interrupt = rpc.request("turn/interrupt", { threadId, turnId }, { timeoutMs: ctx.requestTimeoutMs });
      interrupt.catch(quiet("turn/interrupt"));
    };
    signal.addEventListener("abort", sendInterrupt, { once: true });
    cleanups.push(() => signal.removeEventListener("abort", sendInterrupt));
    cleanups.push(() => {
      void (async () => {
        await turnStart?.catch(() => {});
        sendInterrupt();
        await interrupt?.catch(() => {});
        releaseToolRequests();
        await rpc
          .request("thread/unsubscribe", { threadId }, { timeoutMs: ctx.requestTimeoutMs })
          .catch(quiet("unsubscribe"));
      })();
    });

    if (plan.inject.length > 0) await call("thread/inject_items", { threadId, items: plan.inject });
    if (signal.aborted) return;
    phase = "turn/start";
    // Not cancelled by the signal: if the client aborts meanwhile, the turn still starts inside
    // codex and must be interrupted as soon as its id is known.
    turnStart = rpc.request<TurnStartResult>(
      "turn/start",
      {
        threadId,
        input: plan.input,
        ...(request.reasoningEffort ? { effort: request.reasoningEffort } : {}),
        ...(request.reasoningSummary ? { summary: request.reasoningSummary } : {}),
        ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
      },
      { timeoutMs: ctx.requestTimeoutMs },
    );
    turnStart.then((r) => {
      turnId = r.turn.id;
      if (signal.aborted) sendInterrupt();
    }, quiet("turn/start"));
    const ack = await unlessAborted(turnStart, signal);
    if (ack === undefined) return;
    turnId = ack.turn.id;
    /** Held back until the provider answered, then sent ahead of the first batch. */
    let start: BackendEvent | undefined = {
      type: "stream-start",
      model: started.model ?? request.model,
      turnId,
    };
    let answered = false;

    const historyCallIds = new Set(
      request.history.flatMap((m) => ("toolCalls" in m ? m.toolCalls.map((c) => c.callId) : [])),
    );
    const mapper = createTurnMapper(logger, names, historyCallIds);
    let draining = false;
    /** Maps one queued signal into `batch`; true when the turn's stream ends with it. */
    const take = (next: Signal): boolean => {
      if (next.kind === "note") pendingBytes -= next.bytes;
      if (next.kind === "abort") {
        // Stopped on purpose (stop-after-tools, a policy breach): the interrupt is on its way, and
        // codex's usage for what it already generated may still come with the interrupted turn's
        // end. Pass only that on, for a bounded moment; the consumer may stop reading sooner.
        if (draining) return false;
        draining = true;
        const timer = setTimeout(() => queue.push({ kind: "timeout" }), USAGE_DRAIN_MS);
        cleanups.push(() => clearTimeout(timer));
        return false;
      }
      if (draining) {
        if (next.kind !== "note") return true;
        for (const event of mapper.map(next.method, next.params))
          if (event.type === "usage") batch.push(event);
        if (!mapper.done()) return false;
        completed = next.method === "turn/completed";
        return true;
      }
      if (next.kind === "exit") {
        const why = `codex app-server died mid-turn (${describe(next.info)})`;
        batch.push({
          type: "error",
          error: new GatewayError("backend_unavailable", why, { retryAfterSeconds: 1 }),
        });
        return true;
      }
      if (next.kind === "overflow") {
        const why = `the client stopped reading: more than ${ctx.maxPendingNotificationBytes} bytes of backend events were waiting`;
        batch.push({ type: "error", error: new GatewayError("timeout", why) });
        return true;
      }
      if (next.kind === "timeout") {
        const why = `codex turn exceeded ${ctx.turnTimeoutMs} ms`;
        batch.push({ type: "error", error: new GatewayError("timeout", why) });
        return true;
      }
      const noteTurn = next.params.turnId ?? (next.params.turn as { id?: unknown } | undefined)?.id;
      if (noteTurn !== undefined && noteTurn !== turnId) return false;
      if (!answered && providerAnswered(next.method, next.params)) answered = true;
      for (const event of mapper.map(next.method, next.params)) batch.push(event);
      if (!mapper.done()) return false;
      completed = next.method === "turn/completed"; // otherwise the closer interrupts it
      return true;
    };
    for (;;) {
      const next = await queue.next();
      if (next === undefined) return;
      let ended = take(next);
      // The provider's answer is handed on at once, as `stream-start` alone.
      let cut = ended || (start !== undefined && answered);
      for (let more = cut ? undefined : queue.shift(); more !== undefined; more = queue.shift()) {
        ended = take(more);
        cut = ended || (start !== undefined && answered);
        if (cut) break;
      }
      if (start !== undefined && (batch.length > 0 || answered)) {
        const refusal = refusalOf(batch);
        if (refusal !== undefined) throw refusal;
        batch.unshift(start);
        start = undefined;
        streamStarted = true;
      }
      if (batch.length > 0) {
        const full = batch;
        batch = [];
        yield full;
      }
      if (ended) return;
    }
  } catch (e) {
    if (signal.aborted) return;
    const error = mapRpcError(e, phase);
    if (!streamStarted) throw error;
    batch.push({ type: "error", error });
    yield batch;
  } finally {
    queue.end();
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}
