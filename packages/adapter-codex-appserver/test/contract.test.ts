import { type ContractTurn, describeTextBackendContract, type ModelView } from "@proxy/core/testing";
import { afterAll } from "vitest";
import type { ScriptedResponse } from "../src/testing/index.js";
import { lastUserText, type RealHarness, startRealHarness } from "./helpers.js";

/** A ContractTurn as the scripted Responses provider behind codex plays it. */
const toScriptedResponse = (turn: ContractTurn): ScriptedResponse => {
  if (turn.failWith === "server_error") return { fail: { status: 500 } };
  const chunks = turn.chunks ?? [turn.text];
  const items = turn.toolCalls?.map((c, i) => ({
    type: "function_call",
    id: `fc_contract_${i}`,
    call_id: c.callId,
    name: c.name,
    arguments: c.arguments,
  }));
  // Text first, then the calls, as a model writes them (the provider plays items before text).
  if (items) return { ...(turn.text ? { text: turn.text, chunks } : {}), items, itemsLast: true };
  return {
    ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
    ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    ...(turn.hang ? { chunks: chunks.slice(0, 1), hang: true } : { text: turn.text, chunks }),
  };
};

// One real app-server for the whole suite (each codex start costs ~0.3 s of CPU); every
// harness gets a fresh turn queue, and the shared backend is closed once at the end.
let shared: Promise<RealHarness> | undefined;
afterAll(async () => {
  await (await shared)?.close();
});

type Item = { type?: string; name?: string; call_id?: string; arguments?: string; output?: unknown };

/** What the model saw in the provider's latest request (native items as codex sent them upstream). */
const modelView = (body: Readonly<Record<string, unknown>>): ModelView => {
  const input = (body.input ?? []) as Item[];
  return {
    tools: ((body.tools ?? []) as Item[]).map((t) => String(t.name)),
    toolCalls: input
      .filter((i) => i.type === "function_call")
      .map((i) => ({ callId: String(i.call_id), name: String(i.name), arguments: String(i.arguments) })),
    toolOutputs: input
      .filter((i) => i.type === "function_call_output")
      .map((i) => ({ callId: String(i.call_id), output: String(i.output) })),
  };
};

describeTextBackendContract(
  "codex app-server (real binary)",
  async () => {
    shared ??= startRealHarness();
    const h = await shared;
    const turns: ContractTurn[] = [];
    h.provider.script((r) => {
      const text = lastUserText(r.body);
      const i = turns.findIndex((t) => (t.match === undefined ? true : text.includes(t.match)));
      const [turn] = i === -1 ? [] : turns.splice(i, 1);
      return turn && toScriptedResponse(turn);
    });
    return {
      backend: h.backend,
      script: (turn) => {
        turns.push(turn);
      },
      lastModelView: () => modelView(h.provider.requests.at(-1)?.body ?? {}),
      close: async () => {
        turns.length = 0;
      },
    };
  },
  { nativeTools: true },
);
