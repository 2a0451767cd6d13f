import type { GatewayError } from "../errors/gateway-error.js";
import type { BackendEvent } from "../events/stream-event.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";
import type {
  BackendBatch,
  BackendReadiness,
  BackendRequest,
  ModelInfo,
  TextBackend,
} from "../ports/text-backend.js";

/** A native function call the scripted model makes (needs `nativeTools` on the backend to be asked for). */
export interface ScriptedToolCall {
  readonly callId: string;
  /** The client's tool name. */
  readonly name: string;
  readonly arguments: string;
  /** Stream the arguments in these pieces (`tool-call-start`, deltas, then `tool-call-end`); else a lone `tool-call-end`. */
  readonly chunks?: ReadonlyArray<string> | undefined;
}

/** One scripted backend turn: text deltas played in the given chunking, then usage and finish. */
export interface ScriptedTurn {
  /** Text deltas, played one event each. A single string is one delta. */
  readonly chunks: ReadonlyArray<string> | string;
  readonly reasoning?: ReadonlyArray<string> | undefined;
  /** Native function calls, played after the text. */
  readonly toolCalls?: ReadonlyArray<ScriptedToolCall> | undefined;
  readonly usage?: Usage | undefined;
  readonly finish?: Finish | undefined;
  /** Fail before `stream-start` (a request-level failure). */
  readonly startError?: GatewayError | undefined;
  /** Fail after this many text chunks (a mid-stream failure). */
  readonly errorAfterChunks?: number | undefined;
  readonly error?: GatewayError | undefined;
  /** Milliseconds to wait before each chunk (a slow model). */
  readonly delayMs?: number | undefined;
  /** After this many chunks, stall until aborted (a model that never finishes). */
  readonly hangAfterChunks?: number | undefined;
}

export type Script =
  | ReadonlyArray<ScriptedTurn>
  | ((request: BackendRequest, turnIndex: number) => ScriptedTurn);

export interface ScriptedBackend extends TextBackend {
  /** Every request received, in order. */
  readonly requests: BackendRequest[];
  /** How many turns were aborted by their signal before finishing. */
  readonly aborts: () => number;
  /** Turns currently streaming. */
  readonly active: () => number;
}

const DEFAULT_USAGE: Usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** A `TextBackend` that plays scripts and records what it was asked: the core's test double. */
export const createScriptedBackend = (
  script: Script,
  options: {
    readonly models?: ReadonlyArray<ModelInfo>;
    readonly name?: string;
    /** Keep every request in `requests` (default true; turn off for long load runs). */
    readonly record?: boolean;
    /** Declare native function calling (`capabilities.nativeTools`), so `auto` picks native mode. */
    readonly nativeTools?: boolean;
  } = {},
): ScriptedBackend => {
  const requests: BackendRequest[] = [];
  let aborts = 0;
  let active = 0;
  let turns = 0;
  const pick = (request: BackendRequest, i: number): ScriptedTurn => {
    if (typeof script === "function") return script(request, i);
    const turn = script[Math.min(i, script.length - 1)];
    if (turn === undefined) throw new Error("scripted backend: empty script");
    return turn;
  };

  /**
   * Plays a turn as a batching transport would: every event up to the next wait (a delay, a hang)
   * goes out as one batch, so a script without delays is one batch.
   */
  async function* play(turn: ScriptedTurn, signal: AbortSignal): AsyncGenerator<BackendBatch> {
    if (turn.startError) throw turn.startError;
    let batch: BackendEvent[] = [{ type: "stream-start", model: "scripted", turnId: `turn_${turns}` }];
    const take = (): BackendBatch => {
      const full = batch;
      batch = [];
      return full;
    };
    const wait = async function* (ms: number): AsyncGenerator<BackendBatch> {
      if (batch.length > 0) yield take();
      await sleep(ms, signal);
    };
    for (const delta of turn.reasoning ?? []) batch.push({ type: "reasoning-delta", delta });
    const chunks = typeof turn.chunks === "string" ? [turn.chunks] : turn.chunks;
    let played = 0;
    // Every event up to the end (or an error) lands in `batch`; what is left goes out last.
    async function* fill(): AsyncGenerator<BackendBatch> {
      for (const delta of chunks) {
        if (turn.hangAfterChunks === played) yield* wait(2 ** 31 - 1);
        if (turn.delayMs) yield* wait(turn.delayMs);
        if (signal.aborted) {
          aborts++;
          return;
        }
        if (turn.error && turn.errorAfterChunks === played) {
          batch.push({ type: "error", error: turn.error });
          return;
        }
        batch.push({ type: "text-delta", delta });
        played++;
      }
      // Stalling after the last chunk (or with no chunks at all) must stall too.
      if (turn.hangAfterChunks === played) {
        yield* wait(2 ** 31 - 1);
        aborts++;
        return;
      }
      if (turn.error && (turn.errorAfterChunks === undefined || turn.errorAfterChunks >= played)) {
        batch.push({ type: "error", error: turn.error });
        return;
      }
      for (const call of turn.toolCalls ?? []) {
        const { callId, name } = call;
        if (call.chunks) {
          batch.push({ type: "tool-call-start", callId, name });
          for (const delta of call.chunks) batch.push({ type: "tool-call-delta", callId, delta });
        }
        batch.push({ type: "tool-call-end", callId, name, arguments: call.arguments });
      }
      batch.push({ type: "usage", usage: turn.usage ?? DEFAULT_USAGE });
      batch.push({ type: "finish", finish: turn.finish ?? { reason: "stop", raw: "completed" } });
    }
    yield* fill();
    if (batch.length > 0) yield take();
  }

  async function* counted(turn: ScriptedTurn, signal: AbortSignal): AsyncGenerator<BackendBatch> {
    active++;
    try {
      yield* play(turn, signal);
    } finally {
      active--;
    }
  }

  /** The event view: like a live model, it stops before the next text chunk once aborted. */
  async function* oneByOne(batches: AsyncIterable<BackendBatch>, signal: AbortSignal) {
    for await (const batch of batches)
      for (const event of batch) {
        if (event.type === "text-delta" && signal.aborted) {
          aborts++;
          return;
        }
        yield event;
      }
  }

  return {
    specificationVersion: "v1",
    name: options.name ?? "scripted",
    ...(options.nativeTools ? { capabilities: { nativeTools: true } } : {}),
    requests,
    aborts: () => aborts,
    active: () => active,
    stream(request, { signal }) {
      const index = turns++;
      if (options.record !== false) requests.push(request);
      const turn = pick(request, index);
      const batches = () => counted(turn, signal);
      return { batches, [Symbol.asyncIterator]: () => oneByOne(batches(), signal) };
    },
    async listModels() {
      return options.models ?? [{ id: "scripted-model", ownedBy: "proxy" }];
    },
    readiness(): BackendReadiness {
      return { ready: true, inFlight: active, queued: 0, capacity: Number.POSITIVE_INFINITY, restarts: 0 };
    },
  };
};
