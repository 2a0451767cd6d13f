import { type ContractTurn, describeTextBackendContract } from "@proxy/core/testing";
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

/** A ContractTurn as the scripted OpenAI-compatible server plays it. */
const toUpstreamTurn = (turn: ContractTurn): UpstreamTurn => {
  if (turn.failWith === "server_error") return { status: 500 };
  const chunks = turn.chunks ?? [turn.text];
  return {
    chunks: turn.hang ? chunks.slice(0, 1) : chunks,
    ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(turn.hang ? { hang: true } : {}),
  };
};

const upstream = startScriptedUpstream((r) => {
  const text = lastUserText(r);
  const i = turns.findIndex((t) => (t.match === undefined ? true : text.includes(t.match)));
  const [turn] = i === -1 ? [] : turns.splice(i, 1);
  return turn && toUpstreamTurn(turn);
});
const turns: ContractTurn[] = [];
afterAll(async () => (await upstream).close());

describeTextBackendContract("openai-compatible (scripted upstream over HTTP)", async () => {
  const server = await upstream;
  const backend = createOpenAICompatibleBackend({ baseUrl: server.url, route: "contract" });
  return {
    backend,
    script: (turn) => void turns.push(turn),
    close: async () => {
      turns.length = 0;
      await backend.close();
    },
  };
});
