import type { Logger } from "./logger.js";
import type { Spawn } from "./transport/app-server-process.js";

export interface CodexBackendOptions {
  /** The codex executable (or a `.js` entry run with this Node). Default: `CODEX_BIN`, else the pinned `@openai/codex`. */
  readonly codexBin?: string | undefined;
  /** Where the child's environment is taken from (default `process.env`); only allow-listed names pass. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Variable names passed to codex besides the built-in allow-list (e.g. a custom provider's `env_key`). */
  readonly passEnv?: ReadonlyArray<string> | undefined;
  readonly logger?: Logger | undefined;
  /** Long-lived app-server processes (default 1). */
  readonly poolSize?: number | undefined;
  /** Turns running at once across the pool (default 16). */
  readonly maxInFlight?: number | undefined;
  /** Turns waiting for a slot before requests are refused as `overloaded` (default 64). */
  readonly maxQueue?: number | undefined;
  /** Per JSON-RPC request to the app-server (default 30 s). */
  readonly requestTimeoutMs?: number | undefined;
  /** Handshake limit, and how long a request waits for a (re)starting app-server (default 30 s). */
  readonly startTimeoutMs?: number | undefined;
  /** Whole-turn limit in ms; 0 (default) leaves it to codex's own stream idle timeout. */
  readonly turnTimeoutMs?: number | undefined;
  /**
   * Bytes of codex's notifications one turn may hold for a client that reads slower than codex
   * writes (a paused reader holds the answer's text, not one notification per delta); past it,
   * reading codex's stdout pauses until the turn is down to half (default 2 MiB). Nothing fails
   * for its size.
   */
  readonly maxPendingNotificationBytes?: number | undefined;
  /** The same for all turns of one app-server together (default 16 MiB); resumes at three quarters. */
  readonly maxPendingNotificationBytesPerProcess?: number | undefined;
  /**
   * While codex's stdout is paused, a turn holding notifications whose reader took nothing for this
   * long is stopped (`timeout`): every turn of that app-server is waiting for it (default 30 s).
   */
  readonly stalledReaderMs?: number | undefined;
  /** `thread_unload_delay_secs` for the app-server: how soon finished threads are freed (default 5). */
  readonly threadUnloadDelaySecs?: number | undefined;
  /**
   * Threads started ahead of time per thread config (model, instructions, tools) and app-server,
   * for the configs turns used last, so a turn skips its `thread/start` (default 1; 0 = off).
   */
  readonly warmThreads?: number | undefined;
  /** Thread configs kept warm per app-server (default 8); the least recently used is dropped first. */
  readonly warmThreadConfigs?: number | undefined;
  /** A config no turn used for this long has its warm threads freed (default 120 s). */
  readonly warmThreadIdleMs?: number | undefined;
  /**
   * Conversation continuity: keep a request's codex thread alive and run the conversation's next
   * request on it with only its new items (one `prompt_cache_key` per conversation); default true.
   * False = a fresh thread per request.
   */
  readonly continuity?: boolean | undefined;
  /**
   * Edits keep the thread: codex threads are durable instead of ephemeral, so a request that edits
   * or regenerates one of a live thread's latest turns reverts the thread to before that turn and
   * goes on with the same `prompt_cache_key`. Durable threads are written under
   * `CODEX_HOME/sessions` while the gateway keeps them (each is deleted when let go); default false.
   */
  readonly durableThreads?: boolean | undefined;
  /** Live threads kept per app-server (default 32); the least recently used is let go first. */
  readonly liveThreads?: number | undefined;
  /** A live thread no request continued for this long is let go (default 300 s). */
  readonly liveThreadIdleMs?: number | undefined;
  /** Conversation chars kept alive per app-server over its live threads (default 16,000,000). */
  readonly liveThreadMaxChars?: number | undefined;
  /** Pass non-`data:` image URLs through to the model provider instead of rejecting them. */
  readonly allowRemoteImages?: boolean | undefined;
  /** Restart delay: doubles from `initial` (250 ms) per failure up to `max` (5 s); a process that served a turn resets it. */
  readonly restartBackoffMs?: { readonly initial: number; readonly max: number } | undefined;
  readonly shutdownGraceMs?: { readonly stdin: number; readonly term: number } | undefined;
  /** Max chars of one stdout line; longer lines are dropped and logged (default 16 MiB; 16× that for final turn/item notifications). */
  readonly maxLineLength?: number | undefined;
  /** Told how every JSON-RPC request to an app-server ended: method and `ok` / error code / `timeout`. */
  readonly onRpcResult?: ((method: string, outcome: string) => void) | undefined;
  /** Offer native tool mode (dynamic tools via codex's experimental API); default true. */
  readonly nativeTools?: boolean | undefined;
  /** `clientInfo.name`: becomes codex's `originator` header upstream (default "codex_tool_gateway"). */
  readonly clientName?: string | undefined;
  readonly spawn?: Spawn | undefined;
  /** Wall clock for plan reset times (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}
