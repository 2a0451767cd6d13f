import { performance } from "node:perf_hooks";
import { initializeDirectRpc, type Json, openDirectRpc } from "./direct-rpc.js";

/** One direct turn: the answer, and when each phase ended (ms since `timedTurn` was called). */
export interface TimedDirectTurn {
  readonly answer: string;
  readonly threadStartedMs: number;
  /** `thread/inject_items` answered (equals `threadStartedMs` when nothing was injected). */
  readonly injectedMs: number;
  readonly turnStartedMs: number;
  /** The first `item/agentMessage/delta` (NaN if none came). */
  readonly firstDeltaMs: number;
  readonly completedMs: number;
}

export interface DirectDriver {
  readonly pid: number | undefined;
  /** thread/start → turn/start → wait for turn/completed (unsubscribe in the background, as the adapter does). */
  turn(threadParams: Json, text: string): Promise<string>;
  /** `turn` (after injecting `history`, raw Responses items, if any), with the time each phase ended. */
  timedTurn(threadParams: Json, text: string, history?: ReadonlyArray<unknown>): Promise<TimedDirectTurn>;
  close(): Promise<void>;
}

/**
 * The least work anyone could do per codex turn: a bare newline-delimited JSON-RPC client on its
 * own `codex app-server` (same binary and CODEX_HOME as the gateway's; pass `extraArgs` for its flags), with no
 * supervision, admission, mapping or HTTP. The baseline for the gateway-over-codex latency ratio.
 */
export const startDirectDriver = async (
  command: string,
  env: NodeJS.ProcessEnv,
  /** Extra `app-server` arguments (e.g. the gateway's own `-c` overrides, for a like-for-like baseline). */
  extraArgs: ReadonlyArray<string> = [],
): Promise<DirectDriver> => {
  const appServer = ["app-server", ...extraArgs, "-c", "thread_unload_delay_secs=5"];
  const rpc = openDirectRpc(command, appServer, env);
  await initializeDirectRpc(rpc, "bench_direct");
  const { request } = rpc;

  const timedTurn = async (
    threadParams: Json,
    text: string,
    history: ReadonlyArray<unknown> = [],
  ): Promise<TimedDirectTurn> => {
    const t0 = performance.now();
    const started = await request("thread/start", threadParams);
    const threadStartedMs = performance.now() - t0;
    const threadId = (started.thread as { id: string }).id;
    let answer = "";
    let firstDeltaMs = Number.NaN;
    const done = new Promise<void>((resolve) =>
      rpc.onThread(threadId, (method, params) => {
        if (method === "item/agentMessage/delta") {
          if (Number.isNaN(firstDeltaMs)) firstDeltaMs = performance.now() - t0;
          answer += String(params.delta);
        }
        if (method === "turn/completed") resolve();
      }),
    );
    if (history.length > 0) await request("thread/inject_items", { threadId, items: history });
    const injectedMs = performance.now() - t0;
    await request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
    const turnStartedMs = performance.now() - t0;
    await done;
    const completedMs = performance.now() - t0;
    rpc.onThread(threadId, undefined);
    void request("thread/unsubscribe", { threadId }).catch(() => {});
    return { answer, threadStartedMs, injectedMs, turnStartedMs, firstDeltaMs, completedMs };
  };

  return {
    pid: rpc.pid,
    timedTurn,
    turn: async (threadParams, text) => (await timedTurn(threadParams, text)).answer,
    close: rpc.close,
  };
};
