import { performance } from "node:perf_hooks";
import { initializeDirectRpc, openDirectRpc } from "@proxy/adapter-codex-appserver/testing";

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
  const rpc = openDirectRpc(command, args, env);
  await initializeDirectRpc(rpc, "bench_direct");
  const started = await rpc.request("thread/start", threadParams);
  const threadId = (started.thread as { id: string }).id;

  return {
    threadId,
    stdinBytes: rpc.stdinBytes,
    /** One turn on the session's thread: time to the first text delta and to the end (ms). */
    async turn(text: string) {
      const t0 = performance.now();
      let firstDeltaMs = Number.NaN;
      const done = new Promise<void>((resolve) => {
        rpc.onThread(threadId, (method) => {
          if (method === "item/agentMessage/delta" && Number.isNaN(firstDeltaMs))
            firstDeltaMs = performance.now() - t0;
          if (method === "turn/completed") resolve();
        });
      });
      await rpc.request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
      await done;
      return { firstDeltaMs, totalMs: performance.now() - t0 };
    },
    close: rpc.close,
  };
};
