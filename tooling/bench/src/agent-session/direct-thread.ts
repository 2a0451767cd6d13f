import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

type Json = Record<string, unknown>;

/**
 * codex driven directly with ONE thread for a whole session (the baseline the gateway's continuity
 * is measured against): `thread/start` once, then `turn/start` with each turn's new text. Counts
 * the bytes it writes to codex's stdin.
 */
export const startDirectThread = async (
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  threadParams: Json,
) => {
  const [file, argv] = /\.[cm]?js$/.test(command)
    ? [process.execPath, [command, ...args]]
    : [command, [...args]];
  const child = spawn(file, argv, { env, stdio: ["pipe", "pipe", "ignore"] });
  let stdinBytes = 0;
  const write = (message: Json) => {
    const line = `${JSON.stringify(message)}\n`;
    stdinBytes += Buffer.byteLength(line);
    child.stdin.write(line);
  };
  let nextId = 1;
  const pending = new Map<number, (m: Json) => void>();
  let onNote: ((method: string, params: Json) => void) | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    let m: Json;
    try {
      m = JSON.parse(line) as Json;
    } catch {
      return;
    }
    if (typeof m.method === "string" && m.id !== undefined)
      write({ id: m.id, error: { code: -32601, message: "unsupported" } });
    else if (typeof m.method === "string") onNote?.(m.method, (m.params ?? {}) as Json);
    else if (typeof m.id === "number") {
      pending.get(m.id)?.(m);
      pending.delete(m.id);
    }
  });
  const request = (method: string, params: unknown) =>
    new Promise<Json>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) =>
        m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as Json),
      );
      write({ id, method, params });
    });
  await request("initialize", {
    clientInfo: { name: "bench_direct", title: "bench", version: "0" },
    capabilities: null,
  });
  write({ method: "initialized" });
  const started = await request("thread/start", threadParams);
  const threadId = (started.thread as { id: string }).id;

  return {
    threadId,
    stdinBytes: () => stdinBytes,
    /** One turn on the session's thread: time to the first text delta and to the end (ms). */
    async turn(text: string) {
      const t0 = performance.now();
      let firstDeltaMs = Number.NaN;
      const done = new Promise<void>((resolve) => {
        onNote = (method, params) => {
          if (params.threadId !== threadId) return;
          if (method === "item/agentMessage/delta" && Number.isNaN(firstDeltaMs))
            firstDeltaMs = performance.now() - t0;
          if (method === "turn/completed") resolve();
        };
      });
      await request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
      await done;
      return { firstDeltaMs, totalMs: performance.now() - t0 };
    },
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
