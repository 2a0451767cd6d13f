import type { GatewayError } from "../errors/gateway-error.js";
import type { BackendEvent } from "../events/backend-event.js";
import type { Finish } from "../model/finish-reason.js";
import type { Usage } from "../model/usage.js";
import type { BackendReadiness, BackendRequest, ModelInfo, TextBackend } from "../ports/text-backend.js";

/** A native function call the scripted model makes (needs `nativeTools` on the backend to be asked for). */
export interface ScriptedToolCall {
  readonly callId: string;
  /** The client's tool name. */
  readonly name: string;
  readonly arguments: string;
  /** Stream the arguments in these pieces (`tool-call-start`, deltas, then `tool-call`); else a lone `tool-call`. */
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

  async function* play(turn: ScriptedTurn, signal: AbortSignal): AsyncGenerator<BackendEvent> {
    if (turn.startError) throw turn.startError;
    yield { type: "stream-start", model: "scripted", turnId: `turn_${turns}` };
    for (const delta of turn.reasoning ?? []) yield { type: "reasoning-delta", delta };
    const chunks = typeof turn.chunks === "string" ? [turn.chunks] : turn.chunks;
    let played = 0;
    for (const delta of chunks) {
      if (turn.hangAfterChunks === played) await sleep(2 ** 31 - 1, signal);
      if (turn.delayMs) await sleep(turn.delayMs, signal);
      if (signal.aborted) {
        aborts++;
        return;
      }
      if (turn.error && turn.errorAfterChunks === played) {
        yield { type: "error", error: turn.error };
        return;
      }
      yield { type: "text-delta", delta };
      played++;
    }
    // Stalling after the last chunk (or with no chunks at all) must stall too.
    if (turn.hangAfterChunks === played) {
      await sleep(2 ** 31 - 1, signal);
      aborts++;
      return;
    }
    if (turn.error && (turn.errorAfterChunks === undefined || turn.errorAfterChunks >= played)) {
      yield { type: "error", error: turn.error };
      return;
    }
    for (const call of turn.toolCalls ?? []) {
      const { callId, name } = call;
      if (call.chunks) {
        yield { type: "tool-call-start", callId, name };
        for (const delta of call.chunks) yield { type: "tool-call-delta", callId, delta };
      }
      yield { type: "tool-call", callId, name, arguments: call.arguments };
    }
    yield { type: "usage", usage: turn.usage ?? DEFAULT_USAGE };
    yield { type: "finish", finish: turn.finish ?? { reason: "stop", raw: "completed" } };
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
      return {
        async *[Symbol.asyncIterator]() {
          active++;
          try {
            yield* play(turn, signal);
          } finally {
            active--;
          }
        },
      };
    },
    async listModels() {
      return options.models ?? [{ id: "scripted-model", ownedBy: "proxy" }];
    },
    readiness(): BackendReadiness {
      return { ready: true, inFlight: active, queued: 0, capacity: Number.POSITIVE_INFINITY, restarts: 0 };
    },
  };
};
