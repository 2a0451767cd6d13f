import { GatewayError } from "../../src/errors/gateway-error.js";
import type { NativeToolCall } from "../../src/ports/text-backend.js";
import {
  type ContractTurn,
  createScriptedBackend,
  describeTextBackendContract,
  type ScriptedTurn,
} from "../../src/testing/index.js";

const toScripted = (turn: ContractTurn): ScriptedTurn => ({
  chunks: turn.chunks ?? [turn.text],
  reasoning: turn.reasoning === undefined ? undefined : [turn.reasoning],
  toolCalls: turn.toolCalls,
  usage: turn.usage && { ...turn.usage, totalTokens: turn.usage.inputTokens + turn.usage.outputTokens },
  error: turn.failWith ? new GatewayError("backend_error", "scripted provider failure") : undefined,
  errorAfterChunks: turn.failWith ? 0 : undefined,
  hangAfterChunks: turn.hang ? 1 : undefined,
});

describeTextBackendContract(
  "scripted backend",
  async () => {
    const queue: ContractTurn[] = [];
    const backend = createScriptedBackend(
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
      backend,
      script: (turn) => queue.push(turn),
      lastModelView: () => {
        const last = backend.requests.at(-1);
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
  },
  { nativeTools: true },
);
