import Anthropic from "@anthropic-ai/sdk";
import { type Content, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E, toolCallText } from "./e2e-gateway.js";
import { askOf, fn, itemsOf } from "./native-support.js";

const KEY_A = "continuity-key-a";
const KEY_B = "continuity-key-b";
const MODEL = "e2e-model";
type Mode = "native" | "prompt";

/**
 * Calls get_weather when asked about weather, answers a tool result, and otherwise says welcome.
 * Each response reports `cached = its request index` input tokens: a turn's own usage is recognisable.
 */
const model = (r: RecordedRequest): ScriptedResponse => ({
  ...answer(r),
  usage: { inputTokens: 1_000 + r.index, outputTokens: 5, cachedInputTokens: r.index },
});
const answer = (r: RecordedRequest): ScriptedResponse => {
  const native = ((r.body.tools ?? []) as unknown[]).length > 0;
  const last = itemsOf(r).at(-1);
  if (last?.type === "function_call_output") return { chunks: ["The weather: ", String(last.output)] };
  const ask = askOf(r);
  const result = /\[function_call_output call_id="[^"]*" output=("(?:[^"\\]|\\.)*")\]/.exec(ask);
  if (result) return { chunks: ["The weather: ", JSON.parse(result[1] ?? '""') as string] };
  if (/weather/i.test(ask))
    // Words before the call: in prompt mode the client's echo re-renders them joined by a newline.
    return native
      ? {
          chunks: ["Let me check. "],
          items: [fn(`call_${r.index}`, "get_weather", { city: "Paris" })],
          itemsLast: true,
        }
      : { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: `You're welcome (${ask}).` };
};

const cacheKeys = (requests: ReadonlyArray<RecordedRequest>) => requests.map((r) => r.body.prompt_cache_key);
/** The conversation the model provider was shown: message texts and tool items, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  (r ? itemsOf(r) : []).flatMap((i) => {
    if (i.type === "message" && (i.role === "user" || i.role === "assistant"))
      return [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`];
    if (i.type === "function_call") return [`call:${i.name}`];
    if (i.type === "function_call_output") return [`output:${String(i.output)}`];
    return [];
  });

const PARAMS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const modeHeaders = (mode: Mode) => ({ "x-proxy-tool-mode": mode });

describe("conversation continuity at the wire: real SDKs → gateway → real codex → recording provider", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let gemini: GoogleGenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, {
      PROXY_API_KEYS: `${KEY_A},${KEY_B}`,
      PROXY_STORE: "memory",
      PROXY_CODEX_WARM_THREADS: "0",
    });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY_A, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: e2e.url, apiKey: KEY_A, maxRetries: 0 });
    gemini = new GoogleGenAI({ apiKey: KEY_A, httpOptions: { baseUrl: e2e.url } });
  }, 60_000);
  afterAll(() => e2e?.close());

  /** Runs `session` and returns the provider requests it caused. */
  /** The cached input tokens the provider reported for the latest request. */
  const lastCached = () => e2e.provider.requests.at(-1)?.index;
  const recorded = async (session: () => Promise<void>) => {
    const from = e2e.provider.requests.length;
    await session();
    return e2e.provider.requests.slice(from);
  };

  const chatSession =
    (mode: Mode, client = openai) =>
    async () => {
      const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: PARAMS } }];
      const headers = modeHeaders(mode);
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
      const first = (await client.chat.completions.create({ model: MODEL, messages, tools }, { headers }))
        .choices[0]!.message;
      expect(first.tool_calls).toHaveLength(1);
      messages.push(first);
      for (const call of first.tool_calls ?? [])
        messages.push({ role: "tool", tool_call_id: call.id, content: "Sunny" });
      const second = (await client.chat.completions.create({ model: MODEL, messages, tools }, { headers }))
        .choices[0]!.message;
      expect(second.content).toBe("The weather: Sunny");
      messages.push(second, { role: "user", content: "thanks" });
      const third = await client.chat.completions.create({ model: MODEL, messages, tools }, { headers });
      expect(third.choices[0]!.message.content).toBe("You're welcome (thanks).");
      expect(third.usage?.prompt_tokens_details?.cached_tokens).toBe(lastCached());
    };

  const responsesSession = (mode: Mode) => async () => {
    const tools = [{ type: "function" as const, name: "get_weather", parameters: PARAMS, strict: false }];
    const headers = modeHeaders(mode);
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await openai.responses.create({ model: MODEL, input, tools, store: false }, { headers });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]));
    for (const item of first.output)
      if (item.type === "function_call")
        input.push({ type: "function_call_output", call_id: item.call_id, output: "Sunny" });
    const second = await openai.responses.create({ model: MODEL, input, tools, store: false }, { headers });
    expect(second.output_text).toBe("The weather: Sunny");
    input.push(...(second.output as OpenAI.Responses.ResponseInputItem[]), {
      role: "user",
      content: "thanks",
    });
    const third = await openai.responses.create({ model: MODEL, input, tools, store: false }, { headers });
    expect(third.output_text).toBe("You're welcome (thanks).");
    expect(third.usage?.input_tokens_details.cached_tokens).toBe(lastCached());
  };

  const storedResponsesSession = (mode: Mode) => async () => {
    const tools = [{ type: "function" as const, name: "get_weather", parameters: PARAMS, strict: false }];
    const headers = modeHeaders(mode);
    const first = await openai.responses.create(
      { model: MODEL, input: "Weather in Paris?", tools },
      { headers },
    );
    const call = first.output.find((i) => i.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function_call");
    const second = await openai.responses.create(
      {
        model: MODEL,
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "Sunny" }],
        tools,
      },
      { headers },
    );
    expect(second.output_text).toBe("The weather: Sunny");
    const third = await openai.responses.create(
      { model: MODEL, previous_response_id: second.id, input: "thanks", tools },
      { headers },
    );
    expect(third.output_text).toBe("You're welcome (thanks).");
  };

  /** Responses `conversation`: the stored conversation grows by each turn's input and output. */
  const conversationSession = (mode: Mode) => async () => {
    const tools = [{ type: "function" as const, name: "get_weather", parameters: PARAMS, strict: false }];
    const headers = modeHeaders(mode);
    const conversation = (await openai.conversations.create({})).id;
    const first = await openai.responses.create(
      { model: MODEL, conversation, input: "Weather in Paris?", tools },
      { headers },
    );
    const call = first.output.find((i) => i.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function_call");
    const second = await openai.responses.create(
      {
        model: MODEL,
        conversation,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "Sunny" }],
        tools,
      },
      { headers },
    );
    expect(second.output_text).toBe("The weather: Sunny");
    const third = await openai.responses.create(
      { model: MODEL, conversation, input: "thanks", tools },
      { headers },
    );
    expect(third.output_text).toBe("You're welcome (thanks).");
  };

  /** Claude Code's way: the cache_control marker moves to the newest message every turn. */
  const messagesSession = (mode: Mode) => async () => {
    const tools: Anthropic.Tool[] = [
      { name: "get_weather", input_schema: PARAMS as Anthropic.Tool.InputSchema },
    ];
    const headers = modeHeaders(mode);
    const marker = { type: "ephemeral" as const };
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: [{ type: "text", text: "Weather in Paris?", cache_control: marker }] },
    ];
    const ask = () =>
      anthropic.messages.create({ model: MODEL, max_tokens: 512, messages, tools }, { headers });
    const first = await ask();
    const call = first.content.find((b) => b.type === "tool_use");
    if (call?.type !== "tool_use") throw new Error("no tool_use");
    messages[0] = { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] };
    messages.push(
      { role: "assistant", content: first.content },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny", cache_control: marker }],
      },
    );
    const second = await ask();
    expect(second.content[0]).toMatchObject({ type: "text", text: "The weather: Sunny" });
    messages[2] = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny" }],
    };
    messages.push(
      { role: "assistant", content: second.content },
      { role: "user", content: [{ type: "text", text: "thanks", cache_control: marker }] },
    );
    const third = await ask();
    expect(third.content[0]).toMatchObject({ type: "text", text: "You're welcome (thanks)." });
    expect(third.usage.cache_read_input_tokens).toBe(lastCached());
  };

  const geminiSession = (mode: Mode) => async () => {
    const config = {
      tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: PARAMS }] }],
      httpOptions: { headers: modeHeaders(mode) },
    };
    const contents: Content[] = [{ role: "user", parts: [{ text: "Weather in Paris?" }] }];
    const first = await gemini.models.generateContent({ model: MODEL, contents, config });
    const calls = first.functionCalls ?? [];
    expect(calls).toHaveLength(1);
    contents.push(first.candidates![0]!.content!, {
      role: "user",
      parts: calls.map((c) => ({
        functionResponse: { id: c.id ?? "", name: c.name ?? "", response: { output: "Sunny" } },
      })),
    });
    const second = await gemini.models.generateContent({ model: MODEL, contents, config });
    expect(second.text).toBe("The weather: Sunny");
    contents.push(second.candidates![0]!.content!, { role: "user", parts: [{ text: "thanks" }] });
    const third = await gemini.models.generateContent({ model: MODEL, contents, config });
    expect(third.text).toBe("You're welcome (thanks).");
    expect(third.usageMetadata?.cachedContentTokenCount).toBe(lastCached());
  };

  const sessions = {
    "chat completions": chatSession,
    responses: responsesSession,
    "responses via previous_response_id": storedResponsesSession,
    "responses via conversation": conversationSession,
    "anthropic messages (moving cache_control)": messagesSession,
    gemini: geminiSession,
  };
  for (const mode of ["native", "prompt"] as const)
    for (const [name, session] of Object.entries(sessions))
      it(`${name}, ${mode} mode: one prompt_cache_key over a linear tool session`, async () => {
        const sent = await recorded(session(mode));
        expect(sent).toHaveLength(3);
        expect(new Set(cacheKeys(sent)).size).toBe(1);
      });

  it("an edited history gets a fresh key, and the provider sees exactly the edited history", async () => {
    const headers = modeHeaders("native");
    const sent = await recorded(async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "hello" }];
      const first = await openai.chat.completions.create({ model: MODEL, messages }, { headers });
      messages.push(first.choices[0]!.message, { role: "user", content: "again" });
      await openai.chat.completions.create({ model: MODEL, messages }, { headers });
      // The client regenerates: its own version of the assistant's first answer.
      messages[1] = { role: "assistant", content: "An answer the model never gave." };
      await openai.chat.completions.create({ model: MODEL, messages }, { headers });
    });
    const keys = cacheKeys(sent);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(shown(sent[2])).toEqual(["user:hello", "assistant:An answer the model never gave.", "user:again"]);
  });

  it("two callers with the very same conversation never share a thread", async () => {
    const other = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY_B, maxRetries: 0 });
    const headers = modeHeaders("native");
    const sent = await recorded(async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "shared" }];
      const first = await openai.chat.completions.create({ model: MODEL, messages }, { headers });
      messages.push(first.choices[0]!.message, { role: "user", content: "next" });
      await other.chat.completions.create({ model: MODEL, messages }, { headers });
    });
    const keys = cacheKeys(sent);
    expect(keys[1]).not.toBe(keys[0]);
    expect(shown(sent[1])).toEqual(["user:shared", "assistant:You're welcome (shared).", "user:next"]);
  });

  it("two requests continuing one conversation at once: exactly one continues it", async () => {
    const headers = modeHeaders("native");
    const sent = await recorded(async () => {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "fork" }];
      const first = await openai.chat.completions.create({ model: MODEL, messages }, { headers });
      messages.push(first.choices[0]!.message, { role: "user", content: "both" });
      await Promise.all(
        [1, 2].map(() => openai.chat.completions.create({ model: MODEL, messages }, { headers })),
      );
    });
    const keys = cacheKeys(sent);
    expect(keys.slice(1).filter((k) => k === keys[0])).toHaveLength(1);
    for (const r of sent.slice(1))
      expect(shown(r)).toEqual(["user:fork", "assistant:You're welcome (fork).", "user:both"]);
  });
});

describe("continuity off (PROXY_CODEX_CONTINUITY=false): a new key per request", { timeout: 120_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_CODEX_CONTINUITY: "false", PROXY_CODEX_WARM_THREADS: "0" });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("three turns, three keys", async () => {
    const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "one" }];
    for (const next of ["two", "three"]) {
      const r = await client.chat.completions.create({ model: MODEL, messages });
      messages.push(r.choices[0]!.message, { role: "user", content: next });
    }
    await client.chat.completions.create({ model: MODEL, messages });
    expect(new Set(cacheKeys(e2e.provider.requests)).size).toBe(3);
  });
});
