import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isUnreadLine, keptParams } from "../src/turn/kept-notifications.js";

/**
 * The first 256 characters of each notification codex 0.169 wrote for a native turn on a fresh
 * thread with raw events (history of a message, a call and its output; input text and an image;
 * reasoning, a call and text in the answer), with what the turn reads of each.
 */
const heads = JSON.parse(
  readFileSync(new URL("./fixtures/codex-0.169-line-heads.json", import.meta.url), "utf8"),
) as Array<{ readonly unread: boolean; readonly head: string }>;

describe("what a turn keeps of codex's notifications", () => {
  it("skips the echoes from their first characters: the user's input, raw items other than calls", () => {
    expect(heads.filter((h) => h.unread)).toHaveLength(7);
    for (const { unread, head } of heads) expect([isUnreadLine(head), head]).toEqual([unread, head]);
    // A completed item is skipped unless it is a hosted web search (its query comes only then).
    expect(
      isUnreadLine('{"method":"item/completed","params":{"item":{"type":"agentMessage","text":"…"'),
    ).toBe(true);
    expect(
      isUnreadLine('{"method":"item/completed","params":{"item":{"type":"webSearch","id":"ws_1","query":"q"'),
    ).toBe(false);
    // A function call's raw item is the call itself: kept, also when it is the history's.
    expect(
      isUnreadLine(
        '{"method":"rawResponseItem/completed","params":{"threadId":"t","turnId":"auto-compact-0","item":{"type":"function_call","id":"fc_1"',
      ),
    ).toBe(false);
  });

  it("keeps only what the mapper reads: a long answer in turn/completed, arguments in item/started are let go", () => {
    const answer = "x".repeat(1000);
    expect(
      keptParams("turn/completed", {
        threadId: "th",
        turn: { id: "tu", items: [{ type: "agentMessage", text: answer }], status: "completed", error: null },
      }),
    ).toEqual({ turn: { id: "tu", status: "completed", error: null } });
    expect(
      keptParams("item/started", {
        threadId: "th",
        turnId: "tu",
        item: { type: "dynamicToolCall", arguments: { content: answer } },
      }),
    ).toEqual({ turnId: "tu", item: { type: "dynamicToolCall" } });
    expect(
      keptParams("item/tool/call", { threadId: "th", turnId: "tu", callId: "c1", arguments: { answer } }),
    ).toEqual({ turnId: "tu", callId: "c1" });
    const call = {
      threadId: "th",
      turnId: "tu",
      item: { type: "function_call", call_id: "c1", arguments: "{}" },
    };
    expect(keptParams("rawResponseItem/completed", call)).toBe(call);
    const delta = { threadId: "th", turnId: "tu", delta: "hi" };
    expect(keptParams("item/agentMessage/delta", delta)).toBe(delta);
  });

  it("drops what no turn reads, whatever the order of its fields", () => {
    const image = { type: "image", url: `data:image/png;base64,${"A".repeat(100)}` };
    expect(
      keptParams("item/started", { turnId: "tu", item: { content: [image], type: "userMessage" } }),
    ).toBe(undefined);
    expect(
      keptParams("rawResponseItem/completed", { item: { role: "user", content: [image], type: "message" } }),
    ).toBe(undefined);
    for (const method of ["item/completed", "thread/started", "turn/started", "thread/status/changed"])
      expect(keptParams(method, { threadId: "th" })).toBe(undefined);
  });
});
