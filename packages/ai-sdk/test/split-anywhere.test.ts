import { createCountingIdGenerator } from "@proxy/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toolCallingMiddleware } from "../src/index.js";
import { scriptedModel } from "./support/scripted-model.js";
import { AI7 as sdk } from "./support/sdk.js";
import { call } from "./support/tool-calling-suite.js";

const TOOLS = [
  {
    type: "function" as const,
    name: "weather",
    inputSchema: { type: "object" as const, properties: { city: { type: "string" as const } } },
  },
  { type: "function" as const, name: "time", inputSchema: { type: "object" as const } },
];

/** Model texts whose parts must not depend on how the text arrives. */
const REPLIES = [
  `Let me look. ${call("weather", { city: "Paris" })}`,
  call("weather", { city: "Zürich 🌧" }) + call("time", {}),
  `Text only, with a < and a <tool but no block.`,
  `\`\`\`\n${call("weather", { city: "Fenced" })}\n\`\`\`\nand then ${call("time", {})}`,
  `${call("stocks", { ticker: "X" })} unknown tool, then ${call("weather", { city: "Rome" })}`,
  `<use_tool><name>weather</name><city>Oslo</city></use_tool>`,
  `Cut off: <tool_call>{"name":"weather","arguments":"{\\"ci`,
];

type Part = { type: string; [key: string]: unknown };

/** A stream's parts with each text block's and each call's deltas joined: what chunking may change. */
const normalized = (parts: ReadonlyArray<Part>): Part[] => {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if ((part.type === "text-delta" || part.type === "tool-input-delta") && last?.type === part.type) {
      last.delta = `${String(last.delta)}${String(part.delta)}`;
      continue;
    }
    out.push({ ...part });
  }
  return out;
};

/** The middleware around a model that writes `text`, cut by `chunk` when streamed. */
const wrappedModel = (text: string, chunk?: (t: string) => string[]) =>
  sdk.wrapLanguageModel({
    model: scriptedModel(sdk, [text], chunk).model,
    middleware: toolCallingMiddleware({ ids: createCountingIdGenerator() }),
  });

const CALL = {
  prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
  tools: TOOLS,
};

const streamParts = async (text: string, cuts: ReadonlyArray<number>): Promise<Part[]> => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunk = (t: string) => {
    const pieces: string[] = [];
    let from = 0;
    for (const p of [...points, t.length]) {
      if (p > from) pieces.push(t.slice(from, p));
      from = p;
    }
    return pieces;
  };
  const result = await wrappedModel(text, chunk).doStream(CALL);
  const parts: Part[] = [];
  const reader = result.stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value as Part);
  return parts;
};

describe("split anywhere", () => {
  it.each(REPLIES.map((r) => [r]))("gives the same parts under every chunking: %s", async (reply) => {
    const whole = normalized(await streamParts(reply, []));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        expect(normalized(await streamParts(reply, cuts))).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it("one character per delta gives the same parts as one delta", async () => {
    for (const reply of REPLIES) {
      const every = Array.from({ length: reply.length }, (_, i) => i);
      expect(normalized(await streamParts(reply, every))).toEqual(normalized(await streamParts(reply, [])));
    }
  });

  it("streams the same calls and text that generate returns", async () => {
    for (const reply of REPLIES) {
      const parts = normalized(await streamParts(reply, [3, 17, 40]));
      const generated = await wrappedModel(reply).doGenerate(CALL);
      const fromStream = parts.flatMap((p): Part[] =>
        p.type === "text-delta"
          ? [{ type: "text", text: p.delta }]
          : p.type === "tool-call"
            ? [{ type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }]
            : [],
      );
      expect(fromStream).toEqual(generated.content);
      const finish = parts.find((p) => p.type === "finish") as { finishReason: unknown } | undefined;
      expect(finish?.finishReason).toEqual(generated.finishReason);
    }
  });

  it("a stream's call is framed: input start, deltas, input end, then the call, all under the call id", async () => {
    const parts = normalized(await streamParts(REPLIES[0] ?? "", [5, 30]));
    expect(parts.map((p) => p.type)).toEqual([
      "stream-start",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "finish",
    ]);
    expect(parts.slice(4, 8)).toEqual([
      { type: "tool-input-start", id: "call_1", toolName: "weather" },
      { type: "tool-input-delta", id: "call_1", delta: '{"city":"Paris"}' },
      { type: "tool-input-end", id: "call_1" },
      { type: "tool-call", toolCallId: "call_1", toolName: "weather", input: '{"city":"Paris"}' },
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "stop" },
    });
  });
});
