import { Agent, OpenAIProvider, Runner, setTracingDisabled, webSearchTool } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { hostedToolsOf, SEARCH_ANSWER, SEARCH_QUERY, searchingModel } from "./hosted-search-support.js";

/** Each link of the answer, where it is written (the bare URL without its full stop). */
const at = (written: string, url: string, title: string, from = 0) => {
  const start = SEARCH_ANSWER.indexOf(written, from);
  return { type: "url_citation", start_index: start, end_index: start + written.length, url, title };
};
const citations = [
  at("[Yr](https://www.yr.no/oslo)", "https://www.yr.no/oslo", "Yr"),
  at("[Met Norway](https://www.met.no/en)", "https://www.met.no/en", "Met Norway"),
  at("https://www.yr.no/oslo", "https://www.yr.no/oslo", "www.yr.no", SEARCH_ANSWER.indexOf("again")),
];

describe.each(["prompt", "native"] as const)(
  "Responses hosted web search through codex (%s tool mode)",
  (mode) => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    let client: OpenAI;
    beforeAll(async () => {
      e2e = await startE2E(searchingModel, { PROXY_TOOL_MODE: mode === "native" ? "auto" : "prompt" });
      client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
    }, 60_000);
    afterAll(() => e2e?.close());

    const tools: OpenAI.Responses.Tool[] = [
      { type: "web_search" },
      {
        type: "function",
        name: "get_weather",
        parameters: { type: "object", properties: {} },
        strict: false,
      },
    ];

    it("responses.create with web_search: codex offers the model its search, the call and the cited pages come back", async () => {
      const res = await client.responses.create({ model: "e2e-model", input: "Weather in Oslo?", tools });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([
        { type: "web_search", external_web_access: true },
      ]);
      const [reasoning, search, message] = res.output;
      expect(reasoning?.type).toBe("reasoning");
      expect(search).toEqual({
        type: "web_search_call",
        id: expect.stringMatching(/^ws_/),
        status: "completed",
        action: { type: "search", query: SEARCH_QUERY },
      });
      expect(message?.type === "message" && message.content).toEqual([
        { type: "output_text", text: SEARCH_ANSWER, annotations: citations, logprobs: [] },
      ]);
      expect(res.output_text).toBe(SEARCH_ANSWER);
    });

    it("streamed: the web_search_call item with its events in order, annotations before the text is done", async () => {
      const stream = await client.responses.create({
        model: "e2e-model",
        input: "Weather in Oslo?",
        tools,
        stream: true,
      });
      const types: string[] = [];
      let final: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.completed") final = event.response;
      }
      const search = types.slice(types.indexOf("response.reasoning_summary_part.done") + 1);
      expect(search.slice(0, 7)).toEqual([
        "response.output_item.done",
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
        "response.output_item.added",
      ]);
      const annotations = types.filter((t) => t === "response.output_text.annotation.added");
      expect(annotations).toHaveLength(3);
      expect(types.indexOf("response.output_text.annotation.added")).toBeLessThan(
        types.indexOf("response.output_text.done"),
      );
      expect(final?.output[1]).toMatchObject({
        type: "web_search_call",
        status: "completed",
        action: { query: SEARCH_QUERY },
      });
      const message = final?.output[2];
      expect(message?.type === "message" && message.content[0]).toMatchObject({ annotations: citations });
    });

    it("the Agents SDK's webSearchTool(): its run sees the web_search_call item, then the cited answer", async () => {
      setTracingDisabled(true);
      const agent = new Agent({
        name: "searcher",
        instructions: "Answer.",
        model: "e2e-model",
        tools: [webSearchTool()],
      });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
      });
      const result = await runner.run(agent, "Weather in Oslo?");
      // webSearchTool() sends `search_context_size: "medium"`, which reaches the model's tool.
      const sent = e2e.provider.requests.at(-1);
      expect(hostedToolsOf(sent)).toEqual([
        { type: "web_search", external_web_access: true, search_context_size: "medium" },
      ]);
      expect(result.finalOutput).toBe(SEARCH_ANSWER);
      const items = result.newItems.map(
        (i) => i.rawItem as { type?: string; name?: string; status?: string },
      );
      expect(items.find((i) => i.type === "hosted_tool_call")).toMatchObject({
        name: "web_search_call",
        status: "completed",
      });
    });

    it("a request without web_search never gets it, and its answer has no annotations", async () => {
      const res = await client.responses.create({ model: "e2e-model", input: "Hi", tools: tools.slice(1) });
      expect(hostedToolsOf(e2e.provider.requests.at(-1))).toEqual([]);
      expect(res.output.map((o) => o.type)).toEqual(["message"]);
      expect(res.output_text).toBe("no search");
    });
  },
);
