import { AIMessage, type AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, toolBlock } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

// Copilot-shaped tools (obsidian-copilot.md §A.4).
const localSearch = tool(async () => "results", {
  name: "localSearch",
  description: "Search for notes in the vault based on query, salient terms, and optional time range",
  schema: z.object({ query: z.string().min(1), salientTerms: z.array(z.string()) }),
});
const webSearch = tool(async () => "results", {
  name: "webSearch",
  description: "Search the INTERNET (NOT vault notes) when user explicitly asks for web/online information",
  schema: z.object({
    query: z.string().min(1),
    chatHistory: z.array(z.object({ role: z.string(), content: z.string() })),
  }),
});

/**
 * Obsidian Copilot's own accumulator (nativeToolCalling.ts, obsidian-copilot.md §A.3), stricter than
 * LangChain's concat: names are concatenated and calls keyed by `index ?? 0`.
 */
const copilotAccumulate = (chunks: AIMessageChunk[]) => {
  const map = new Map<number, { id: string; name: string; args: string }>();
  for (const chunk of chunks) {
    for (const raw of chunk.tool_call_chunks ?? []) {
      const idx = raw.index ?? 0;
      const existing = map.get(idx) ?? { id: "", name: "", args: "" };
      if (raw.id) existing.id = raw.id;
      if (raw.name) existing.name += raw.name;
      if (raw.args) existing.args += raw.args;
      map.set(idx, existing);
    }
  }
  return [...map.values()]
    .filter((c) => c.name !== "")
    .map((c) => {
      let args: unknown = {};
      try {
        args = JSON.parse(c.args);
      } catch {
        /* Copilot falls back to {} */
      }
      return { id: c.id, name: c.name, args };
    });
};

const copilotModel = (g: TestGateway, streaming: boolean) =>
  new ChatOpenAI({
    configuration: { baseURL: g.baseURL },
    apiKey: "test-key",
    model: "gpt-4.1",
    streaming,
    maxRetries: 0,
  });

const TWO_CALLS = [
  toolBlock("localSearch", { query: "piano", salientTerms: ["piano", "practice"] }),
  toolBlock("webSearch", { query: "piano tutorials", chatHistory: [] }),
].join("\n");

describe("@langchain/openai (Obsidian Copilot's client)", () => {
  it("bindTools().stream(): Copilot's strict accumulator gets exact names and args", async () => {
    gateway = await startGateway([{ chunks: fragments(`[SALIENT_TERMS: piano]\n${TWO_CALLS}`, 6) }]);
    const bound = copilotModel(gateway, true).bindTools([localSearch, webSearch]);
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream([new HumanMessage("find my piano notes")]))
      chunks.push(chunk);

    expect(copilotAccumulate(chunks)).toEqual([
      { id: "call_1", name: "localSearch", args: { query: "piano", salientTerms: ["piano", "practice"] } },
      { id: "call_2", name: "webSearch", args: { query: "piano tutorials", chatHistory: [] } },
    ]);
    const merged = chunks.reduce((a, b) => a.concat(b));
    expect(merged.content).toBe("[SALIENT_TERMS: piano]\n");
    expect(merged.tool_calls?.map((c) => c.name)).toEqual(["localSearch", "webSearch"]);
    expect(merged.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("sends Copilot's request shape (tools, no tool_choice) and accepts its second turn", async () => {
    gateway = await startGateway((_r, turn) =>
      turn === 0 ? { chunks: fragments(TWO_CALLS) } : { chunks: ["Here is what I found."] },
    );
    const bound = copilotModel(gateway, true).bindTools([localSearch, webSearch]);
    const first: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream([new HumanMessage("piano?")])) first.push(chunk);
    const calls = copilotAccumulate(first);

    // Copilot's second turn: assistant content "" + tool_calls, then tool messages carrying `name`.
    const history = [
      new HumanMessage("piano?"),
      new AIMessage({
        content: "",
        tool_calls: calls.map((c) => ({ ...c, args: c.args as Record<string, unknown> })),
      }),
      ...calls.map(
        (c) => new ToolMessage({ content: `<${c.name}>ok</${c.name}>`, tool_call_id: c.id, name: c.name }),
      ),
    ];
    const second: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream(history)) second.push(chunk);
    expect(second.map((c) => c.content).join("")).toBe("Here is what I found.");
    const rendered = JSON.stringify(gateway.backend.requests[1]);
    expect(rendered).toContain("call_1");
    expect(rendered).toContain("<localSearch>ok</localSearch>");
    expect(rendered).toContain("<webSearch>ok</webSearch>");
  });

  it("streaming:false (Copilot's per-model toggle): .stream() falls back to one non-stream request", async () => {
    gateway = await startGateway([{ chunks: fragments(TWO_CALLS) }]);
    const bound = copilotModel(gateway, false).bindTools([localSearch, webSearch]);
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream([new HumanMessage("piano?")])) chunks.push(chunk);
    expect(gateway.summaries.map((s) => s.stream)).toEqual([false]);
    // One whole message: Copilot uses its parsed `tool_calls` directly (obsidian-copilot.md §A.3).
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args }))).toEqual([
      { id: "call_1", name: "localSearch", args: { query: "piano", salientTerms: ["piano", "practice"] } },
      { id: "call_2", name: "webSearch", args: { query: "piano tutorials", chatHistory: [] } },
    ]);
    expect(chunks[0]?.response_metadata.finish_reason).toBe("tool_calls");
  });
});
