import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

type Json = Record<string, unknown>;

export interface DirectDriver {
  readonly pid: number | undefined;
  /** One turn the bare-minimum way: thread/start → turn/start → wait turn/completed → unsubscribe. */
  turn(threadParams: Json, text: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The baseline the adapter is measured against: a bare JSON-RPC client with no supervision,
 * admission, mapping or error handling — the least work anyone could do per turn.
 */
export const startDirectDriver = async (command: string, env: NodeJS.ProcessEnv): Promise<DirectDriver> => {
  const child = spawn(command, ["app-server", "-c", "thread_unload_delay_secs=5"], {
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  let nextId = 1;
  const pending = new Map<number, (message: Json) => void>();
  const threads = new Map<string, (method: string, params: Json) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as Json;
    if (typeof message.method === "string") {
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

  return {
    pid: child.pid,
    async turn(threadParams, text) {
      const started = await request("thread/start", threadParams);
      const threadId = (started.thread as { id: string }).id;
      let answer = "";
      const done = new Promise<void>((resolve) =>
        threads.set(threadId, (method, params) => {
          if (method === "item/agentMessage/delta") answer += String(params.delta);
          if (method === "turn/completed") resolve();
        }),
      );
      await request("turn/start", { threadId, input: [{ type: "text", text }] });
      await done;
      threads.delete(threadId);
      await request("thread/unsubscribe", { threadId });
      return answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.stdin.end();
      }),
  };
};
