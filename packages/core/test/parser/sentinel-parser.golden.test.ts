import { describe, expect, it } from "vitest";
import { createSentinelParser } from "../../src/parser/index.js";
import { assertInvariants, normalize, parse, parseChunks, parserOptions } from "./parser-harness.js";

const tc = (body: string) => `<tool_call>${body}</tool_call>`;
const call = (index: number, name: string, args: string, raw: string, extra: object = {}) => [
  { type: "tool-call-start", index, name },
  { type: "tool-call-delta", index, delta: args },
  { type: "tool-call-end", index, name, arguments: args, format: "json", repaired: false, raw, ...extra },
];

describe("sentinel parser: golden cases", () => {
  it("turns a seed-format block (arguments as a JSON string) into a call, text around it untouched", () => {
    const block = tc('{"name":"search","arguments":"{\\"q\\":\\"cats\\"}"}');
    expect(parse(`Let me look.\n${block}`)).toEqual([
      { type: "text-delta", delta: "Let me look.\n" },
      ...call(0, "search", '{"q":"cats"}', block),
    ]);
  });

  it("keeps arguments given as a JSON object byte-exact (whitespace preserved)", () => {
    const block = tc('{"name": "search", "arguments": {\n  "q": "a  b",\n  "n": [1, 2.5e3]\n}}');
    expect(parse(block)).toEqual(call(0, "search", '{\n  "q": "a  b",\n  "n": [1, 2.5e3]\n}', block));
  });

  it("recognises tags split across chunks, character by character", () => {
    const block = tc('{"name":"get_time","arguments":"{}"}');
    const message = `Now: ${block} done`;
    const events = parseChunks([...message]);
    assertInvariants(events);
    expect(normalize(events)).toEqual([
      { type: "text-delta", delta: "Now: " },
      ...call(0, "get_time", "{}", block),
      { type: "text-delta", delta: "done" },
    ]);
    expect(
      normalize(parseChunks(["Now: <tool", "_ca", "ll>", block.slice(11, -5), "call>", " done"])),
    ).toEqual(normalize(events));
  });

  it("streams argument fragments before the block closes, never a complete-JSON prefix", () => {
    const events = parseChunks([
      '<tool_call>{"name":"write_file","arguments":{"path":"a.md","content":"hel',
      "lo wor",
      'ld"}}',
      "</tool_call>",
    ]);
    assertInvariants(events);
    expect(events.slice(0, 3)).toEqual([
      { type: "tool-call-start", index: 0, name: "write_file" },
      { type: "tool-call-delta", index: 0, delta: '{"path":"a.md","content":"hel' },
      { type: "tool-call-delta", index: 0, delta: "lo wor" },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "tool-call-end",
      arguments: '{"path":"a.md","content":"hello world"}',
    });
  });

  it("decodes string-form escapes split across chunks, including a surrogate pair in two \\u escapes", () => {
    const chunks = [
      '<tool_call>{"name":"search","arguments":"{\\"q\\":\\"\\u',
      "D83D\\",
      "uDE00 \\u00e9\\",
      '/\\"}"}</tool_call>',
    ];
    const events = parseChunks(chunks);
    assertInvariants(events);
    expect(events.at(-1)).toMatchObject({
      type: "tool-call-end",
      arguments: '{"q":"😀 é/"}',
      repaired: false,
    });
  });

  it("gives empty arguments as one final {} delta: missing, empty string and empty object", () => {
    for (const body of [
      '{"name":"get_time"}',
      '{"name":"get_time","arguments":""}',
      '{"name":"get_time","arguments":{ }}',
    ]) {
      expect(parse(tc(body))).toEqual(call(0, "get_time", "{}", tc(body)));
    }
  });

  it("buffers arguments that come before the name and starts the call once the name is known", () => {
    const block = tc('{"arguments":"{\\"q\\":\\"x\\"}","name":"search"}');
    const events = parseChunks([...block]);
    assertInvariants(events);
    expect(normalize(events)).toEqual(call(0, "search", '{"q":"x"}', block));
  });

  it("numbers several calls 0, 1 … and drops the whitespace between and after them", () => {
    const a = tc('{"name":"search","arguments":"{\\"q\\":\\"a\\"}"}');
    const b = tc('{"name":"get_time","arguments":"{}"}');
    expect(parse(`  \n${a}\n\n${b}\n  `)).toEqual([
      ...call(0, "search", '{"q":"a"}', a),
      ...call(1, "get_time", "{}", b),
    ]);
  });

  it("soft tool, invalid JSON beyond repair: rejected and given back as text", () => {
    const block = tc('{"name":"search","arguments":"{: nope}"}');
    expect(parse(`x ${block} y`)).toEqual([
      { type: "text-delta", delta: "x " },
      {
        type: "tool-call-rejected",
        reason: "invalid-json",
        strict: false,
        name: "search",
        detail: "arguments are not valid JSON",
        raw: block,
      },
      { type: "text-delta", delta: `${block} y` },
    ]);
  });

  it("soft tool, a trailing comma is not a call: a repair only adds what is missing", () => {
    const block = tc('{"name":"search","arguments":"{\\"q\\":\\"a\\",}"}');
    const events = parse(block);
    expect(events.some((e) => e.type === "tool-call-end")).toBe(false);
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "invalid-json",
        strict: false,
        index: 0,
      }),
      { type: "text-delta", delta: block },
    ]);
  });

  it("soft tool, missing closing braces before the close tag are added, marked repaired", () => {
    const block = tc('{"name":"write_file","arguments":{"path":"a.md","n":[1, 2]');
    const events = parseChunks([...block]);
    assertInvariants(events);
    expect(events.at(-1)).toMatchObject({
      type: "tool-call-end",
      arguments: '{"path":"a.md","n":[1, 2]}',
      repaired: true,
    });
  });

  it("soft tool, the close tag right after a quote is not taken for missing braces (it may be in the string)", () => {
    const block = tc('{"name":"write_file","arguments":{"content":"say "hi"');
    const events = parseChunks([...`${block} rest`]);
    assertInvariants(events);
    expect(events.some((e) => e.type === "tool-call-end")).toBe(false);
    expect(normalize(events).at(-1)).toEqual({ type: "text-delta", delta: `${block} rest` });
  });

  it("soft tool, real newlines inside an argument string are escaped while streaming", () => {
    const block = tc('{"name":"write_file","arguments":"{\\"content\\":\\"a\nb\\"}"}');
    const events = parseChunks([...block]);
    assertInvariants(events);
    expect(events.at(-1)).toMatchObject({ arguments: '{"content":"a\\nb"}', repaired: true });
  });

  it("soft tool, the object pasted unescaped into the arguments string is recovered", () => {
    const block = tc('{"name":"search","arguments":"{"q":"x"}"}');
    expect(parse(block).at(-1)).toMatchObject({
      type: "tool-call-end",
      arguments: '{"q":"x"}',
      repaired: true,
    });
  });

  it("strict tool, invalid JSON: rejected strict, no text (the turn engine retries)", () => {
    const block = tc('{"name":"exact","arguments":"{\\"n\\":1,}"}');
    expect(parse(`${block}\n`)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "invalid-json",
        strict: true,
        name: "exact",
        detail: "arguments are not valid JSON",
        raw: block,
      },
    ]);
  });

  it("strict vs soft schema mismatch: strict is rejected, soft is emitted with a warning", () => {
    const strict = tc('{"name":"exact","arguments":"{\\"n\\":\\"1\\"}"}');
    expect(parse(strict)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "schema-mismatch",
        strict: true,
        name: "exact",
        detail: "arguments/n must be integer",
        raw: strict,
      },
    ]);
    const soft = tc('{"name":"search","arguments":"{\\"q\\":1}"}');
    expect(parse(soft)).toEqual(
      call(0, "search", '{"q":1}', soft, { schemaWarning: "arguments/q must be string" }),
    );
  });

  it("strict tool with valid arguments: start, one delta, end at once", () => {
    const block = tc('{"name":"exact","arguments":"{\\"n\\":7}"}');
    const events = parseChunks([...block]);
    expect(events).toEqual(call(0, "exact", '{"n":7}', block));
  });

  it("unknown tool: rejected and given back as text", () => {
    const block = tc('{"name":"rm_rf","arguments":"{}"}');
    expect(parse(block)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "unknown-tool",
        strict: false,
        name: "rm_rf",
        detail: 'unknown tool "rm_rf"',
        raw: block,
      },
      { type: "text-delta", delta: block },
    ]);
  });

  it("unterminated block: a streamed call cut off by the end of the stream is withdrawn, never completed", () => {
    const raw = '<tool_call>{"name":"search","arguments":"{\\"q\\":\\"ca';
    const events = parseChunks(["Sure. <tool_call>", raw.slice("<tool_call>".length)]);
    assertInvariants(events);
    expect(normalize(events)).toEqual([
      { type: "text-delta", delta: "Sure. " },
      { type: "tool-call-start", index: 0, name: "search" },
      { type: "tool-call-delta", index: 0, delta: '{"q":"ca' },
      {
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: false,
        name: "search",
        index: 0,
        detail: "the stream ended inside <tool_call>",
        raw,
      },
      { type: "text-delta", delta: raw },
    ]);
  });

  it("unterminated block: soft garbage or a cut-off call is given back as text, strict is rejected silently", () => {
    const soft = "<tool_call>{{{ not json";
    expect(parse(`a ${soft}`)).toEqual([
      { type: "text-delta", delta: "a " },
      {
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: false,
        detail: "the stream ended inside <tool_call>",
        raw: soft,
      },
      { type: "text-delta", delta: soft },
    ]);
    // Complete arguments but no closing brace: not streamed yet (the top level never commits), still cut off.
    const unclosed = '<tool_call>{"name":"get_time","arguments":{}';
    expect(parse(unclosed)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: false,
        name: "get_time",
      }),
      { type: "text-delta", delta: unclosed },
    ]);
    const strict = '<tool_call>{"name":"exact","arguments":"{\\"n\\":';
    expect(parse(strict)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: true,
        name: "exact",
        raw: strict,
      }),
    ]);
  });

  it("a complete block whose close tag never came is still a call (strict too)", () => {
    const body = '<tool_call>{"name":"exact","arguments":"{\\"n\\":3}"}';
    expect(parse(body)).toEqual(call(0, "exact", '{"n":3}', body));
  });

  it("a block inside a Markdown code fence is plain text", () => {
    const block = tc('{"name":"get_time","arguments":"{}"}');
    for (const fence of ["```", "~~~", "   ````json"]) {
      const message = `Example:\n${fence}\n${block}\n${fence.trim().replace(/json$/, "")}\nafter`;
      expect(parse(message)).toEqual([{ type: "text-delta", delta: message }]);
    }
    const after = `\`\`\`\n${block}\n\`\`\`\n${block}`;
    expect(parse(after)).toEqual([
      { type: "text-delta", delta: `\`\`\`\n${block}\n\`\`\`\n` },
      ...call(0, "get_time", "{}", block),
    ]);
  });

  it("near-miss tags are released verbatim", () => {
    const message = "a <tool_calls> b <tool_cal x <use_tools> <tool_call > </tool_call> <<tool_ca";
    const events = parseChunks([...message]);
    assertInvariants(events);
    expect(normalize(events)).toEqual([{ type: "text-delta", delta: message }]);
  });

  it("plain text with `<` everywhere is forwarded with no holdback beyond a possible tag prefix", () => {
    const p = createSentinelParser(parserOptions());
    expect(p.push("a < b")).toEqual([{ type: "text-delta", delta: "a < b" }]);
    expect(p.push("x<y <")).toEqual([{ type: "text-delta", delta: "x<y " }]);
    expect(p.push("to")).toEqual([]);
    expect(p.push("ol_x <3")).toEqual([{ type: "text-delta", delta: "<tool_x <3" }]);
    expect(p.push("<use_tool")).toEqual([]);
    expect(p.push("s")).toEqual([{ type: "text-delta", delta: "<use_tools" }]);
    expect(p.flush()).toEqual([]);
  });

  it("`</tool_call>` inside an argument string does not end the block", () => {
    const inner = JSON.stringify({ content: "the close tag </tool_call> and <tool_call>" });
    const block = tc(JSON.stringify({ name: "write_file", arguments: inner }));
    expect(parse(block)).toEqual(call(0, "write_file", inner, block));
    const objectForm = tc(`{"name":"write_file","arguments":${inner}}`);
    expect(parse(objectForm)).toEqual(call(0, "write_file", inner, objectForm));
  });

  it("block-too-large: soft block given back as text in full, strict block dropped", () => {
    const options = parserOptions(undefined, { maxBlockBytes: 40 });
    const block = tc(`{"name":"get_time","arguments":"{}","pad":"${"x".repeat(60)}"}`);
    const events = parseChunks([...`${block} after`], options);
    assertInvariants(events);
    const merged = normalize(events);
    expect(merged[0]).toMatchObject({ type: "tool-call-rejected", reason: "block-too-large", strict: false });
    expect(merged.slice(1)).toEqual([{ type: "text-delta", delta: `${block} after` }]);
    const strict = tc(`{"name":"exact","arguments":"{}","pad":"${"x".repeat(60)}"}`);
    expect(parse(`${strict} after`, options)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "block-too-large",
        strict: true,
        name: "exact",
      }),
      { type: "text-delta", delta: "after" },
    ]);
  });

  it("block-too-large after the call started: the call is withdrawn, never shortened; the block is text", () => {
    const options = parserOptions(undefined, { maxBlockBytes: 60 });
    const block = tc(`{"name":"write_file","arguments":{"content":"${"y".repeat(100)}"}}`);
    const events = parseChunks([block, " next"], options);
    assertInvariants(events);
    const merged = normalize(events);
    expect(merged.slice(0, 2)).toEqual([
      { type: "tool-call-start", index: 0, name: "write_file" },
      { type: "tool-call-delta", index: 0, delta: expect.stringMatching(/^\{"content":"y+$/) },
    ]);
    expect(merged[2]).toMatchObject({
      type: "tool-call-rejected",
      reason: "block-too-large",
      strict: false,
      index: 0,
    });
    expect(merged.slice(3)).toEqual([{ type: "text-delta", delta: `${block} next` }]);
    expect(merged.some((e) => e.type === "tool-call-end")).toBe(false);
  });
});
