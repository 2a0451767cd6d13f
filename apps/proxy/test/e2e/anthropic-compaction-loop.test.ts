import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { askOf, fn, itemsOf } from "./native-support.js";

const MODEL = "e2e-model";
/** codex's own compaction prompt (thread/compact/start), and the gateway's portable one. */
const CODEX_CHECKPOINT = "CONTEXT CHECKPOINT COMPACTION";
const GATEWAY_INSTRUCTION = "Compact this conversation into a handoff summary";
const CODEX_SUMMARY = "Another language model started to solve this problem";
/** A tool result past the smallest trigger Anthropic allows (50 000 input tokens), by the gateway's count. */
const LONG = `${"Forecast rows for Paris. ".repeat(12_500)}Rain on Tuesday.`;
const COMPACT: Anthropic.Beta.BetaContextManagementConfig = {
  edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 50_000 } }],
};
const WEATHER: Anthropic.Tool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
type Param = Anthropic.Beta.BetaMessageParam;

/** Summaries for compaction prompts; a call when asked about the weather with no result yet; else an answer. */
const model = (r: RecordedRequest): ScriptedResponse => {
  const ask = askOf(r);
  if (ask.includes(CODEX_CHECKPOINT)) return { text: `codex summary ${r.index}` };
  if (ask.includes(GATEWAY_INSTRUCTION)) return { text: `portable summary ${r.index}` };
  const answered = itemsOf(r).some((i) => i.type === "function_call_output");
  if (/weather/.test(ask) && !answered)
    return { items: [fn(`call_${r.index}`, "get_weather", { city: "Paris" })] };
  return { text: `Answer ${r.index}` };
};

/**
 * Anthropic compaction that arrives mid tool loop in native mode: the conversation ends with the
 * client's result of a call codex's turn still waits on. With durable threads (kept edits) codex's
 * own compaction runs on the conversation's thread: the open turn is reverted and the loop's items,
 * the client's result included, are put back first (compacting the open turn as it stands would
 * show the model codex's "cancelled" output). Without them the portable summary turn runs.
 */
const suite = (name: string, env: Record<string, string>, native: boolean) =>
  describe(name, { timeout: 180_000 }, () => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    let client: Anthropic;
    beforeAll(async () => {
      e2e = await startE2E(model, { PROXY_CODEX_WARM_THREADS: "0", ...env });
      client = new Anthropic({ baseURL: e2e.url, apiKey: "test", maxRetries: 0 });
    }, 60_000);
    afterAll(() => e2e?.close());

    const send = (messages: Param[]) =>
      client.beta.messages.create(
        {
          model: MODEL,
          max_tokens: 1024,
          tools: [WEATHER],
          messages,
          betas: ["compact-2026-01-12"],
          context_management: COMPACT,
          stream: false,
        },
        { headers: { "x-proxy-tool-mode": "native" } },
      );

    it(`a tool result past the trigger: ${native ? "codex compacts the loop's own thread, the result in it, on the same key" : "the portable summary turn"}`, async () => {
      const from = e2e.provider.requests.length;
      const messages: Param[] = [{ role: "user", content: "What is the weather in Paris this week?" }];
      const first = await send(messages);
      const call = first.content.find((b) => b.type === "tool_use");
      expect(call?.type).toBe("tool_use");
      messages.push({ role: "assistant", content: first.content as Anthropic.Beta.BetaContentBlockParam[] });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: (call as { id: string }).id, content: LONG }],
      });
      const reply = await send(messages);
      const sent = e2e.provider.requests.slice(from);
      expect(sent).toHaveLength(3);
      const [loop, compaction, answer] = sent;
      expect(compaction?.body.tools ?? []).toEqual([]);
      expect(reply.content[0]).toMatchObject({ type: "compaction" });
      expect(reply.content.at(-1)).toEqual({ type: "text", text: `Answer ${answer?.index}` });
      const compacted = JSON.stringify(compaction?.body.input);
      if (native) {
        expect(askOf(compaction as RecordedRequest)).toContain(CODEX_CHECKPOINT);
        expect(reply.content[0]).toMatchObject({ content: `codex summary ${compaction?.index}` });
        // One key throughout; the summary was made from the client's own result, not a cancelled call.
        const key = loop?.body.prompt_cache_key;
        expect(sent.map((r) => r.body.prompt_cache_key)).toEqual([key, key, key]);
        expect(compacted).toContain("Rain on Tuesday.");
        expect(compacted).not.toMatch(/turn_aborted|cancelled before receiving/);
        const calls = itemsOf(compaction as RecordedRequest).filter((i) => i.type === "function_call");
        expect(calls.map((i) => i.call_id)).toEqual([`call_${loop?.index}`]);
        const lastUser = itemsOf(answer as RecordedRequest)
          .filter((i) => i.type === "message" && i.role === "user")
          .at(-1);
        expect(lastUser?.content?.[0]?.text?.startsWith(CODEX_SUMMARY)).toBe(true);
      } else {
        expect(askOf(compaction as RecordedRequest)).toContain(GATEWAY_INSTRUCTION);
        expect(compaction?.body.prompt_cache_key).not.toBe(loop?.body.prompt_cache_key);
      }
    });
  });

suite(
  "Anthropic compaction mid native tool loop, kept edits on (durable threads)",
  { PROXY_CODEX_KEEP_EDITS: "true" },
  true,
);
suite("Anthropic compaction mid native tool loop, kept edits off (the default)", {}, false);
