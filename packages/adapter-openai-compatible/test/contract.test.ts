import {
  type ContractTurn,
  describeTextBackendContract,
  type ModelView,
  o200kEncoding,
} from "@proxy/core/testing";
import { afterAll } from "vitest";
import { createOpenAICompatibleBackend } from "../src/index.js";
import {
  type RecordedUpstreamRequest,
  startScriptedUpstream,
  type UpstreamTurn,
} from "../src/testing/index.js";

/** The text of the request's last user message (the turn's input). */
const lastUserText = (r: RecordedUpstreamRequest): string => {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.filter((m) => m.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
};

/** A ContractTurn as the scripted OpenAI-compatible server plays it (native calls' arguments in two pieces). */
const toUpstreamTurn = (turn: ContractTurn): UpstreamTurn => {
  if (turn.failWith === "server_error") return { status: 500 };
  const chunks = turn.chunks ?? [turn.text];
  return {
    chunks: turn.hang ? chunks.slice(0, 1) : chunks,
    ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(turn.hang ? { hang: true } : {}),
    ...(turn.toolCalls === undefined
      ? {}
      : {
          toolCalls: turn.toolCalls.map((c) => ({
            id: c.callId,
            name: c.name,
            argumentChunks: [c.arguments.slice(0, 5), c.arguments.slice(5)],
          })),
        }),
  };
};

/** What the upstream model was shown in the latest request, in the contract's terms. */
const modelView = (r: RecordedUpstreamRequest): ModelView => {
  type Message = {
    role: string;
    content?: unknown;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  };
  const messages = r.body.messages as Message[];
  return {
    tools: ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name),
    toolCalls: messages.flatMap((m) =>
      (m.tool_calls ?? []).map((c) => ({
        callId: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      })),
    ),
    toolOutputs: messages.flatMap((m) =>
      m.role === "tool" ? [{ callId: m.tool_call_id ?? "", output: String(m.content) }] : [],
    ),
  };
};

const turns: ContractTurn[] = [];
const upstream = startScriptedUpstream((r) => {
  const text = lastUserText(r);
  const i = turns.findIndex((t) => (t.match === undefined ? true : text.includes(t.match)));
  const [turn] = i === -1 ? [] : turns.splice(i, 1);
  return turn && toUpstreamTurn(turn);
});
afterAll(async () => (await upstream).close());

for (const nativeTools of [false, true]) {
  describeTextBackendContract(
    `openai-compatible, ${nativeTools ? "native" : "prompt"} tool mode (scripted upstream over HTTP)`,
    async () => {
      const server = await upstream;
      const backend = createOpenAICompatibleBackend({
        tokens: o200kEncoding,
        baseUrl: server.url,
        route: "contract",
        nativeTools,
      });
      return {
        backend,
        script: (turn) => void turns.push(turn),
        lastModelView: () => modelView(server.requests.at(-1)!),
        close: async () => {
          turns.length = 0;
          await backend.close();
        },
      };
    },
    { nativeTools },
  );
}
