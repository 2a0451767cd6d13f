import type { AssistantEvent } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { createMessageEncoder } from "../src/index.js";

const search = (id: string, query: string): AssistantEvent => ({
  type: "web-search",
  id,
  status: "completed",
  query,
  action: { type: "search", query },
});
const text = (delta: string): AssistantEvent => ({ type: "text-delta", delta });

const run = (events: ReadonlyArray<AssistantEvent>, thinking = true) => {
  const encoder = createMessageEncoder({ id: "msg_1", model: "m", thinking });
  return [{ type: "stream-start" } as AssistantEvent, ...events].flatMap((e) => encoder.push(e));
};

describe("Messages blocks of a hosted web search", () => {
  it("two searches: each a server_tool_use and a result block, the pages with the last; blocks indexed 0, 1, 2…", () => {
    const out = run([
      text("Let me look. "),
      search("ws_a", "first"),
      { type: "reasoning-delta", delta: "hmm" },
      search("ws_b", "second"),
      text("See [A](https://a.example/x)."),
      { type: "finish", finish: { reason: "stop", raw: "completed" } },
    ]);
    const starts = out.flatMap((e) => (e.type === "content_block_start" ? [[e.index, e.content_block]] : []));
    expect(starts.map(([i, b]) => [i, (b as { type: string }).type])).toEqual([
      [0, "text"],
      [1, "server_tool_use"],
      [2, "web_search_tool_result"],
      [3, "thinking"],
      [4, "server_tool_use"],
      [5, "web_search_tool_result"],
      [6, "text"],
      [7, "text"],
      [8, "text"],
    ]);
    expect(starts[2]?.[1]).toMatchObject({ tool_use_id: "srvtoolu_a", content: [] });
    expect(starts[5]?.[1]).toMatchObject({
      tool_use_id: "srvtoolu_b",
      content: [{ type: "web_search_result", url: "https://a.example/x", title: "A" }],
    });
    // Every started block is stopped before the next starts.
    const order = out.flatMap((e) =>
      e.type === "content_block_start"
        ? [`+${e.index}`]
        : e.type === "content_block_stop"
          ? [`-${e.index}`]
          : [],
    );
    for (let i = 0; i < order.length; i += 2)
      expect([order[i], order[i + 1]]).toEqual([`+${i / 2}`, `-${i / 2}`]);
    expect(out.at(-2)).toMatchObject({
      type: "message_delta",
      usage: { server_tool_use: { web_search_requests: 2 } },
    });
  });

  it("a tool call after the search releases the held result and text before the call", () => {
    const out = run([
      search("ws_1", "q"),
      text("Found https://b.example/ ok. "),
      { type: "tool-call-start", callId: "call_1", index: 0, id: "fc_1", name: "f" },
      { type: "tool-call-end", callId: "call_1", index: 0, id: "fc_1", name: "f", arguments: "{}" },
      { type: "finish", finish: { reason: "tool_calls", raw: "function_call" } },
    ]);
    const types = out.flatMap((e) => (e.type === "content_block_start" ? [e.content_block.type] : []));
    expect(types).toEqual(["server_tool_use", "web_search_tool_result", "text", "text", "text", "tool_use"]);
  });

  it("no search: no server_tool_use usage, and reasoning only with thinking enabled", () => {
    const out = run(
      [
        { type: "reasoning-delta", delta: "hmm" },
        text("hi"),
        { type: "finish", finish: { reason: "stop", raw: "completed" } },
      ],
      false,
    );
    expect(out.flatMap((e) => (e.type === "content_block_start" ? [e.content_block.type] : []))).toEqual([
      "text",
    ]);
    expect(JSON.stringify(out)).not.toContain("server_tool_use");
  });
});
