import { type ChildProcess, fork } from "node:child_process";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";

/** What the load-generating parent asks a server child over IPC (never over HTTP, so it costs the server nothing measurable). */
export type ControlMessage =
  | { readonly type: "stats-start" }
  | { readonly type: "stats-stop" }
  | { readonly type: "memory"; readonly gc: boolean }
  | { readonly type: "serve"; readonly payload: BaselinePayload }
  /** V8's CPU profiler (the one behind --cpu-prof), for the measured window only. */
  | { readonly type: "profile-start" }
  | { readonly type: "profile-stop" }
  | { readonly type: "shutdown" };

/** The response a baseline replays: the gateway's own bytes, event by event. */
export interface BaselinePayload {
  readonly headers: Readonly<Record<string, string>>;
  /** SSE events (each with its blank line) for a stream; one element for a JSON body. */
  readonly events: ReadonlyArray<string>;
  readonly stream: boolean;
}

export interface StatsReply {
  /** Server CPU (user + system) since `stats-start`, in microseconds. */
  readonly cpuUs: number;
  /** HTTP requests the server received since `stats-start`. */
  readonly requests: number;
}

export interface MemoryReply {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Turns the gateway's backend is streaming right now (gateway children only). */
  readonly activeTurns?: number;
}

export type ServerMode = "baseline" | "gateway" | "gateway-codex" | "gateway-before";

export interface ServerChild {
  readonly mode: ServerMode;
  readonly url: string;
  readonly pid: number;
  request<T>(message: ControlMessage): Promise<T>;
  /** Asks the child to exit cleanly (so a `--cpu-prof` profile is written) and waits for it. */
  close(): Promise<void>;
}

const SERVER_MAIN = fileURLToPath(new URL(`./server-main${extname(import.meta.url)}`, import.meta.url));

/**
 * Starts a server in its own Node process (same loader flags as this one: plain Node over the
 * builds under `pnpm bench`), and resolves once it listens on a loopback port.
 */
export const startServerChild = (
  mode: ServerMode,
  options: { readonly execArgv?: ReadonlyArray<string>; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<ServerChild> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = fork(SERVER_MAIN, [mode], {
      execArgv: [...process.execArgv, "--expose-gc", ...(options.execArgv ?? [])],
      env: options.env ?? process.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let nextId = 1;
    const pending = new Map<number, (reply: unknown) => void>();
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    child.once("exit", (code) => reject(new Error(`${mode} server exited early (code ${code})`)));
    child.on("message", (raw) => {
      const message = raw as { type?: string; id?: number; port?: number; reply?: unknown };
      if (message.type === "ready" && message.port !== undefined) {
        resolve({
          mode,
          url: `http://127.0.0.1:${message.port}`,
          pid: child.pid as number,
          request: <T>(control: ControlMessage) =>
            new Promise<T>((done) => {
              const id = nextId++;
              pending.set(id, (reply) => done(reply as T));
              child.send({ id, ...control });
            }),
          close: async () => {
            if (child.exitCode === null && child.connected) child.send({ id: 0, type: "shutdown" });
            const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
            await exited;
            clearTimeout(timer);
          },
        });
      } else if (message.id !== undefined) {
        pending.get(message.id)?.(message.reply);
        pending.delete(message.id);
      }
    });
  });
