import { type ChildProcessWithoutNullStreams, spawn as nodeSpawn } from "node:child_process";
import { commandLine } from "../codex-binary.js";
import type { Logger } from "../logger.js";
import {
  createJsonRpcConnection,
  type JsonRpcConnection,
  type RpcResultObserver,
} from "./json-rpc-connection.js";
import { createLineDecoder } from "./line-decoder.js";
import { AppServerStartError, ConnectionClosedError, JsonRpcError } from "./rpc-errors.js";
import { answerServerRequest } from "./server-requests.js";
import { createStdoutFlow, DEFAULT_FLOW_LIMITS, type FlowLimits, type StdoutFlow } from "./stdout-flow.js";

export type Spawn = (
  command: string,
  args: ReadonlyArray<string>,
  options: { env: NodeJS.ProcessEnv; stdio: ["pipe", "pipe", "pipe"]; detached: boolean },
) => ChildProcessWithoutNullStreams;

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Notification params as routed to a thread's listener. */
/** `size`: the notification's length on the wire (a consumer bounds what it holds by it). */
export type ThreadListener = (method: string, params: Record<string, unknown>, size: number) => void;

/** Answers a server→client request of one thread (e.g. `item/tool/call`); throw to reply with an error. */
export type ThreadRequestHandler = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export interface AppServerProcess {
  readonly pid: number | undefined;
  readonly connection: JsonRpcConnection;
  /** Resolves once the child has exited (crash or close). */
  readonly exited: Promise<ExitInfo>;
  /** The app-server accepted `capabilities.experimentalApi` at initialize (dynamic tools, raw events). */
  readonly experimentalApi: boolean;
  isAlive(): boolean;
  /** Turns this process brought to an end, whatever their status (the pool's evidence that it worked). */
  finishedTurns(): number;
  /** Backpressure on its stdout: each turn's unread notifications, counted. */
  readonly flow: StdoutFlow;
  /** Call `listener` when the child exits; returns an unsubscribe function. */
  onExit(listener: (info: ExitInfo) => void): () => void;
  /** Route notifications carrying `threadId` to `listener` until the returned function is called. */
  subscribe(threadId: string, listener: ThreadListener, onRequest?: ThreadRequestHandler): () => void;
  /** Escalating shutdown: stdin EOF → SIGTERM → SIGKILL, each after a grace period. */
  close(): Promise<void>;
}

export interface AppServerOptions {
  readonly command: string;
  readonly args: ReadonlyArray<string>;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly spawn?: Spawn | undefined;
  readonly clientName: string;
  readonly clientVersion: string;
  /** Ask for the experimental API at initialize; a server that refuses it is initialized without. */
  readonly experimentalApi?: boolean | undefined;
  readonly startTimeoutMs: number;
  readonly maxLineLength?: number | undefined;
  /** Notification methods codex is asked not to send (`optOutNotificationMethods` at initialize). */
  readonly optOutNotifications?: ReadonlyArray<string> | undefined;
  /** stdout lines nobody reads, told from their first characters (skipped unparsed). */
  readonly skipLine?: ((head: string) => boolean) | undefined;
  /** The member of a stdout line nobody reads, cut out unparsed (see json-elide.ts). */
  readonly elideMember?: ((head: string) => string | undefined) | undefined;
  /** When reading codex's stdout pauses for the turns' readers (see stdout-flow.ts). */
  readonly flow?: FlowLimits | undefined;
  readonly stdinGraceMs?: number | undefined;
  readonly termGraceMs?: number | undefined;
  readonly onRpcResult?: RpcResultObserver | undefined;
  /** Notifications about the account, not a thread (`account/rateLimits/updated`). */
  readonly onAccountNotification?: ThreadListener | undefined;
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null;

/**
 * What codex complains about because it is sealed on purpose: its `PATH` is empty, so it never finds
 * bubblewrap (and runs no command that would need it). Not an operator's to fix: logged at debug.
 */
const SEALED_BY_DESIGN = /could not find bubblewrap on PATH/;

/** Lines of stderr kept for a start failure's reason (each cut to `STDERR_LINE_CHARS`). */
const STDERR_TAIL_LINES = 16;
const STDERR_LINE_CHARS = 1000;

/**
 * What codex said when it gave up: its `Error: …` line, else its last `ERROR` log line without the
 * timestamp, else its last line that is not part of a backtrace.
 */
export const codexErrorLine = (lines: ReadonlyArray<string>): string | undefined => {
  const last = (test: (line: string) => boolean) => [...lines].reverse().find(test);
  const error = last((l) => /^Error: /.test(l));
  if (error) return error.slice("Error: ".length).trim();
  const logged = last((l) => /\bERROR\b/.test(l));
  if (logged) return logged.replace(/^.*?\bERROR\b\s*(\S+:\s*)?/, "").trim();
  return last((l) => l.trim() !== "" && !/^\s*(\d+:|at |Stack backtrace:)/.test(l))?.trim();
};

/** Spawns one `codex app-server`, wires stdio to a JSON-RPC connection and completes the handshake. */
export const startAppServer = async (options: AppServerOptions): Promise<AppServerProcess> => {
  const { logger } = options;
  const [command, args] = commandLine(options.command, options.args);
  const spawn: Spawn = options.spawn ?? ((c, a, o) => nodeSpawn(c, [...a], o));
  // Its own process group: a Ctrl-C or a group-wide SIGTERM meant for the gateway must not kill
  // codex under turns the gateway is still draining. It still ends with the gateway: on stdin
  // EOF (the pipe closes when the gateway exits, however it exits) or through close().
  const child = spawn(command, args, {
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: process.platform !== "win32",
  });
  const log = logger;
  let alive = true;

  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, signal) => {
      alive = false;
      resolve({ code, signal });
    });
    child.once("error", (err) => {
      log.error({ err, command }, "app-server: spawn failed");
      alive = false;
      resolve({ code: null, signal: null });
    });
  });

  // stderr is diagnostics only: never parsed as protocol, always routed to the logger.
  const stderrLines = createLineDecoder({ maxLineLength: 64 * 1024 });
  // The last few lines, for the reason of a start that fails (until the handshake is done).
  let stderrTail: string[] | undefined = [];
  const stderrClosed = new Promise<void>((resolve) => child.stderr.once("close", () => resolve()));
  child.stderr.on("data", (chunk: Buffer) => {
    for (const raw of stderrLines.push(chunk)) {
      const line = raw.replace(ANSI, "");
      if (stderrTail) {
        stderrTail.push(line.slice(0, STDERR_LINE_CHARS));
        if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
      }
      if (/\b(ERROR|WARN)\b/.test(line) && !SEALED_BY_DESIGN.test(line))
        log.warn({ pid: child.pid, stderr: line }, "app-server stderr");
      else log.debug({ pid: child.pid, stderr: line }, "app-server stderr");
    }
  });

  const flow = createStdoutFlow(child.stdout, options.flow ?? DEFAULT_FLOW_LIMITS);
  const threads = new Map<string, ThreadListener>();
  const threadRequests = new Map<string, ThreadRequestHandler>();
  let finishedTurns = 0;
  const exitListeners = new Set<(info: ExitInfo) => void>();
  void exited.then((info) => {
    for (const listener of [...exitListeners]) listener(info);
    exitListeners.clear();
  });
  const connection = createJsonRpcConnection({
    input: child.stdout,
    output: child.stdin,
    logger: log,
    maxLineLength: options.maxLineLength,
    skipLine: options.skipLine,
    elideMember: options.elideMember,
    onResult: options.onRpcResult,
    onNotification: (method, params, size) => {
      if (method === "turn/completed") finishedTurns++;
      const threadId = isObject(params) ? params.threadId : undefined;
      const listener = typeof threadId === "string" ? threads.get(threadId) : undefined;
      if (listener && isObject(params)) listener(method, params, size);
      else if (method.startsWith("account/") && isObject(params))
        options.onAccountNotification?.(method, params, size);
      else log.debug({ method }, "app-server notification");
    },
    onServerRequest: (method, params) => {
      const threadId = isObject(params) ? params.threadId : undefined;
      const handler = typeof threadId === "string" ? threadRequests.get(threadId) : undefined;
      if (handler && isObject(params)) return handler(method, params);
      log.warn({ method }, "app-server asked the client for something; declining");
      return answerServerRequest(method);
    },
  });
  void exited.then((info) =>
    connection.close(new ConnectionClosedError(`app-server exited (${describe(info)})`)),
  );

  const close = async () => {
    const grace = (ms: number) =>
      Promise.race([
        exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
      ]);
    if (!alive) return;
    connection.close(new ConnectionClosedError("app-server is shutting down"));
    child.stdin.end();
    if (await grace(options.stdinGraceMs ?? 2_000)) return;
    child.kill("SIGTERM");
    if (await grace(options.termGraceMs ?? 2_000)) return;
    log.warn({ pid: child.pid }, "app-server ignored SIGTERM; sending SIGKILL");
    child.kill("SIGKILL");
    await exited;
  };

  const clientInfo = { name: options.clientName, title: options.clientName, version: options.clientVersion };
  const optOutNotificationMethods = options.optOutNotifications ?? [];
  const initialize = (experimentalApi: boolean) =>
    connection.request(
      "initialize",
      { clientInfo, capabilities: { experimentalApi, optOutNotificationMethods } },
      { timeoutMs: options.startTimeoutMs },
    );
  let experimentalApi = options.experimentalApi === true;
  try {
    if (experimentalApi) {
      // A codex that refuses the experimental API is still served, in prompt mode only.
      experimentalApi = await initialize(true).then(
        () => true,
        (e: unknown) => {
          if (!(e instanceof JsonRpcError)) throw e;
          log.debug({ err: e }, "app-server refused the experimental API");
          return false;
        },
      );
    }
    if (!experimentalApi) await initialize(false);
    await connection.notify("initialized");
  } catch (e) {
    if (e instanceof ConnectionClosedError) {
      // It exited (or closed its pipes) before it was ready: say why, in its own words.
      const exit = await Promise.race([
        Promise.all([exited, stderrClosed]).then(([info]) => info),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000).unref()),
      ]);
      await close();
      throw new AppServerStartError(
        exit ? describe(exit) : e.message,
        codexErrorLine([...(stderrTail ?? []), ...stderrLines.flush()]),
      );
    }
    await close();
    throw e;
  }
  stderrTail = undefined;

  return {
    pid: child.pid,
    connection,
    exited,
    experimentalApi,
    isAlive: () => alive,
    finishedTurns: () => finishedTurns,
    flow,
    onExit(listener) {
      if (!alive) {
        void exited.then(listener);
        return () => {};
      }
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
    subscribe(threadId, listener, onRequest) {
      threads.set(threadId, listener);
      if (onRequest) threadRequests.set(threadId, onRequest);
      return () => {
        if (threads.get(threadId) === listener) threads.delete(threadId);
        if (threadRequests.get(threadId) === onRequest) threadRequests.delete(threadId);
      };
    },
    close,
  };
};

export const describe = (info: ExitInfo): string =>
  info.signal ? `signal ${info.signal}` : `code ${info.code === null ? "unknown" : info.code}`;
