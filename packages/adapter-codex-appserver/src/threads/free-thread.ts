import type { JsonRpcConnection } from "../transport/json-rpc-connection.js";

/**
 * Lets codex free a thread the gateway is done with. A durable thread (written under
 * `CODEX_HOME/sessions`) is deleted, its rollout files with it, so nothing of a conversation stays
 * on disk once the gateway lets it go; should codex refuse that, it is at least unsubscribed.
 */
export const freeThread = async (
  rpc: Pick<JsonRpcConnection, "request">,
  threadId: string,
  durable: boolean,
  timeoutMs: number,
): Promise<void> => {
  if (durable) {
    const deleted = await rpc.request("thread/delete", { threadId }, { timeoutMs }).then(
      () => true,
      () => false,
    );
    if (deleted) return;
  }
  await rpc.request("thread/unsubscribe", { threadId }, { timeoutMs });
};
