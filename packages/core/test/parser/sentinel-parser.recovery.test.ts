import { describe, expect, it } from "vitest";
import { createSentinelParser } from "../../src/parser/index.js";
import { assertInvariants, normalize, parse, parseChunks, parserOptions } from "./parser-harness.js";

const tc = (body: string) => `<tool_call>${body}</tool_call>`;

describe("sentinel parser: recovery and rejection edges", () => {
  it("a streamed call whose outer object breaks after complete arguments keeps them (repaired)", () => {
    const events = parseChunks([...tc('{"name":"write_file","arguments":{"path":"a"} oops}')]);
    assertInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: "call-end", arguments: '{"path":"a"}', repaired: true });
  });

  it("a streamed call whose arguments break mid-way is withdrawn, never closed short", () => {
    const block = tc('{"name":"write_file","arguments":{"path":"ab", "n": [1, }}');
    const events = parseChunks([...block]);
    assertInvariants(events);
    expect(events.some((e) => e.type === "call-end")).toBe(false);
    expect(normalize(events).slice(-2)).toEqual([
      expect.objectContaining({ type: "call-rejected", reason: "invalid-json", index: 0 }),
      { type: "text", text: block },
    ]);
  });

  it("arguments that are JSON but not an object are never streamed and are rejected", () => {
    const block = tc('{"name":"write_file","arguments":"[1, 2]"}');
    expect(parse(block)).toEqual([
      expect.objectContaining({
        type: "call-rejected",
        reason: "invalid-json",
        strict: false,
        name: "write_file",
      }),
      { type: "text", text: block },
    ]);
  });

  it("strict tools get no repair: raw control characters or a trailing comma reject the call", () => {
    for (const args of ['"{\\"n\\":1,}"', '{"n":1,}', '"{\\"n\\":\\"a\nb\\"}"']) {
      const block = tc(`{"name":"exact","arguments":${args}}`);
      expect(parse(block)).toEqual([
        expect.objectContaining({ type: "call-rejected", strict: true, name: "exact" }),
      ]);
    }
  });

  it("a <use_tool> block that outgrows the budget is never a call: given back as text", () => {
    const options = parserOptions(undefined, { maxBlockBytes: 60 });
    const block = `<use_tool><name>readNote</name><notePath>a.md</notePath><x>${"z".repeat(80)}</x></use_tool>`;
    const events = parseChunks([...`${block} next`], options);
    assertInvariants(events);
    expect(normalize(events)).toEqual([
      expect.objectContaining({
        type: "call-rejected",
        reason: "block-too-large",
        strict: false,
        name: "readNote",
      }),
      { type: "text", text: `${block} next` },
    ]);
  });

  it("after flush the next message starts fresh (leading whitespace dropped), indexes keep counting", () => {
    const parser = createSentinelParser(parserOptions());
    const first = [...parser.push(tc('{"name":"get_time"}')), ...parser.flush()];
    const second = [...parser.push(`  \n${tc('{"name":"get_time"}')} ok`), ...parser.flush()];
    expect(first.map((e) => e.type === "call-start" && e.index)).toContain(0);
    expect(second[0]).toEqual({ type: "call-start", index: 1, name: "get_time" });
    expect(second.at(-1)).toEqual({ type: "text", text: "ok" });
  });
});
