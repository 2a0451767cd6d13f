import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E, toolCallText } from "./e2e-gateway.js";
import { askOf, fn, itemsOf } from "./native-support.js";

const MODEL = "e2e-model";
type Mode = "native" | "prompt";

/** Answers a tool result, calls get_weather when asked about weather, else echoes the ask. */
const model = (r: RecordedRequest): ScriptedResponse => {
  const native = ((r.body.tools ?? []) as unknown[]).length > 0;
  const last = itemsOf(r).at(-1);
  if (last?.type === "function_call_output") return { text: `The weather: ${String(last.output)}` };
  const ask = askOf(r);
  const result = /\[function_call_output call_id="[^"]*" output=("(?:[^"\\]|\\.)*")\]/.exec(ask);
  if (result) return { text: `The weather: ${JSON.parse(result[1] ?? '""') as string}` };
  if (/weather/i.test(ask))
    return native
      ? { items: [fn(`call_${r.index}`, "get_weather", { city: "Paris" })] }
      : { text: toolCallText("get_weather", { city: "Paris" }) };
  return { text: `Answer to ${ask}.` };
};

const cacheKeys = (requests: ReadonlyArray<RecordedRequest>) => requests.map((r) => r.body.prompt_cache_key);
/** The conversation the model provider was shown: user and assistant texts, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  (r ? itemsOf(r) : []).flatMap((i) =>
    i.type === "message" && (i.role === "user" || i.role === "assistant")
      ? [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`]
      : [],
  );
const PARAMS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

/** One exchange of the client's history: what the user asked, what it was told. */
type Exchange = readonly [ask: string, answer: string];
/** A surface as a client uses it: send the history and a new ask, get the answer's text. */
type Surface = (history: ReadonlyArray<Exchange>, ask: string, mode: Mode) => Promise<string>;

describe("kept edits at the wire (PROXY_CODEX_KEEP_EDITS=true): real SDKs → gateway → real codex", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let gemini: GoogleGenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_CODEX_KEEP_EDITS: "true", PROXY_CODEX_WARM_THREADS: "0" });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: e2e.url, apiKey: "sk-e2e", maxRetries: 0 });
    gemini = new GoogleGenAI({ apiKey: "sk-e2e", httpOptions: { baseUrl: e2e.url } });
  }, 60_000);
  afterAll(() => e2e?.close());

  const headers = (mode: Mode) => ({ "x-proxy-tool-mode": mode });
  const surfaces: Record<string, Surface> = {
    "chat completions": async (history, ask, mode) => {
      const messages: OpenAI.ChatCompletionMessageParam[] = history.flatMap(([q, a]) => [
        { role: "user" as const, content: q },
        { role: "assistant" as const, content: a },
      ]);
      messages.push({ role: "user", content: ask });
      const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: PARAMS } }];
      const r = await openai.chat.completions.create(
        { model: MODEL, messages, tools },
        { headers: headers(mode) },
      );
      return r.choices[0]?.message.content ?? "";
    },
    responses: async (history, ask, mode) => {
      const input: OpenAI.Responses.ResponseInputItem[] = history.flatMap(([q, a]) => [
        { role: "user" as const, content: q },
        { role: "assistant" as const, content: a },
      ]);
      input.push({ role: "user", content: ask });
      const tools = [{ type: "function" as const, name: "get_weather", parameters: PARAMS, strict: false }];
      const r = await openai.responses.create(
        { model: MODEL, input, tools, store: false },
        { headers: headers(mode) },
      );
      return r.output_text;
    },
    "anthropic messages": async (history, ask, mode) => {
      const messages: Anthropic.MessageParam[] = history.flatMap(([q, a]) => [
        { role: "user" as const, content: q },
        { role: "assistant" as const, content: a },
      ]);
      messages.push({ role: "user", content: ask });
      const tools: Anthropic.Tool[] = [
        { name: "get_weather", input_schema: PARAMS as Anthropic.Tool.InputSchema },
      ];
      const r = await anthropic.messages.create(
        { model: MODEL, max_tokens: 512, messages, tools },
        { headers: headers(mode) },
      );
      return r.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    },
    gemini: async (history, ask, mode) => {
      const contents = history.flatMap(([q, a]) => [
        { role: "user", parts: [{ text: q }] },
        { role: "model", parts: [{ text: a }] },
      ]);
      contents.push({ role: "user", parts: [{ text: ask }] });
      const r = await gemini.models.generateContent({
        model: MODEL,
        contents,
        config: {
          tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: PARAMS }] }],
          httpOptions: { headers: headers(mode) },
        },
      });
      return r.text ?? "";
    },
  };

  for (const mode of ["native", "prompt"] as const)
    for (const [name, send] of Object.entries(surfaces))
      it(`${name}, ${mode} mode: turn 3 edited keeps the key with exactly the edited history; the abandoned branch gets its own`, async () => {
        const from = e2e.provider.requests.length;
        const tag = `${name} ${mode}`;
        const history: Exchange[] = [];
        for (const ask of [`${tag} q1`, `${tag} q2`, `${tag} q3`])
          history.push([ask, await send(history, ask, mode)]);
        const edited = await send(history.slice(0, 2), `${tag} q3 edited`, mode);
        expect(edited).toBe(`Answer to ${tag} q3 edited.`);
        // The client goes back to the branch it left.
        await send(history, `${tag} q4`, mode);
        const sent = e2e.provider.requests.slice(from);
        expect(sent).toHaveLength(5);
        // The abandoned branch takes the thread back (reverted to the turn both branches share, its
        // own turn put back): all five on one key, each shown exactly its own history.
        expect(new Set(cacheKeys(sent)).size).toBe(1);
        const said = (h: ReadonlyArray<Exchange>) => h.flatMap(([q, a]) => [`user:${q}`, `assistant:${a}`]);
        expect(shown(sent[3])).toEqual([...said(history.slice(0, 2)), `user:${tag} q3 edited`]);
        expect(shown(sent[4])).toEqual([...said(history), `user:${tag} q4`]);
      });

  for (const mode of ["native", "prompt"] as const)
    it(`chat completions, ${mode} mode: the message after a finished tool turn edited reverts to it on the same key`, async () => {
      const sent = await (async () => {
        const from = e2e.provider.requests.length;
        const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: PARAMS } }];
        const create = (messages: OpenAI.ChatCompletionMessageParam[]) =>
          openai.chat.completions.create({ model: MODEL, messages, tools }, { headers: headers(mode) });
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: "user", content: `Weather in Paris? (${mode})` },
        ];
        const first = (await create(messages)).choices[0]!.message;
        expect(first.tool_calls).toHaveLength(1);
        messages.push(first);
        for (const call of first.tool_calls ?? [])
          messages.push({ role: "tool", tool_call_id: call.id, content: "Sunny" });
        const second = (await create(messages)).choices[0]!.message;
        expect(second.content).toBe("The weather: Sunny");
        messages.push(second);
        await create([...messages, { role: "user", content: "thanks" }]);
        const regenerated = await create([...messages, { role: "user", content: "thank you" }]);
        expect(regenerated.choices[0]?.message.content).toBe("Answer to thank you.");
        return e2e.provider.requests.slice(from);
      })();
      expect(sent).toHaveLength(4);
      expect(new Set(cacheKeys(sent)).size).toBe(1);
      const last = JSON.stringify(sent[3]?.body.input);
      expect(last).toContain("thank you");
      expect(last).not.toMatch(/"thanks"|Answer to thanks/);
      expect(shown(sent[3]).at(-1)).toBe("user:thank you");
    });

  it("a regenerate (the same last message resent) reruns it on the same key, the old answer gone", async () => {
    const from = e2e.provider.requests.length;
    const send = surfaces["chat completions"] as Surface;
    const history: Exchange[] = [];
    for (const ask of ["regen q1", "regen q2"]) history.push([ask, await send(history, ask, "native")]);
    await send(history.slice(0, 1), "regen q2", "native");
    const sent = e2e.provider.requests.slice(from);
    expect(new Set(cacheKeys(sent)).size).toBe(1);
    expect(shown(sent[2])).toEqual(["user:regen q1", "assistant:Answer to regen q1.", "user:regen q2"]);
  });
});

describe("kept edits off (the default): an edit starts a fresh thread", { timeout: 120_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_CODEX_WARM_THREADS: "0" });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("turn 3 edited: a new key, the edited history resent whole", async () => {
    const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    for (const ask of ["q1", "q2", "q3"]) {
      messages.push({ role: "user", content: ask });
      const r = await client.chat.completions.create({ model: MODEL, messages });
      messages.push(r.choices[0]!.message);
    }
    await client.chat.completions.create({
      model: MODEL,
      messages: [...messages.slice(0, 4), { role: "user", content: "q3 edited" }],
    });
    const keys = cacheKeys(e2e.provider.requests);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
    expect(shown(e2e.provider.requests[3])).toEqual([
      "user:q1",
      "assistant:Answer to q1.",
      "user:q2",
      "assistant:Answer to q2.",
      "user:q3 edited",
    ]);
  });
});
