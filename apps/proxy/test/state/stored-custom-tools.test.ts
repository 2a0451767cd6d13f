import { openSqliteStore } from "@proxy/adapter-store-sql";
import type { BackendRequest } from "@proxy/core";
import { createScriptedBackend, type Script } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "../support/serve-app.js";

const APPLY_PATCH = {
  type: "custom" as const,
  name: "apply_patch",
  description: "Edit files.",
  format: { type: "grammar" as const, syntax: "lark" as const, definition: "start: /.+/s" },
};
const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+"quoted" \\ line\n*** End Patch';
const RAW_BLOCK = `<custom_tool_call>apply_patch\n${PATCH}\n</custom_tool_call>`;
const seen = (request: BackendRequest | undefined) => JSON.stringify(request ?? {});

describe("custom tool calls in a stored chain (previous_response_id, SQLite in memory)", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async (script: Script) => {
    const store = await openSqliteStore(":memory:");
    const backend = createScriptedBackend(script);
    const served = await serveApp(backend, {
      stored: { store, ttlMs: 86_400_000, maxResponseBytes: 1 << 24, replicaId: "test", pollMs: 50 },
    });
    closers.push(async () => {
      await served.close();
      await store.close();
    });
    return { backend, client: new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "none", maxRetries: 0 }) };
  };

  it("the stored custom_tool_call is rendered back as its raw block next to the custom_tool_call_output", async () => {
    const { client, backend } = await start([{ chunks: [RAW_BLOCK] }, { chunks: ["Applied."] }]);
    const first = await client.responses.create({ model: "m", input: "add a.txt", tools: [APPLY_PATCH] });
    const call = first.output[0];
    expect(call).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: PATCH });
    if (call?.type !== "custom_tool_call") throw new Error("expected a custom_tool_call");
    const second = await client.responses.create({
      model: "m",
      previous_response_id: first.id,
      tools: [APPLY_PATCH],
      input: [{ type: "custom_tool_call_output", call_id: call.call_id, output: "Success. A a.txt" }],
    });
    expect(second.output_text).toBe("Applied.");
    const prompt = seen(backend.requests.at(-1));
    expect(prompt).toContain(JSON.stringify(RAW_BLOCK).slice(1, -1));
    expect(prompt).toContain(JSON.stringify(`[function_call_output call_id="${call.call_id}"`).slice(1, -1));
  });
});
