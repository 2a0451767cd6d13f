import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { askOf, itemsOf } from "./native-support.js";

const MODEL = "e2e-model";
type Mode = "native" | "prompt";

/** codex's own compaction prompt (thread/compact/start), and the gateway's portable one. */
const CODEX_CHECKPOINT = "CONTEXT CHECKPOINT COMPACTION";
const GATEWAY_INSTRUCTION = "Compact this conversation into a handoff summary";
/** How the gateway shows a summary to the model (a fresh thread), and how codex does (its own thread). */
const GATEWAY_SUMMARY = "Summary of the earlier part of this conversation";
const CODEX_SUMMARY = "Another language model started to solve this problem";
/** A prompt past the smallest trigger Anthropic allows (50 000 input tokens), by the gateway's count. */
const LONG = `${"Notes on the Paris trip. ".repeat(12_500)}What should I pack?`;
const COMPACT_EDIT: Anthropic.Beta.BetaCompact20260112Edit = {
  type: "compact_20260112",
  trigger: { type: "input_tokens", value: 50_000 },
};
const COMPACT: Anthropic.Beta.BetaContextManagementConfig = {
  edits: [{ type: "clear_thinking_20251015", keep: "all" }, COMPACT_EDIT],
};

const model = (r: RecordedRequest): ScriptedResponse => {
  const ask = askOf(r);
  if (ask.includes(CODEX_CHECKPOINT)) return { text: `codex summary ${r.index}` };
  if (ask.includes(GATEWAY_INSTRUCTION)) return { text: `portable summary ${r.index}` };
  return { text: `Answer ${r.index} to ${ask.slice(-40).split("\n").at(-1)}` };
};
const userTexts = (r: RecordedRequest | undefined): string[] =>
  (r ? itemsOf(r) : []).flatMap((i) =>
    i.type === "message" && i.role === "user" ? [(i.content ?? []).map((c) => c.text ?? "").join("")] : [],
  );
const WEATHER: Anthropic.Tool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
type Param = Anthropic.Beta.BetaMessageParam;
/** The reply as the client appends it to its history. */
const said = (reply: Anthropic.Beta.BetaMessage): Param => ({
  role: "assistant",
  content: reply.content as Anthropic.Beta.BetaContentBlockParam[],
});

describe("Anthropic compaction at the wire: the SDK → /v1/messages context_management → real codex", {
  timeout: 180_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: Anthropic;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_CODEX_WARM_THREADS: "0" });
    client = new Anthropic({ baseURL: e2e.url, apiKey: "test", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());
  const since = (from: number) => e2e.provider.requests.slice(from);

  const send = async (
    messages: Param[],
    mode: Mode,
    extra: Partial<Anthropic.Beta.MessageCreateParamsNonStreaming> = {},
    stream = false,
  ): Promise<Anthropic.Beta.BetaMessage> => {
    const body = {
      model: MODEL,
      max_tokens: 1024,
      tools: [WEATHER],
      messages,
      betas: ["compact-2026-01-12"],
      ...extra,
    };
    const headers = { "x-proxy-tool-mode": mode };
    if (stream) return client.beta.messages.stream(body, { headers }).finalMessage();
    return client.beta.messages.create({ ...body, stream: false }, { headers });
  };
  /** Two turns through the gateway (so codex holds the thread), the history as the client keeps it. */
  const converse = async (tag: string, mode: Mode): Promise<Param[]> => {
    const messages: Param[] = [{ role: "user", content: `${tag} q1` }];
    messages.push(said(await send(messages, mode)));
    messages.push({ role: "user", content: `${tag} q2` });
    messages.push(said(await send(messages, mode)));
    return messages;
  };

  for (const mode of ["native", "prompt"] as const)
    for (const stream of [false, true])
      it(`${mode}${stream ? ", streamed" : ""}: past the trigger, codex compacts the live thread, answers on it, and the next turn continues it on the same key`, async () => {
        const from = e2e.provider.requests.length;
        const history = await converse(`${mode}${stream}`, mode);
        history.push({ role: "user", content: LONG });
        const reply = await send(history, mode, { context_management: COMPACT }, stream);
        const [turn1, , compaction, answer] = since(from);
        expect(since(from)).toHaveLength(4);
        // codex's compaction, on the conversation's own thread, with the new prompt in it.
        expect(compaction?.body.tools).toEqual([]);
        expect(askOf(compaction as RecordedRequest)).toContain(CODEX_CHECKPOINT);
        expect(JSON.stringify(compaction?.body.input)).toContain("What should I pack?");
        const key = turn1?.body.prompt_cache_key;
        expect(since(from).map((r) => r.body.prompt_cache_key)).toEqual([key, key, key, key]);
        // The answer runs on the compacted thread: codex's summary is the last thing the model read.
        const shown = userTexts(answer);
        expect(shown.at(-1)?.startsWith(CODEX_SUMMARY)).toBe(true);
        expect(shown.some((t) => t.includes(GATEWAY_SUMMARY))).toBe(false);
        const summary = `codex summary ${compaction?.index}`;
        expect(reply.content).toEqual([
          { type: "compaction", content: summary, encrypted_content: null },
          { type: "text", text: expect.stringMatching(new RegExp(`^Answer ${answer?.index} `)) },
        ]);
        expect(reply.stop_reason).toBe("end_turn");
        expect(reply.usage.iterations?.map((i) => i.type)).toEqual(["compaction", "message"]);

        // The client appends the reply (Anthropic drops what precedes the compaction block).
        const next = [...history, said(reply)];
        next.push({ role: "user", content: "and the weather?" });
        const at = e2e.provider.requests.length;
        await send(next, mode, { context_management: COMPACT }, stream);
        const [after] = since(at);
        expect(since(at)).toHaveLength(1);
        expect(after?.body.prompt_cache_key).toBe(key);
        const texts = userTexts(after);
        expect(texts.at(-1)).toBe("and the weather?");
        expect(texts.some((t) => t.includes(GATEWAY_SUMMARY))).toBe(false);
      });

  it("pause_after_compaction: the compaction block alone; sent back, it is answered on the same thread", async () => {
    const from = e2e.provider.requests.length;
    const history = await converse("paused", "native");
    history.push({ role: "user", content: LONG });
    const paused = await send(history, "native", {
      context_management: { edits: [{ ...COMPACT_EDIT, pause_after_compaction: true }] },
    });
    expect(paused.stop_reason).toBe("compaction");
    expect(paused.content).toEqual([
      { type: "compaction", content: expect.stringMatching(/^codex summary /), encrypted_content: null },
    ]);
    expect(since(from)).toHaveLength(3);
    const key = since(from)[0]?.body.prompt_cache_key;
    // The SDK's way to resume: the history ending in the paused reply, no new message.
    const at = e2e.provider.requests.length;
    const resumed = await send([...history, said(paused)], "native");
    const [answer] = since(at);
    expect(since(at)).toHaveLength(1);
    expect(answer?.body.prompt_cache_key).toBe(key);
    expect(userTexts(answer).at(-1)?.startsWith(CODEX_SUMMARY)).toBe(true);
    expect(resumed.content).toEqual([{ type: "text", text: expect.stringMatching(/^Answer /) }]);
  });

  it("a conversation without a live thread: the portable summary turn, the answer on a fresh thread that the next turn continues", async () => {
    const from = e2e.provider.requests.length;
    const history: Param[] = [
      { role: "user", content: "cold q1" },
      { role: "assistant", content: "An answer this gateway never gave." },
      { role: "user", content: LONG },
    ];
    const reply = await send(history, "native", { context_management: COMPACT }, true);
    const [summaryTurn, answer] = since(from);
    expect(since(from)).toHaveLength(2);
    expect(askOf(summaryTurn as RecordedRequest)).toContain(GATEWAY_INSTRUCTION);
    expect(summaryTurn?.body.tools ?? []).toEqual([]);
    const summary = `portable summary ${summaryTurn?.index}`;
    expect(reply.content[0]).toEqual({ type: "compaction", content: summary, encrypted_content: null });
    // The answer sees the summary alone, as the client will send it back.
    expect(userTexts(answer)).toContainEqual(expect.stringContaining(summary));
    expect(JSON.stringify(answer?.body.input)).not.toContain("cold q1");
    const at = e2e.provider.requests.length;
    await send([...history, said(reply), { role: "user", content: "cold q3" }], "native");
    const [after] = since(at);
    expect(after?.body.prompt_cache_key).toBe(answer?.body.prompt_cache_key);
    expect(userTexts(after).at(-1)).toBe("cold q3");
  });

  it("on-demand compaction (`compaction: {type: 'summarize'}`) of a live thread, streamed: the SDK gets the block", async () => {
    const from = e2e.provider.requests.length;
    const history = await converse("demand", "native");
    const body = {
      model: MODEL,
      max_tokens: 1024,
      tools: [WEATHER],
      messages: history,
      compaction: { type: "summarize" as const },
    };
    const reply = await client.beta.messages
      .stream(body, { headers: { "x-proxy-tool-mode": "native" } })
      .finalMessage();
    const [turn1, , compaction] = since(from);
    expect(since(from)).toHaveLength(3);
    expect(compaction?.body.prompt_cache_key).toBe(turn1?.body.prompt_cache_key);
    expect(reply.stop_reason).toBe("compaction");
    expect(reply.content).toEqual([
      { type: "compaction", content: `codex summary ${compaction?.index}`, encrypted_content: null },
    ]);
  });
});
