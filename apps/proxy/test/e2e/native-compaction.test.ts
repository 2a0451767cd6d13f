import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { askOf, itemsOf } from "./native-support.js";

const MODEL = "e2e-model";
const KEY_A = "sk-compact-a";
const KEY_B = "sk-compact-b";
type Mode = "native" | "prompt";

/** codex's own compaction prompt (thread/compact/start), and the gateway's portable one. */
const CODEX_CHECKPOINT = "CONTEXT CHECKPOINT COMPACTION";
const GATEWAY_INSTRUCTION = "Compact this conversation into a handoff summary";
/** How the gateway shows an echoed summary to the model (a fresh thread), and how codex does. */
const GATEWAY_SUMMARY = "Summary of the earlier part of this conversation";
const CODEX_SUMMARY = "Another language model started to solve this problem";

const model = (r: RecordedRequest): ScriptedResponse => {
  const ask = askOf(r);
  if (ask.includes(CODEX_CHECKPOINT)) return { text: `codex summary ${r.index}` };
  if (ask.includes(GATEWAY_INSTRUCTION)) return { text: `portable summary ${r.index}` };
  return { text: `Answer to ${ask.split("\n").at(-1)}.` };
};

const userTexts = (r: RecordedRequest | undefined): string[] =>
  (r ? itemsOf(r) : []).flatMap((i) =>
    i.type === "message" && i.role === "user" ? [(i.content ?? []).map((c) => c.text ?? "").join("")] : [],
  );
const PARAMS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const TOOLS = [{ type: "function" as const, name: "get_weather", parameters: PARAMS, strict: false }];
type Item = OpenAI.Responses.ResponseInputItem;

describe("native compaction at the wire: /v1/responses/compact → real codex thread/compact/start", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_API_KEYS: `${KEY_A},${KEY_B}`, PROXY_CODEX_WARM_THREADS: "0" });
  }, 60_000);
  afterAll(() => e2e?.close());

  const client = (key: string) => new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: key, maxRetries: 0 });
  const ask = async (key: string, input: Item[], mode: Mode) => {
    const r = await client(key).responses.create(
      { model: MODEL, input, tools: TOOLS, store: false },
      { headers: { "x-proxy-tool-mode": mode } },
    );
    return r.output_text;
  };
  /** `POST /v1/responses/compact` as codex before 0.169 and `client.responses.compact()` send it. */
  const compact = async (key: string, input: Item[], mode: Mode) => {
    const res = await fetch(`${e2e.url}/v1/responses/compact`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "x-proxy-tool-mode": mode,
      },
      body: JSON.stringify({ model: MODEL, input, tools: TOOLS, parallel_tool_calls: true }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { output: Item[] }).output;
  };
  /** A two-turn conversation through the gateway (so codex holds its thread), then its history. */
  const converse = async (key: string, tag: string, mode: Mode): Promise<Item[]> => {
    const input: Item[] = [{ role: "user", content: `${tag} q1` }];
    input.push(
      { role: "assistant", content: await ask(key, input, mode) },
      { role: "user", content: `${tag} q2` },
    );
    input.push({ role: "assistant", content: await ask(key, input, mode) });
    return input;
  };
  const since = (from: number) => e2e.provider.requests.slice(from);

  for (const mode of ["native", "prompt"] as const)
    it(`${mode}: compacts the live thread with codex's own compaction; the next turn continues it on the same key`, async () => {
      const from = e2e.provider.requests.length;
      const history = await converse(KEY_A, mode, mode);
      const output = await compact(KEY_A, history, mode);
      const [turn1, turn2, compaction] = since(from);
      // codex's compaction request, on the conversation's own thread: no tools, its checkpoint prompt.
      expect(compaction?.body.tools).toEqual([]);
      expect(askOf(compaction as RecordedRequest)).toContain(CODEX_CHECKPOINT);
      expect(new Set([turn1, turn2, compaction].map((r) => r?.body.prompt_cache_key)).size).toBe(1);
      const summary = `codex summary ${compaction?.index}`;
      expect(output).toMatchObject([
        { type: "message", role: "user", content: [{ type: "input_text", text: `${mode} q1` }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: `${mode} q2` }] },
        { type: "compaction", encrypted_content: summary },
      ]);

      const answer = await ask(KEY_A, [...output, { role: "user", content: `${mode} q3` }], mode);
      expect(answer).toBe(`Answer to ${mode} q3.`);
      const [after] = since(from + 3);
      expect(after?.body.prompt_cache_key).toBe(turn1?.body.prompt_cache_key);
      // The thread's own compacted history, plus only the new ask: the echoed summary is not resent.
      const shown = userTexts(after);
      expect(shown.some((t) => t.startsWith(CODEX_SUMMARY) && t.endsWith(summary))).toBe(true);
      expect(shown.some((t) => t.includes(GATEWAY_SUMMARY))).toBe(false);
      expect(shown.at(-1)).toBe(`${mode} q3`);
    });

  it("a conversation without a live thread is compacted as before: a summary turn through the backend", async () => {
    const from = e2e.provider.requests.length;
    const history: Item[] = [
      { role: "user", content: "cold q1" },
      { role: "assistant", content: "An answer this gateway never gave." },
    ];
    const output = await compact(KEY_A, history, "native");
    const [sent] = since(from);
    expect(since(from)).toHaveLength(1);
    expect(askOf(sent as RecordedRequest)).toContain(GATEWAY_INSTRUCTION);
    expect(sent?.body.tools ?? []).toEqual([]);
    expect(output.at(-1)).toMatchObject({
      type: "compaction",
      encrypted_content: `portable summary ${sent?.index}`,
    });
  });

  it("another caller echoing a compaction never reaches its thread; its owner still continues it", async () => {
    const from = e2e.provider.requests.length;
    const history = await converse(KEY_A, "owned", "native");
    const output = await compact(KEY_A, history, "native");
    const ownerKey = since(from)[0]?.body.prompt_cache_key;
    // Caller B sends A's compacted history (and a forged one): each runs on a fresh thread of its own.
    const forged: Item[] = output.map((i) =>
      (i as { type?: string }).type === "compaction" ? { ...i, encrypted_content: "forged" } : i,
    ) as Item[];
    for (const items of [output, forged]) {
      const at = e2e.provider.requests.length;
      await ask(KEY_B, [...items, { role: "user", content: "stolen q3" }], "native");
      const [sent] = since(at);
      expect(sent?.body.prompt_cache_key).not.toBe(ownerKey);
      expect(userTexts(sent).some((t) => t.startsWith(GATEWAY_SUMMARY))).toBe(true);
      expect(userTexts(sent).some((t) => t.startsWith(CODEX_SUMMARY))).toBe(false);
    }
    const at = e2e.provider.requests.length;
    await ask(KEY_A, [...output, { role: "user", content: "owner q3" }], "native");
    expect(since(at)[0]?.body.prompt_cache_key).toBe(ownerKey);
  });
});
