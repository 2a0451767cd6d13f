import type { CodexBackendOptions } from "../codex-backend-options.js";
import type { Logger } from "../logger.js";
import { sealedAppServerArgs } from "../sealing/sealed-environment.js";
import type { SealedWorkspace } from "../sealing/sealed-workspace.js";
import {
  type AppServerProcess,
  startAppServer,
  type ThreadListener,
} from "../transport/app-server-process.js";
import type { FlowLimits } from "../transport/stdout-flow.js";
import { createLineFilter, OPTED_OUT_NOTIFICATIONS, unreadMember } from "../turn/kept-notifications.js";
import { createProcessPool, type ProcessPool } from "./process-pool.js";

export interface AppServerPool {
  readonly pool: ProcessPool;
  /** Native tool mode is on: asked for, and no app-server refused the experimental API. */
  nativeTools(): boolean;
  /** Lets `threadId`'s raw messages through until the returned function is called (native compaction). */
  readRawMessages(threadId: string): () => void;
}

/**
 * The backend's supervised app-servers. Native tools need the experimental API; an app-server that
 * refuses it (a future codex) turns native mode off for the whole backend, said once, and `auto`
 * falls back to prompt mode.
 */
export const createAppServerPool = (
  options: CodexBackendOptions,
  deps: {
    readonly command: string;
    readonly workspace: SealedWorkspace;
    readonly logger: Logger;
    readonly startTimeoutMs: number;
    readonly flow: FlowLimits;
    /** Told every `account/*` notification (the plan's rate limits). */
    readonly onAccountNotification: ThreadListener;
  },
): AppServerPool => {
  const { command, workspace, logger } = deps;
  let nativeTools = options.nativeTools ?? true;
  const lines = createLineFilter();
  const start = async (): Promise<AppServerProcess> => {
    // The app-server reads no catalog (threads name it), so it starts while `codex debug models`
    // writes the seal; the process is handed out only once the seal exists. Cold start to ready
    // was the two codex start-ups one after the other.
    const starting = startAppServer({
      command,
      args: [
        "app-server",
        ...sealedAppServerArgs(),
        "-c",
        `thread_unload_delay_secs=${options.threadUnloadDelaySecs ?? 5}`,
      ],
      env: await workspace.childEnv,
      logger,
      spawn: options.spawn,
      clientName: options.clientName ?? "codex_tool_gateway",
      clientVersion: "0.1.0",
      experimentalApi: nativeTools,
      startTimeoutMs: deps.startTimeoutMs,
      maxLineLength: options.maxLineLength,
      optOutNotifications: OPTED_OUT_NOTIFICATIONS,
      skipLine: lines.skipLine,
      elideMember: unreadMember,
      flow: deps.flow,
      onRpcResult: options.onRpcResult,
      onAccountNotification: deps.onAccountNotification,
      stdinGraceMs: options.shutdownGraceMs?.stdin,
      termGraceMs: options.shutdownGraceMs?.term,
    });
    starting.catch(() => undefined); // its failure is reported below, once the seal is settled
    try {
      await workspace.sealed; // never serve a turn before the seal exists
    } catch (e) {
      await starting.then((proc) => proc.close()).catch(() => undefined);
      throw e;
    }
    const proc = await starting;
    if (nativeTools && !proc.experimentalApi) {
      nativeTools = false;
      logger.warn(
        { command },
        "codex app-server refused the experimental API: native tool mode is off (auto uses prompt mode; native requests fail)",
      );
    }
    return proc;
  };
  const pool = createProcessPool({
    size: Math.max(1, options.poolSize ?? 1),
    logger,
    initialBackoffMs: options.restartBackoffMs?.initial ?? 250,
    maxBackoffMs: options.restartBackoffMs?.max ?? 5_000,
    start,
  });
  return { pool, nativeTools: () => nativeTools, readRawMessages: lines.readRawMessages };
};
