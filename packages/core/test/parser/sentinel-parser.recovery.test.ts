import { describe, expect, it } from "vitest";
import { createSentinelParser } from "../../src/parser/index.js";
import { assertInvariants, normalize, parse, parseChunks, parserOptions } from "./parser-harness.js";

const tc = (body: string) => `<tool_call>${body}</tool_call>`;

describe("sentinel parser: recovery and rejection edges", () => {
  it("a streamed call whose outer object breaks after complete arguments keeps them (repaired)", () => {
    const events = parseChunks([...tc('{"name":"write_file","arguments":{"path":"a"} oops}')]);
    assertInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: "tool-call-end", arguments: '{"path":"a"}', repaired: true });
  });

  it("a streamed call whose arguments break mid-way is withdrawn, never closed short", () => {
    const block = tc('{"name":"write_file","arguments":{"path":"ab", "n": [1, }}');
    const events = parseChunks([...block]);
    assertInvariants(events);
    expect(events.some((e) => e.type === "tool-call-end")).toBe(false);
    expect(normalize(events).slice(-2)).toEqual([
      expect.objectContaining({ type: "tool-call-rejected", reason: "invalid-json", index: 0 }),
      { type: "text-delta", delta: block },
    ]);
  });

  it("arguments that are JSON but not an object are never streamed and are rejected", () => {
    const block = tc('{"name":"write_file","arguments":"[1, 2]"}');
    expect(parse(block)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "invalid-json",
        strict: false,
        name: "write_file",
      }),
      { type: "text-delta", delta: block },
    ]);
  });

  it("strict tools get no repair: raw control characters or a trailing comma reject the call", () => {
    for (const args of ['"{\\"n\\":1,}"', '{"n":1,}', '"{\\"n\\":\\"a\nb\\"}"']) {
      const block = tc(`{"name":"exact","arguments":${args}}`);
      expect(parse(block)).toEqual([
        expect.objectContaining({ type: "tool-call-rejected", strict: true, name: "exact" }),
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
        type: "tool-call-rejected",
        reason: "block-too-large",
        strict: false,
        name: "readNote",
      }),
      { type: "text-delta", delta: `${block} next` },
    ]);
  });

  it("after flush the next message starts fresh (leading whitespace dropped), indexes keep counting", () => {
    const parser = createSentinelParser(parserOptions());
    const first = [...parser.push(tc('{"name":"get_time"}')), ...parser.flush()];
    const second = [...parser.push(`  \n${tc('{"name":"get_time"}')} ok`), ...parser.flush()];
    expect(first.map((e) => e.type === "tool-call-start" && e.index)).toContain(0);
    expect(second[0]).toEqual({ type: "tool-call-start", index: 1, name: "get_time" });
    expect(second.at(-1)).toEqual({ type: "text-delta", delta: "ok" });
  });
});

/** The call-end of a parse whose events keep the invariants under 1-char chunks too. */
const onlyCalls = (message: string) => {
  const events = parseChunks([...message]);
  assertInvariants(events);
  expect(normalize(events)).toEqual(parse(message));
  return events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));
};

describe("sentinel parser: a repair keeps exactly what the model wrote", () => {
  it("unescaped inner quotes are kept as quotes, not the end of the value", () => {
    const [call] = onlyCalls(tc('{"name":"write_file","arguments":{"content":"He said "hello" to me"}}'));
    expect(call).toMatchObject({ repaired: true });
    expect(JSON.parse(call?.arguments ?? "")).toEqual({ content: 'He said "hello" to me' });
    const [inString] = onlyCalls(
      tc('{"name":"write_file","arguments":"{\\"content\\":\\"He said \\"hello\\" to me\\"}"}'),
    );
    expect(JSON.parse(inString?.arguments ?? "")).toEqual({ content: 'He said "hello" to me' });
  });

  it("a backslash before a raw tab is kept with the rest of the string", () => {
    const [call] = onlyCalls(tc('{"name":"write_file","arguments":{"content":"a\\\tb and the rest"}}'));
    expect(JSON.parse(call?.arguments ?? "")).toEqual({ content: "a\\\tb and the rest" });
  });

  it("an ambiguous quote (a missing comma?) is no call: the block is text", () => {
    const block = tc('{"name":"write_file","arguments":{"a":"x" "b":"y"}}');
    expect(onlyCalls(block)).toEqual([]);
    expect(normalize(parseChunks([block])).at(-1)).toEqual({ type: "text-delta", delta: block });
  });

  it("two JSON objects in one block are two calls", () => {
    const calls = onlyCalls(
      tc('{"name":"write_file","arguments":{"a":1}}\n{"name":"get_time","arguments":{}}'),
    );
    expect(calls.map((c) => [c.index, c.name, c.arguments])).toEqual([
      [0, "write_file", '{"a":1}'],
      [1, "get_time", "{}"],
    ]);
  });

  it("a block never closed (its string holds the close tag) does not swallow the valid block after it", () => {
    const broken = '<tool_call>{"name":"write_file","arguments":{"content":"x </tool_call>';
    const valid = tc('{"name":"get_time","arguments":{}}');
    const message = `${broken}\n${valid} done`;
    expect(onlyCalls(message).map((c) => [c.name, c.arguments])).toEqual([["get_time", "{}"]]);
    const events = normalize(parseChunks([message]));
    expect(events.find((e) => e.type === "tool-call-rejected")).toMatchObject({ index: 0, raw: broken });
    expect(events.at(-1)).toEqual({ type: "text-delta", delta: "done" });
  });

  it("a valid call whose string holds the close tag is still one call, also when its own close tag never came", () => {
    const body = '{"name":"write_file","arguments":{"content":"use </tool_call> or <tool_call> here"}}';
    for (const message of [tc(body), `<tool_call>${body}`]) {
      const [call] = onlyCalls(message);
      expect(JSON.parse(call?.arguments ?? "")).toEqual({ content: "use </tool_call> or <tool_call> here" });
    }
  });
});

describe("sentinel parser: reading again is bounded", () => {
  it("past one block's worth per message, what a broken block gives back is only text", () => {
    const options = parserOptions(undefined, { maxBlockBytes: 120 });
    const valid = tc('{"name":"get_time"}');
    const broken = `<tool_call>{"name":"write_file","arguments":{"c":"x </tool_call> ${valid}`;
    // Each broken block gives back what follows its inner close tag (the valid block): read again
    // while the budget lasts, then plain text.
    const message = [broken, broken, broken, broken, broken].join("\n");
    const events = parseChunks([message], options);
    assertInvariants(events);
    const calls = events.filter((e) => e.type === "tool-call-end").length;
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(5);
    expect(normalize(parseChunks([...message], options))).toEqual(normalize(events));
  });
});
