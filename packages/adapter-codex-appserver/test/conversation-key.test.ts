import type { PromptMessage } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { extendKey, prefixKeys, rootKey } from "../src/threads/conversation-key.js";

const root = rootKey("caller", { model: "m" });
const key = (...history: PromptMessage[]) => prefixKeys(root, history).at(-1);
const user = (...texts: string[]): PromptMessage => ({
  role: "user",
  content: texts.map((text) => ({ type: "text", text })),
});
const assistant = (text: string): PromptMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const calls = (...c: Array<[string, string, string]>): PromptMessage => ({
  role: "assistant",
  toolCalls: c.map(([callId, name, args]) => ({ callId, name, arguments: args })),
});
const output = (callId: string, text: string): PromptMessage => ({ role: "tool", callId, output: text });

describe("conversation keys", () => {
  it("are a chain: the key of n messages extends the key of the first n - 1", () => {
    const history = [user("hi"), calls(["c1", "f", "{}"]), output("c1", "ok")];
    const keys = prefixKeys(root, history);
    expect(keys).toHaveLength(4);
    expect(extendKey(keys[2] as string, history[2] as PromptMessage)).toBe(keys[3]);
  });

  it("ignore how text is split into parts and how the model's own whitespace runs", () => {
    expect(key(user("read ", "everything"))).toBe(key(user("read everything")));
    expect(key(assistant("Step 1.\n\n  Done. "))).toBe(key(assistant("Step 1. Done.")));
    expect(key(user("a  b"))).not.toBe(key(user("a b")));
  });

  it("tell fields apart whatever their text: no content passes for a boundary", () => {
    expect(key(calls(["ab", "c", "{}"]))).not.toBe(key(calls(["a", "bc", "{}"])));
    expect(key(calls(["c1", "f", "{}"], ["c2", "g", "{}"]))).not.toBe(key(calls(["c1", "f", "{}"])));
    expect(key(output("c1", "2:x"))).not.toBe(key(output("c1:", "x")));
    expect(key(output("c1", "ok"))).not.toBe(key(user("ok")));
    expect(key(user("ok"))).not.toBe(key(assistant("ok")));
    const image: PromptMessage = { role: "user", content: [{ type: "image", url: "https://x/a.png" }] };
    expect(key(image)).not.toBe(key(user("https://x/a.png")));
  });

  it("start from the caller and the thread config", () => {
    expect(prefixKeys(rootKey("other", { model: "m" }), [user("hi")])[1]).not.toBe(key(user("hi")));
    expect(prefixKeys(rootKey("caller", { model: "n" }), [user("hi")])[1]).not.toBe(key(user("hi")));
  });
});
