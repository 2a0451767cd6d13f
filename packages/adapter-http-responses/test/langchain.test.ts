import type { AIMessageChunk } from "@langchain/core/messages";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, promptText, toolBlock } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

// Copilot-shaped tool (obsidian-copilot.md §A.4); on the Responses API LangChain sends `strict: null`.
const localSearch = tool(async () => "results", {
  name: "localSearch",
  description: "Search for notes in the vault based on query, salient terms, and optional time range",
  schema: z.object({ query: z.string().min(1), salientTerms: z.array(z.string()) }),
});

/** Copilot for gpt-5*: ChatOpenAI with useResponsesApi (obsidian-copilot.md §A.1). */
const copilotModel = (g: TestGateway, streaming: boolean) =>
  new ChatOpenAI({
    configuration: { baseURL: g.baseURL },
    apiKey: "test-key",
    model: "gpt-5",
    useResponsesApi: true,
    streaming,
    maxRetries: 0,
  });

/** Copilot's accumulator (nativeToolCalling.ts): keyed by index, names concatenated. */
const copilotAccumulate = (chunks: AIMessageChunk[]) => {
  const map = new Map<number, { id: string; name: string; args: string }>();
  for (const chunk of chunks)
    for (const raw of chunk.tool_call_chunks ?? []) {
      const idx = raw.index ?? 0;
      const existing = map.get(idx) ?? { id: "", name: "", args: "" };
      if (raw.id) existing.id = raw.id;
      if (raw.name) existing.name += raw.name;
      if (raw.args) existing.args += raw.args;
      map.set(idx, existing);
    }
  return [...map.values()]
    .filter((c) => c.name !== "")
    .map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) }));
};

const SEARCH = toolBlock("localSearch", { query: "piano", salientTerms: ["piano", "practice"] });

describe("@langchain/openai with useResponsesApi (Obsidian Copilot's gpt-5 path)", () => {
  it("streams tool_call_chunks that Copilot's accumulator turns into one call", async () => {
    gateway = await startGateway([{ chunks: fragments(`Searching your vault. ${SEARCH}`, 4) }]);
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await copilotModel(gateway, true)
      .bindTools([localSearch])
      .stream([new HumanMessage("piano notes?")]))
      chunks.push(chunk);
    expect(copilotAccumulate(chunks)).toEqual([
      { id: "call_1", name: "localSearch", args: { query: "piano", salientTerms: ["piano", "practice"] } },
    ]);
    const text = chunks
      .map((c) =>
        typeof c.content === "string"
          ? c.content
          : c.content.map((p) => ("text" in p ? p.text : "")).join(""),
      )
      .join("");
    expect(text).toBe("Searching your vault. ");
  });

  it("non-streaming invoke maps the function_call to AIMessage.tool_calls, and the round trip is accepted", async () => {
    gateway = await startGateway([
      { chunks: fragments(SEARCH) },
      { chunks: ["You practised piano on Monday."] },
    ]);
    const model = copilotModel(gateway, false).bindTools([localSearch]);
    const question = new HumanMessage("piano notes?");
    const first = await model.invoke([question]);
    expect(first.tool_calls).toEqual([
      {
        type: "tool_call",
        id: "call_1",
        name: "localSearch",
        args: { query: "piano", salientTerms: ["piano", "practice"] },
      },
    ]);
    const second = await model.invoke([
      question,
      first,
      new ToolMessage({ tool_call_id: "call_1", content: "<localSearch>Monday: piano</localSearch>" }),
    ]);
    expect(second.text).toBe("You practised piano on Monday.");
    expect(promptText(gateway.backend.requests[1]!)).toContain("<localSearch>Monday: piano</localSearch>");
  });
});
