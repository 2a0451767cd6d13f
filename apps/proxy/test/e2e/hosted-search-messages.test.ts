import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { hostedToolsOf, SEARCH_ANSWER, SEARCH_QUERY, searchingModel } from "./hosted-search-support.js";

const results = [
  {
    type: "web_search_result",
    url: "https://www.yr.no/oslo",
    title: "Yr",
    encrypted_content: "",
    page_age: null,
  },
  {
    type: "web_search_result",
    url: "https://www.met.no/en",
    title: "Met Norway",
    encrypted_content: "",
    page_age: null,
  },
];
const cite = (written: string, url: string, title: string) => ({
  type: "text",
  text: written,
  citations: [{ type: "web_search_result_location", url, title, encrypted_index: "", cited_text: written }],
});
/** The answer as Anthropic cuts it: plain runs, and each cited link a block with its citation. */
const answerBlocks = [
  { type: "text", text: "Oslo is sunny today, per " },
  cite("[Yr](https://www.yr.no/oslo)", "https://www.yr.no/oslo", "Yr"),
  { type: "text", text: " and " },
  cite("[Met Norway](https://www.met.no/en)", "https://www.met.no/en", "Met Norway"),
  { type: "text", text: ". Yr again: " },
  cite("https://www.yr.no/oslo", "https://www.yr.no/oslo", "www.yr.no"),
  { type: "text", text: "." },
];
const webSearch = { type: "web_search_20250305", name: "web_search", max_uses: 5 } as const;
const weather = { name: "get_weather", input_schema: { type: "object" as const, properties: {} } };

describe.each(["prompt", "native"] as const)(
  "Messages hosted web search through codex (%s tool mode)",
  (mode) => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    let client: Anthropic;
    beforeAll(async () => {
      e2e = await startE2E(searchingModel, { PROXY_TOOL_MODE: mode === "native" ? "auto" : "prompt" });
      client = new Anthropic({ baseURL: e2e.url, apiKey: "sk-e2e", maxRetries: 0 });
    }, 60_000);
    afterAll(() => e2e?.close());

    const ask = {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [{ role: "user" as const, content: "Weather in Oslo?" }],
      tools: [webSearch, weather],
    };

    it("server_tool_use and web_search_tool_result before the cited text, and the search counted in usage", async () => {
      const message = await client.messages.create(ask);
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([
        { type: "web_search", external_web_access: true },
      ]);
      const [search, result, ...text] = message.content;
      expect(search).toEqual({
        type: "server_tool_use",
        id: expect.stringMatching(/^srvtoolu_/),
        name: "web_search",
        input: { query: SEARCH_QUERY },
      });
      expect(result).toEqual({
        type: "web_search_tool_result",
        tool_use_id: search?.type === "server_tool_use" && search.id,
        content: results,
      });
      expect(text).toEqual(answerBlocks);
      expect(text.map((b) => (b.type === "text" ? b.text : "")).join("")).toBe(SEARCH_ANSWER);
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
      expect(message.stop_reason).toBe("end_turn");
    });

    it("streamed as Anthropic streams it: the SDK's final message is the same, with citations_delta events", async () => {
      const stream = client.messages.stream({ ...ask, thinking: { type: "enabled", budget_tokens: 1024 } });
      const deltas: string[] = [];
      stream.on("streamEvent", (e) => {
        if (e.type === "content_block_delta") deltas.push(e.delta.type);
        if (e.type === "content_block_start") deltas.push(`start:${e.content_block.type}`);
      });
      const message = await stream.finalMessage();
      expect(message.content.map((b) => b.type)).toEqual([
        "thinking",
        "server_tool_use",
        "web_search_tool_result",
        ...answerBlocks.map(() => "text"),
      ]);
      expect(message.content.slice(3)).toEqual(answerBlocks);
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
      expect(deltas.filter((d) => d === "citations_delta")).toHaveLength(3);
      expect(deltas.indexOf("start:web_search_tool_result")).toBeLessThan(deltas.indexOf("text_delta"));
    });

    it("without the server tool: never offered, no search blocks, no server_tool_use usage", async () => {
      const message = await client.messages.create({ ...ask, tools: [weather] });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([]);
      expect(message.content).toEqual([{ type: "text", text: "no search" }]);
      expect(message.usage.server_tool_use).toBeUndefined();
    });
  },
);
