import { type ContractTurn, describeTextBackendContract } from "@proxy/core/testing";
import { afterAll } from "vitest";
import type { ScriptedResponse } from "../src/testing/index.js";
import { lastUserText, type RealHarness, startRealHarness } from "./helpers.js";

/** A ContractTurn as the scripted Responses provider behind codex plays it. */
const toScriptedResponse = (turn: ContractTurn): ScriptedResponse => {
  if (turn.failWith === "server_error") return { fail: { status: 500 } };
  const chunks = turn.chunks ?? [turn.text];
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

describeTextBackendContract("codex app-server (real binary)", async () => {
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
    close: async () => {
      turns.length = 0;
    },
  };
});
