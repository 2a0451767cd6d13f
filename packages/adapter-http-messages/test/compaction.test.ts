import { COMPACTION_INSTRUCTION, renderCompactionSummary } from "@proxy/core/gateway";
import { afterEach, describe, expect, it } from "vitest";
import { post, startGateway, type TestGateway } from "./support/gateway.js";
import { base, WEATHER_TOOL } from "./support/scripts.js";

/** A prompt past the smallest trigger Anthropic allows (50 000 tokens), by the gateway's estimate. */
const LONG = `${"Paris weather please. ".repeat(14_000)}What now?`;
const edit = (extra: Record<string, unknown> = {}) => ({
  context_management: {
    edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 50_000 }, ...extra }],
  },
});
const textsOf = (history: ReadonlyArray<unknown>) =>
  history.flatMap((m) =>
    "content" in (m as object)
      ? (m as { content: Array<{ type: string; text?: string }> }).content.map((p) => p.text ?? "")
      : [],
  );

describe("Messages compaction (context_management compact_20260112, on-demand compaction)", () => {
  let gateway: TestGateway | undefined;
  afterEach(() => gateway?.close());

  it("past the trigger: a tool-less summary turn over the conversation, then the answer sees the summary alone", async () => {
    gateway = await startGateway([{ chunks: ["S1"] }, { chunks: ["The answer."] }]);
    const res = await post(
      gateway,
      base({ messages: [{ role: "user", content: LONG }], tools: [WEATHER_TOOL], ...edit() }),
    );
    expect(res.status).toBe(200);
    const message = JSON.parse(res.text);
    expect(message.content).toEqual([
      { type: "compaction", content: "S1", encrypted_content: null },
      { type: "text", text: "The answer." },
    ]);
    const [summary, answer] = gateway.backend.requests;
    expect(gateway.backend.requests).toHaveLength(2);
    expect(summary?.tools).toBeUndefined();
    expect(summary?.input).toEqual([{ type: "text", text: COMPACTION_INSTRUCTION }]);
    expect(summary?.compaction).toMatchObject({ keep: "none" });
    expect(textsOf(summary?.history ?? []).join("")).toContain("What now?");
    expect(answer?.history).toEqual([]);
    expect(answer?.input).toEqual([{ type: "text", text: renderCompactionSummary("S1") }]);
    expect(JSON.stringify(answer)).not.toContain("What now?");
  });

  it("the turn's accounted usage is the compaction's and the answer's; the wire's top level is the answer's", async () => {
    gateway = await startGateway([
      { chunks: ["S5"], usage: { inputTokens: 60_000, outputTokens: 7, totalTokens: 60_007 } },
      { chunks: ["A5"], usage: { inputTokens: 30, outputTokens: 2, totalTokens: 32 } },
    ]);
    const res = await post(gateway, base({ messages: [{ role: "user", content: LONG }], ...edit() }));
    const message = JSON.parse(res.text);
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 2 });
    expect(message.usage.iterations).toEqual([
      expect.objectContaining({ type: "compaction", input_tokens: 60_000, output_tokens: 7 }),
      expect.objectContaining({ type: "message", input_tokens: 30, output_tokens: 2 }),
    ]);
    await expect.poll(() => gateway?.summaries.length).toBe(1);
    expect(gateway.summaries[0]?.telemetry.usage).toMatchObject({ inputTokens: 60_030, outputTokens: 9 });
  });

  it("below the trigger the turn is the ordinary one; other edits are accepted and not applied", async () => {
    gateway = await startGateway([{ chunks: ["Plain."] }]);
    const res = await post(
      gateway,
      base({
        context_management: {
          edits: [
            { type: "clear_tool_uses_20250919", trigger: { type: "input_tokens", value: 30_000 } },
            { type: "compact_20260112" },
          ],
        },
      }),
    );
    expect(JSON.parse(res.text).content).toEqual([{ type: "text", text: "Plain." }]);
    expect(gateway.backend.requests).toHaveLength(1);
    expect(gateway.backend.requests[0]?.compaction).toBeUndefined();
  });

  it("pause_after_compaction and on-demand compaction answer the compaction block alone (stop_reason compaction)", async () => {
    for (const body of [
      base({ messages: [{ role: "user", content: LONG }], ...edit({ pause_after_compaction: true }) }),
      base({ compaction: { type: "summarize", instructions: "Summarize in one line." } }),
    ]) {
      gateway = await startGateway([{ chunks: ["S2"] }]);
      const message = JSON.parse((await post(gateway, body)).text);
      expect(message).toMatchObject({
        content: [{ type: "compaction", content: "S2" }],
        stop_reason: "compaction",
      });
      expect(message.usage.iterations).toEqual([expect.objectContaining({ type: "compaction" })]);
      expect(gateway.backend.requests).toHaveLength(1);
      await gateway.close();
      gateway = undefined;
    }
  });

  it("the client's own instructions replace the summary prompt, and no backend compacts natively with them", async () => {
    gateway = await startGateway([{ chunks: ["S3"] }]);
    await post(gateway, base({ compaction: { type: "summarize", instructions: "One line, please." } }));
    const [summary] = gateway.backend.requests;
    expect(summary?.input).toEqual([{ type: "text", text: "One line, please." }]);
    expect(summary?.compaction).toBeUndefined();
  });

  it("a compaction block sent back stands for everything before it", async () => {
    gateway = await startGateway([{ chunks: ["Next."] }]);
    await post(
      gateway,
      base({
        messages: [
          { role: "user", content: "old question" },
          {
            role: "assistant",
            content: [
              { type: "text", text: "old answer" },
              { type: "compaction", content: "S4", encrypted_content: null },
              { type: "text", text: "answer after" },
            ],
          },
          {
            role: "user",
            content: [
              { type: "compaction", content: null },
              { type: "text", text: "q" },
            ],
          },
        ],
      }),
    );
    const [sent] = gateway.backend.requests;
    expect(textsOf(sent?.history ?? [])).toEqual([renderCompactionSummary("S4"), "answer after"]);
    expect(sent?.input).toEqual([{ type: "text", text: "q" }]);
  });

  it("bad compaction settings are 400s naming the field", async () => {
    gateway = await startGateway([{ chunks: ["unused"] }]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [edit({ trigger: { type: "input_tokens", value: 1000 } }), "context_management.edits[0].trigger.value"],
      [edit({ trigger: { type: "tool_uses", value: 60_000 } }), "context_management.edits[0].trigger.type"],
      [edit({ pause_after_compaction: "yes" }), "context_management.edits[0].pause_after_compaction"],
      [
        { context_management: { edits: [{ type: "compact_20260112" }, { type: "compact_20260112" }] } },
        "context_management.edits[1]",
      ],
      [{ compaction: { type: "summarize" }, context_management: { edits: [] } }, "compaction"],
      [{ compaction: { type: "later" } }, "compaction"],
      [
        { messages: [{ role: "assistant", content: [{ type: "compaction", content: "" }] }] },
        "messages[0].content[0].content",
      ],
    ];
    for (const [extra, field] of cases) {
      const res = await post(gateway, base(extra));
      expect(res.status, field).toBe(400);
      const body = JSON.parse(res.text);
      expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(body.error.message, field).toContain(`'${field}'`);
    }
    expect(gateway.backend.requests).toHaveLength(0);
  });
});
