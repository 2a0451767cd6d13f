import { GatewayError } from "../errors/gateway-error.js";
import type { NativeToolCall } from "../ports/text-backend.js";
import type { ContractHarness, ContractTurn } from "./backend-contract.js";
import { createScriptedBackend, type ScriptedBackend, type ScriptedTurn } from "./scripted-backend.js";

const toScripted = (turn: ContractTurn): ScriptedTurn => ({
  chunks: turn.chunks ?? [turn.text],
  reasoning: turn.reasoning === undefined ? undefined : [turn.reasoning],
  toolCalls: turn.toolCalls,
  usage: turn.usage && { ...turn.usage, totalTokens: turn.usage.inputTokens + turn.usage.outputTokens },
  error: turn.failWith ? new GatewayError("backend_error", "scripted provider failure") : undefined,
  errorAfterChunks: turn.failWith ? 0 : undefined,
  hangAfterChunks: turn.hang ? 1 : undefined,
});

/**
 * A contract harness over the scripted backend (native tools on), for running the backend
 * contract over layers built on top of it: `wrap` builds what is tested from the scripted backend.
 */
export const scriptedContractHarness = (
  wrap: (scripted: ScriptedBackend) => ContractHarness["backend"] = (scripted) => scripted,
): ContractHarness => {
  const queue: ContractTurn[] = [];
  const scripted = createScriptedBackend(
    (request) => {
      const input = request.input.map((p) => (p.type === "text" ? p.text : "")).join("");
      const at = queue.findIndex((t) => t.match === undefined || input.includes(t.match));
      const [turn] = queue.splice(Math.max(at, 0), 1);
      if (turn === undefined) throw new Error("no scripted turn left");
      return toScripted(turn);
    },
    { nativeTools: true },
  );
  return {
    backend: wrap(scripted),
    script: (turn) => queue.push(turn),
    lastModelView: () => {
      const last = scripted.requests.at(-1);
      const history = last?.history ?? [];
      return {
        tools: last?.tools?.tools.map((t) => t.name) ?? [],
        toolCalls: history.flatMap((m): NativeToolCall[] => ("toolCalls" in m ? [...m.toolCalls] : [])),
        toolOutputs: history.flatMap((m) =>
          m.role === "tool" ? [{ callId: m.callId, output: m.output }] : [],
        ),
      };
    },
    close: async () => {},
  };
};
