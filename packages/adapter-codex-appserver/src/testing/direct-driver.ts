import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

type Json = Record<string, unknown>;

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
  const [file, args] = /\.[cm]?js$/.test(command)
    ? [process.execPath, [command, ...appServer]]
    : [command, appServer];
  const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  let nextId = 1;
  const pending = new Map<number, (message: Json) => void>();
  const threads = new Map<string, (method: string, params: Json) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message: Json;
    try {
      message = JSON.parse(line) as Json;
    } catch {
      return;
    }
    if (typeof message.method === "string" && message.id !== undefined) {
      // A server→client request (approvals etc.): the sealed thread never needs one; decline.
      child.stdin.write(
        `${JSON.stringify({ id: message.id, error: { code: -32601, message: "unsupported" } })}\n`,
      );
    } else if (typeof message.method === "string") {
      const params = (message.params ?? {}) as Json;
      if (typeof params.threadId === "string") threads.get(params.threadId)?.(message.method, params);
    } else if (typeof message.id === "number") {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  const request = (method: string, params: unknown) =>
    new Promise<Json>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) =>
        m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as Json),
      );
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  await request("initialize", {
    clientInfo: { name: "bench_direct", title: "bench", version: "0" },
    capabilities: null,
  });
  child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);

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
      threads.set(threadId, (method, params) => {
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
    threads.delete(threadId);
    void request("thread/unsubscribe", { threadId }).catch(() => {});
    return { answer, threadStartedMs, injectedMs, turnStartedMs, firstDeltaMs, completedMs };
  };

  return {
    pid: child.pid,
    timedTurn,
    turn: async (threadParams, text) => (await timedTurn(threadParams, text)).answer,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.stdin.end();
      }),
  };
};
