import type { BackendEvent } from "@proxy/core/gateway";
import type { ToolCallDelta } from "./chat-chunk.js";

interface OpenCall {
  callId: string | undefined;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Streamed Chat Completions `tool_calls` deltas (native mode) → the port's `tool-call-start`,
 * `tool-call-delta` and, once the upstream is done, one complete `tool-call-end` per call. Calls are
 * keyed by their `index` (servers send `id` and `name` once, then argument pieces); a call whose
 * server sent no id gets `fallbackId(index)`. Pure: `push()` per chunk, `flush()` at the end.
 */
export const createToolCallAccumulator = (fallbackId: (index: number) => string) => {
  const calls = new Map<number, OpenCall>();

  return {
    push(deltas: ReadonlyArray<ToolCallDelta>): BackendEvent[] {
      const out: BackendEvent[] = [];
      for (const [position, d] of deltas.entries()) {
        const index = d.index ?? position;
        let call = calls.get(index);
        if (!call) {
          call = { callId: undefined, name: "", args: "", started: false };
          calls.set(index, call);
        }
        if (d.id) call.callId ??= d.id;
        // Some servers repeat the name in every chunk: the first one counts.
        if (d.function?.name && call.name === "") call.name = d.function.name;
        const piece = d.function?.arguments ?? "";
        // A call starts once its name is known; argument pieces before that are kept, then sent.
        if (!call.started && call.name !== "") {
          call.callId ??= fallbackId(index);
          call.started = true;
          out.push({ type: "tool-call-start", callId: call.callId, name: call.name });
          if (call.args !== "") out.push({ type: "tool-call-delta", callId: call.callId, delta: call.args });
        }
        call.args += piece;
        if (call.started && piece !== "" && call.callId)
          out.push({ type: "tool-call-delta", callId: call.callId, delta: piece });
      }
      return out;
    },
    /** The complete calls, in index order (a call that never got a name is dropped). */
    flush(): BackendEvent[] {
      const out: BackendEvent[] = [];
      for (const index of [...calls.keys()].sort((a, b) => a - b)) {
        const call = calls.get(index);
        if (!call?.started || !call.callId) continue;
        out.push({
          type: "tool-call-end",
          callId: call.callId,
          name: call.name,
          arguments: call.args === "" ? "{}" : call.args,
        });
      }
      calls.clear();
      return out;
    },
  };
};
