import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { hostedToolsOf, SEARCH_ANSWER, SEARCH_QUERY, searchingModel } from "./hosted-search-support.js";

const KEY = "sk-e2e-hosted";
const bytes = (s: string) => new TextEncoder().encode(s).length;
/** A link of the answer, where it is written (UTF-16 offsets for OpenAI, UTF-8 bytes for Google). */
const linkAt = (written: string, from = 0) => {
  const start = SEARCH_ANSWER.indexOf(written, from);
  return { start, end: start + written.length, written };
};
const LINKS = [
  { ...linkAt("[Yr](https://www.yr.no/oslo)"), url: "https://www.yr.no/oslo", title: "Yr", chunk: 0 },
  {
    ...linkAt("[Met Norway](https://www.met.no/en)"),
    url: "https://www.met.no/en",
    title: "Met Norway",
    chunk: 1,
  },
  {
    ...linkAt("https://www.yr.no/oslo", SEARCH_ANSWER.indexOf("again")),
    url: "https://www.yr.no/oslo",
    title: "www.yr.no",
    chunk: 0,
  },
];
const grounding = {
  webSearchQueries: [SEARCH_QUERY],
  groundingChunks: [
    { web: { uri: "https://www.yr.no/oslo", title: "Yr" } },
    { web: { uri: "https://www.met.no/en", title: "Met Norway" } },
  ],
  groundingSupports: LINKS.map((l) => ({
    segment: {
      startIndex: bytes(SEARCH_ANSWER.slice(0, l.start)),
      endIndex: bytes(SEARCH_ANSWER.slice(0, l.end)),
      text: l.written,
    },
    groundingChunkIndices: [l.chunk],
  })),
};
const annotations = LINKS.map((l) => ({
  type: "url_citation",
  url_citation: { start_index: l.start, end_index: l.end, url: l.url, title: l.title },
}));

describe.each(["prompt", "native"] as const)(
  "Gemini and Chat hosted web search through codex (%s tool mode)",
  (mode) => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    let ai: GoogleGenAI;
    let openai: OpenAI;
    beforeAll(async () => {
      e2e = await startE2E(searchingModel, {
        PROXY_TOOL_MODE: mode === "native" ? "auto" : "prompt",
        PROXY_API_KEYS: KEY,
      });
      ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: e2e.url } });
      openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
    }, 60_000);
    afterAll(() => e2e?.close());

    const weather = {
      functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object" } }],
    };

    it("Gemini generateContent with googleSearch: the answer is grounded (queries, pages, supports)", async () => {
      const res = await ai.models.generateContent({
        model: "e2e-model",
        contents: "Weather in Oslo?",
        config: { tools: [{ googleSearch: {} }, weather] },
      });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([
        { type: "web_search", external_web_access: true },
      ]);
      expect(res.text).toBe(SEARCH_ANSWER);
      expect(res.candidates?.[0]?.groundingMetadata).toEqual(grounding);
    });

    it("Gemini by its proto name google_search (the REST wire, as curl sends it)", async () => {
      const res = await fetch(`${e2e.url}/v1beta/models/e2e-model:generateContent`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": KEY },
        body: JSON.stringify({
          contents: [{ role: "user", parts: [{ text: "Weather?" }] }],
          tools: [{ google_search: {} }],
        }),
      });
      const body = (await res.json()) as { candidates: Array<{ groundingMetadata?: unknown }> };
      expect(res.status).toBe(200);
      expect(body.candidates[0]?.groundingMetadata).toEqual(grounding);
    });

    it("Gemini streamed: the last chunk carries the grounding", async () => {
      const stream = await ai.models.generateContentStream({
        model: "e2e-model",
        contents: "Weather in Oslo?",
        config: { tools: [{ googleSearch: {} }] },
      });
      let text = "";
      const grounded = [];
      for await (const chunk of stream) {
        text += chunk.text ?? "";
        if (chunk.candidates?.[0]?.groundingMetadata) grounded.push(chunk.candidates[0].groundingMetadata);
      }
      expect(text).toBe(SEARCH_ANSWER);
      expect(grounded).toEqual([grounding]);
    });

    it("Gemini without googleSearch: never offered, no grounding", async () => {
      const res = await ai.models.generateContent({
        model: "e2e-model",
        contents: "Hi",
        config: { tools: [weather] },
      });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([]);
      expect(res.text).toBe("no search");
      expect(res.candidates?.[0]?.groundingMetadata).toBeUndefined();
    });

    it("Chat with web_search_options: url_citation annotations on the message, streamed and not", async () => {
      const ask = {
        model: "e2e-model",
        messages: [{ role: "user" as const, content: "Weather in Oslo?" }],
        web_search_options: { search_context_size: "high" as const },
      };
      const res = await openai.chat.completions.create(ask);
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([
        { type: "web_search", external_web_access: true, search_context_size: "high" },
      ]);
      expect(res.choices[0]?.message.content).toBe(SEARCH_ANSWER);
      expect(res.choices[0]?.message.annotations).toEqual(annotations);
      const final = await openai.chat.completions.stream(ask).finalChatCompletion();
      expect(final.choices[0]?.message.content).toBe(SEARCH_ANSWER);
      expect(final.choices[0]?.message.annotations).toEqual(annotations);
    });

    it("Chat without web_search_options: never offered, no annotations", async () => {
      const res = await openai.chat.completions.create({
        model: "e2e-model",
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([]);
      expect(res.choices[0]?.message.content).toBe("no search");
      expect(res.choices[0]?.message.annotations).toBeUndefined();
    });
  },
);
