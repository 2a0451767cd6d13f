import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export type Json = Record<string, unknown>;

/** A bare newline-delimited JSON-RPC client on its own `codex app-server` process. */
export interface DirectRpc {
  readonly pid: number | undefined;
  request(method: string, params: unknown): Promise<Json>;
  notify(method: string): void;
  /** Routes a thread's notifications to `listener` (one listener per thread; `undefined` removes it). */
  onThread(threadId: string, listener: ((method: string, params: Json) => void) | undefined): void;
  /** Bytes written to the app-server's stdin so far. */
  stdinBytes(): number;
  close(): Promise<void>;
}

/**
 * Answers a server→client request (e.g. a dynamic tool's `item/tool/call`): a promise of the
 * result (a rejection is sent as a JSON-RPC error), or `undefined` to decline it at once.
 */
export type ServerRequestHandler = (method: string, params: Json) => Promise<unknown> | undefined;

/**
 * Spawns `command` (a native binary, or a `.js` entry run with this Node) with `args` and speaks
 * JSON-RPC to it with no supervision, admission or mapping: the least work a codex client can do.
 * Server→client requests (approvals etc.) are declined unless `onServerRequest` takes them: a
 * sealed thread never needs one.
 */
export const openDirectRpc = (
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  onServerRequest?: ServerRequestHandler,
): DirectRpc => {
  const [file, argv] = /\.[cm]?js$/.test(command)
    ? [process.execPath, [command, ...args]]
    : [command, [...args]];
  const child = spawn(file, argv, { env, stdio: ["pipe", "pipe", "ignore"] });
  let written = 0;
  const write = (message: Json) => {
    const line = `${JSON.stringify(message)}\n`;
    written += Buffer.byteLength(line);
    child.stdin.write(line);
  };
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
      const { id } = message;
      const answer = onServerRequest?.(message.method, (message.params ?? {}) as Json);
      if (answer === undefined) write({ id, error: { code: -32601, message: "unsupported" } });
      else
        answer.then(
          (result) => write({ id, result }),
          (err: unknown) => write({ id, error: { code: -32000, message: String(err) } }),
        );
    } else if (typeof message.method === "string") {
      const params = (message.params ?? {}) as Json;
      if (typeof params.threadId === "string") threads.get(params.threadId)?.(message.method, params);
    } else if (typeof message.id === "number") {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  return {
    pid: child.pid,
    request: (method, params) =>
      new Promise<Json>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, (m) =>
          m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as Json),
        );
        write({ id, method, params });
      }),
    notify: (method) => write({ method }),
    onThread: (threadId, listener) => {
      if (listener === undefined) threads.delete(threadId);
      else threads.set(threadId, listener);
    },
    stdinBytes: () => written,
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

/** `initialize` + `initialized`, as every client must before its first thread. */
export const initializeDirectRpc = async (rpc: DirectRpc, clientName: string): Promise<void> => {
  await rpc.request("initialize", {
    clientInfo: { name: clientName, title: "bench", version: "0" },
    capabilities: null,
  });
  rpc.notify("initialized");
};
