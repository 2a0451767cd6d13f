import Anthropic from "@anthropic-ai/sdk";
import { type Content, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { fn, itemsOf } from "./native-support.js";

const MODEL = "e2e-model";
const PARAMS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const native = { "x-proxy-tool-mode": "native" };

/** Calls get_weather (a new call id per request) until it was shown two results, then answers. */
const model = (r: RecordedRequest): ScriptedResponse => {
  const outputs = itemsOf(r).flatMap((i) => (i.type === "function_call_output" ? [String(i.output)] : []));
  if (outputs.length < 2)
    return {
      chunks: ["Checking."],
      items: [fn(`call_${r.index}`, "get_weather", { city: "Paris" })],
      itemsLast: true,
    };
  return { text: `Planned with ${outputs.join(" / ")} (#${r.index}).` };
};

/** What the model provider was shown: messages, calls and their outputs, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  (r ? itemsOf(r) : []).flatMap((i) => {
    if (i.type === "message" && (i.role === "user" || i.role === "assistant"))
      return [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`];
    if (i.type === "function_call") return [`call:${i.call_id}`];
    if (i.type === "function_call_output") return [`output:${i.call_id}=${String(i.output)}`];
    return [];
  });

/**
 * A client's side of one native tool conversation in its own wire shapes: `send` posts the
 * conversation so far (a regenerate is a second `send` of the same one), `keep` appends the reply
 * as the client would, `answer` appends the results of its calls.
 */
interface Session<R> {
  send(): Promise<R>;
  callsOf(reply: R): string[];
  textOf(reply: R): string;
  keep(reply: R): void;
  answer(reply: R, output: string): void;
  /** The conversation so far, to go back to. */
  mark(): () => void;
}

const openSession = <R, M>(
  messages: M[],
  send: (messages: M[]) => Promise<R>,
  parts: {
    calls(reply: R): Array<{ id: string; name: string }>;
    text(reply: R): string;
    kept(reply: R): M[];
    result(call: { id: string; name: string }, output: string): M;
  },
): Session<R> => ({
  send: () => send([...messages]),
  callsOf: (reply) => parts.calls(reply).map((c) => c.id),
  textOf: parts.text,
  keep: (reply) => messages.push(...parts.kept(reply)),
  answer: (reply, output) => messages.push(...parts.calls(reply).map((c) => parts.result(c, output))),
  mark() {
    const length = messages.length;
    return () => messages.splice(length);
  },
});

describe("kept edits inside a native tool loop at the wire: real SDKs → gateway → real codex", {
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

  const sessions: Record<string, (ask: string) => Session<unknown>> = {
    "chat completions": (ask) =>
      openSession<OpenAI.ChatCompletion, OpenAI.ChatCompletionMessageParam>(
        [{ role: "user", content: ask }],
        (messages) =>
          openai.chat.completions.create(
            {
              model: MODEL,
              messages,
              tools: [{ type: "function", function: { name: "get_weather", parameters: PARAMS } }],
            },
            { headers: native },
          ),
        {
          calls: (r) =>
            (r.choices[0]?.message.tool_calls ?? []).flatMap((c) =>
              c.type === "function" ? [{ id: c.id, name: c.function.name }] : [],
            ),
          text: (r) => r.choices[0]?.message.content ?? "",
          kept: (r) => [r.choices[0]?.message as OpenAI.ChatCompletionMessageParam],
          result: (call, output) => ({ role: "tool", tool_call_id: call.id, content: output }),
        },
      ) as Session<unknown>,
    responses: (ask) =>
      openSession<OpenAI.Responses.Response, OpenAI.Responses.ResponseInputItem>(
        [{ role: "user", content: ask }],
        (input) =>
          openai.responses.create(
            {
              model: MODEL,
              input,
              store: false,
              tools: [{ type: "function", name: "get_weather", parameters: PARAMS, strict: false }],
            },
            { headers: native },
          ),
        {
          calls: (r) =>
            r.output.flatMap((i) => (i.type === "function_call" ? [{ id: i.call_id, name: i.name }] : [])),
          text: (r) => r.output_text,
          kept: (r) => r.output as OpenAI.Responses.ResponseInputItem[],
          result: (call, output) => ({ type: "function_call_output", call_id: call.id, output }),
        },
      ) as Session<unknown>,
    "anthropic messages": (ask) =>
      openSession<Anthropic.Message, Anthropic.MessageParam>(
        [{ role: "user", content: ask }],
        (messages) =>
          anthropic.messages.create(
            {
              model: MODEL,
              max_tokens: 512,
              messages,
              tools: [{ name: "get_weather", input_schema: PARAMS as Anthropic.Tool.InputSchema }],
            },
            { headers: native },
          ),
        {
          calls: (r) => r.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name }] : [])),
          text: (r) => r.content.map((b) => (b.type === "text" ? b.text : "")).join(""),
          kept: (r) => [{ role: "assistant", content: r.content }],
          result: (call, output) => ({
            role: "user",
            content: [{ type: "tool_result", tool_use_id: call.id, content: output }],
          }),
        },
      ) as Session<unknown>,
    gemini: (ask) =>
      openSession<Awaited<ReturnType<GoogleGenAI["models"]["generateContent"]>>, Content>(
        [{ role: "user", parts: [{ text: ask }] }],
        (contents) =>
          gemini.models.generateContent({
            model: MODEL,
            contents,
            config: {
              tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: PARAMS }] }],
              httpOptions: { headers: native },
            },
          }),
        {
          calls: (r) => (r.functionCalls ?? []).map((c) => ({ id: c.id ?? "", name: c.name ?? "" })),
          text: (r) =>
            (r.candidates?.[0]?.content?.parts ?? [])
              .map((p) => (p.functionCall ? "" : (p.text ?? "")))
              .join(""),
          kept: (r) => [r.candidates?.[0]?.content as Content],
          result: (call, output) => ({
            role: "user",
            parts: [{ functionResponse: { id: call.id, name: call.name, response: { output } } }],
          }),
        },
      ) as Session<unknown>,
  };

  for (const [name, open] of Object.entries(sessions))
    it(`${name}: a step rerun while the loop waits on a call, then the answer after the last result regenerated: one key, exactly the edited history`, async () => {
      const from = e2e.provider.requests.length;
      const s = open(`${name}: plan a trip to Paris`);
      const first = await s.send(); // calls get_weather
      s.keep(first);
      s.answer(first, "22C");
      const afterFirst = s.mark();
      const abandoned = await s.send(); // calls it again: codex's turn waits on that call
      const rerun = await s.send(); // the client regenerates that step: a new call
      expect(s.callsOf(rerun)).toHaveLength(1);
      expect(s.callsOf(rerun)).not.toEqual(s.callsOf(abandoned));
      s.keep(rerun);
      s.answer(rerun, "booked");
      const answer = await s.send();
      const regenerated = await s.send(); // the final answer after the last result, regenerated
      expect(s.textOf(regenerated)).toMatch(/^Planned with 22C \/ booked \(#\d+\)\.$/);
      expect(s.textOf(regenerated)).not.toBe(s.textOf(answer));
      // The client goes back to the branch it left, answering that step's call.
      afterFirst();
      s.keep(abandoned);
      s.answer(abandoned, "rain");
      await s.send();

      const sent = e2e.provider.requests.slice(from);
      expect(sent).toHaveLength(6);
      expect(new Set(sent.slice(0, 5).map((r) => r.body.prompt_cache_key)).size).toBe(1);
      // A rerun request is shown exactly what the same request was shown the first time.
      expect(shown(sent[2])).toEqual(shown(sent[1]));
      expect(shown(sent[4])).toEqual(shown(sent[3]));
      const [firstCall, secondCall] = [sent[0], sent[2]].map((r) => `call_${r?.index}`);
      const loop = [
        `user:${name}: plan a trip to Paris`,
        "assistant:Checking.",
        `call:${firstCall}`,
        `output:${firstCall}=22C`,
      ];
      expect(shown(sent[2])).toEqual(loop);
      expect(shown(sent[4])).toEqual([
        ...loop,
        "assistant:Checking.",
        `call:${secondCall}`,
        `output:${secondCall}=booked`,
      ]);
      const abandonedCall = `call_${sent[1]?.index}`;
      expect(shown(sent[5])).toEqual([
        ...loop,
        "assistant:Checking.",
        `call:${abandonedCall}`,
        `output:${abandonedCall}=rain`,
      ]);
      for (const r of sent)
        expect(JSON.stringify(r.body.input)).not.toMatch(/turn_aborted|cancelled before receiving/);
    });
});
