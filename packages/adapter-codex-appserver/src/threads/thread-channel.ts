import type { AppServerProcess, ThreadListener } from "../transport/app-server-process.js";
import { JsonRpcError } from "../transport/rpc-errors.js";
import { answerServerRequest } from "../transport/server-requests.js";

/**
 * One codex thread's notifications and tool requests, for as long as the gateway keeps the thread
 * (one request, or a whole conversation when it is continued). The turn being served attaches its
 * listener; between requests nothing is attached. codex's `item/tool/call` requests are held open
 * (codex waits for the client's result) until the next request answers them with the client's tool
 * outputs, or the thread is let go and they are refused.
 */
export interface ThreadChannel {
  readonly threadId: string;
  /** Routes this thread's notifications (and tool requests, as notifications) to `listener`. */
  attach(listener: ThreadListener): void;
  detach(): void;
  /** Call ids codex asked for and still waits on. */
  pendingCalls(): ReadonlyArray<string>;
  /** Answers a held `item/tool/call` with the client's output; false if codex is not waiting for it. */
  answer(callId: string, output: string): boolean;
  /** Refuses every held request: codex ignores answers to a call whose turn it ended. */
  refuseHeld(): void;
  /** Refuses every held request and stops routing. */
  close(): void;
}

export const openThreadChannel = (
  proc: AppServerProcess,
  threadId: string,
  options: { readonly holdToolCalls: boolean; readonly pendingGauge: { count: number } },
): ThreadChannel => {
  let listener: ThreadListener | undefined;
  const held = new Map<string, { resolve(result: unknown): void; reject(error: Error): void }>();
  const settle = (callId: string) => {
    const entry = held.get(callId);
    if (entry !== undefined) {
      held.delete(callId);
      options.pendingGauge.count--;
    }
    return entry;
  };
  const refuseHeld = () => {
    const refusal = new JsonRpcError(-32000, "the client returns tool results in its next request");
    for (const callId of [...held.keys()]) settle(callId)?.reject(refusal);
  };
  const onRequest = (method: string, params: Record<string, unknown>): Promise<unknown> => {
    if (method !== "item/tool/call" || !options.holdToolCalls)
      return Promise.resolve(answerServerRequest(method));
    const callId = typeof params.callId === "string" ? params.callId : "";
    listener?.(method, params, 0); // size 0: held requests are not counted against the turn's buffer
    options.pendingGauge.count++;
    return new Promise((resolve, reject) => held.set(callId, { resolve, reject }));
  };
  const unsubscribe = proc.subscribe(
    threadId,
    (method, params, size) => listener?.(method, params, size),
    onRequest,
  );
  return {
    threadId,
    attach(next) {
      listener = next;
    },
    detach() {
      listener = undefined;
    },
    pendingCalls: () => [...held.keys()],
    answer(callId, output) {
      const entry = settle(callId);
      entry?.resolve({ contentItems: [{ type: "inputText", text: output }], success: true });
      return entry !== undefined;
    },
    refuseHeld,
    close() {
      listener = undefined;
      unsubscribe();
      refuseHeld();
    },
  };
};
