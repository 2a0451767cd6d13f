import type { BackendRequest, HostedTools } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../src/testing/index.js";
import {
  assistantMessage,
  collect,
  nativeRequest,
  type RealHarness,
  request,
  startRealHarness,
  textOf,
  userMessage,
} from "./helpers.js";

const run = (h: RealHarness, req: BackendRequest) =>
  collect(h.backend.stream(req, { signal: new AbortController().signal }));
const hostedTools = (r: RecordedRequest | undefined) =>
  ((r?.body.tools ?? []) as Array<{ type?: string }>).filter((t) => t.type !== "function");
const search: HostedTools = { webSearch: { tool: "web_search", param: "tools[0]" } };
const ANSWER = "Sunny, per [Yr](https://yr.no/oslo).";
const searched = {
  webSearches: [{ id: "ws_1", query: "weather oslo", sources: ["https://yr.no/oslo"] }],
  text: ANSWER,
};
const searchEvents = (events: ReadonlyArray<BackendEvent>) => events.filter((e) => e.type === "web-search");

describe("hosted web search through codex (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it("asked for: codex offers the provider's web_search, and the model's search comes back before the answer", async () => {
    const from = h.provider.requests.length;
    h.provider.script([searched]);
    const events = await run(h, request({ hostedTools: search, partition: "ws-a" }));
    // Pinned: what codex 0.169 sends the provider with `web_search = "live"`.
    expect(hostedTools(h.provider.requests[from])).toEqual([
      { type: "web_search", external_web_access: true },
    ]);
    expect(searchEvents(events)).toEqual([
      { type: "web-search", id: "ws_1", status: "in_progress" },
      {
        type: "web-search",
        id: "ws_1",
        status: "completed",
        query: "weather oslo",
        action: { type: "search", query: "weather oslo" },
      },
    ]);
    const types = events.map((e) => e.type);
    expect(types.lastIndexOf("web-search")).toBeLessThan(types.indexOf("text-delta"));
    expect(textOf(events)).toBe(ANSWER);
  });

  it("not asked for: never offered, and a thread with search is not continued by a turn without", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ text: "plain" }, searched, { text: "again" }]);
    await run(h, request({ input: [{ type: "text", text: "w1" }], partition: "ws-b" }));
    const history = [userMessage("w1"), assistantMessage("plain")];
    const next = { history, input: [{ type: "text" as const, text: "w2" }], partition: "ws-b" };
    await run(h, request({ ...next, hostedTools: search }));
    const history3 = [...history, userMessage("w2"), assistantMessage(ANSWER)];
    await run(
      h,
      request({
        history: history3,
        input: [{ type: "text", text: "w3" }],
        partition: "ws-b",
        hostedTools: search,
      }),
    );
    const sent = h.provider.requests.slice(from);
    expect(sent.map((r) => hostedTools(r).length)).toEqual([0, 1, 1]);
    const key = (r: RecordedRequest | undefined) => r?.body.prompt_cache_key;
    // Different thread configs: turn 2 starts a thread of its own; turn 3 continues it with search kept.
    expect(key(sent[1])).not.toBe(key(sent[0]));
    expect(key(sent[2])).toBe(key(sent[1]));
  });

  it("allowed domains and the context size reach the tool; native tool mode offers it beside the client's tools", async () => {
    const from = h.provider.requests.length;
    h.provider.script([searched]);
    const events = await run(
      h,
      nativeRequest({
        hostedTools: {
          webSearch: {
            tool: "web_search_20250305",
            param: "tools[1]",
            allowedDomains: ["yr.no"],
            contextSize: "high",
          },
        },
      }),
    );
    const sent = h.provider.requests[from];
    expect(hostedTools(sent)).toEqual([
      {
        type: "web_search",
        external_web_access: true,
        filters: { allowed_domains: ["yr.no"] },
        search_context_size: "high",
      },
    ]);
    expect(((sent?.body.tools ?? []) as Array<{ name?: string }>).some((t) => t.name === "get_weather")).toBe(
      true,
    );
    expect(searchEvents(events).at(-1)).toMatchObject({ status: "completed", query: "weather oslo" });
    expect(textOf(events)).toBe(ANSWER);
  });
});
