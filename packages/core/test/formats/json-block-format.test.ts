import { describe, expect, it } from "vitest";
import {
  BLOCK_FORMATS,
  blockFormatsReading,
  JSON_TOOL_CALL_FORMAT,
  jsonBlockFormat,
  USE_TOOL_XML_FORMAT,
} from "../../src/formats/index.js";
import type { SentinelParserOptions } from "../../src/parser/index.js";
import { createSentinelParser } from "../../src/parser/index.js";
import { parse, parseChunks, parserOptions } from "../parser/parser-harness.js";

const PIPES = jsonBlockFormat({ start: "<|tool_call|>", end: "<|/tool_call|>" });
const pipes: SentinelParserOptions = parserOptions(undefined, { formats: blockFormatsReading(PIPES) });

const calls = (events: ReturnType<typeof parse>) =>
  events.flatMap((e) => (e.type === "tool-call-end" ? [{ name: e.name, arguments: e.arguments }] : []));
const text = (events: ReturnType<typeof parse>) =>
  events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");

describe("jsonBlockFormat: delimiters", () => {
  it("with no options is the default format, tag for tag and line for line", () => {
    const built = jsonBlockFormat();
    expect({ ...built, openBlock: 0, renderCall: 0 }).toEqual({
      ...JSON_TOOL_CALL_FORMAT,
      openBlock: 0,
      renderCall: 0,
    });
    expect(built.renderCall("f", '{"a":1}')).toBe(
      '<tool_call>{"name":"f","arguments":"{\\"a\\":1}"}</tool_call>',
    );
    expect(BLOCK_FORMATS[0]).toBe(JSON_TOOL_CALL_FORMAT);
  });

  it("parses, renders and teaches the configured delimiters", () => {
    expect(PIPES.open).toBe("<|tool_call|>");
    expect(PIPES.close).toBe("<|/tool_call|>");
    expect(PIPES.promptRules[1]).toBe(
      '<|tool_call|>{"name":"<function name>","arguments":"<the arguments object, JSON-encoded as a string>"}<|/tool_call|>',
    );
    const block = PIPES.renderCall("search", '{"q":"x"}');
    expect(block).toBe('<|tool_call|>{"name":"search","arguments":"{\\"q\\":\\"x\\"}"}<|/tool_call|>');
    const events = parse(`Looking. ${block} done`, pipes);
    expect(calls(events)).toEqual([{ name: "search", arguments: '{"q":"x"}' }]);
    expect(text(events)).toBe("Looking. done");
    expect(events.find((e) => e.type === "tool-call-end")).toMatchObject({ format: "json", raw: block });
  });

  it("streams arguments before the custom close tag arrives, as with the default tags", () => {
    const parser = createSentinelParser(pipes);
    const early = parser.push('<|tool_call|>{"name":"search","arguments":{"q":"abcdef');
    expect(early.map((e) => e.type)).toEqual(["tool-call-start", "tool-call-delta"]);
    const rest = [...parser.push('gh"}}<|/tool_call|>'), ...parser.flush()];
    expect(rest.at(-1)).toMatchObject({ type: "tool-call-end", arguments: '{"q":"abcdefgh"}' });
  });

  it("holds back only a prefix of the configured open tag, by its length", () => {
    const parser = createSentinelParser(pipes);
    expect(parser.push("see <|tool_ca")).toEqual([{ type: "text-delta", delta: "see " }]);
    expect(parser.push("ll|x")).toEqual([{ type: "text-delta", delta: "<|tool_call|x" }]);
    const parser2 = createSentinelParser(pipes);
    expect(parser2.push("a <|")).toEqual([{ type: "text-delta", delta: "a " }]);
    expect(parser2.flush()).toEqual([{ type: "text-delta", delta: "<|" }]);
  });

  it("reads the close tag inside an argument string as text, and takes an inner one as the end of a broken block", () => {
    const inString =
      '<|tool_call|>{"name":"write_file","arguments":{"content":"a<|/tool_call|>b"}}<|/tool_call|>';
    expect(calls(parse(inString, pipes))).toEqual([
      { name: "write_file", arguments: '{"content":"a<|/tool_call|>b"}' },
    ]);
    // The string is left open: the block ends at the inner close tag and the next block is a call.
    const broken =
      '<|tool_call|>{"name":"write_file","arguments":{"content":"oops<|/tool_call|> <|tool_call|>{"name":"get_time","arguments":{}}<|/tool_call|>';
    const events = parse(broken, pipes);
    expect(calls(events)).toEqual([{ name: "get_time", arguments: "{}" }]);
    expect(events.find((e) => e.type === "tool-call-rejected")).toMatchObject({ reason: "invalid-json" });
  });

  it("skips an oversized block up to the configured close tag", () => {
    const options = parserOptions(undefined, { formats: [PIPES], maxBlockBytes: 64 });
    const big = `<|tool_call|>{"name":"write_file","arguments":{"content":"${"x".repeat(200)}"}}<|/tool_call|>`;
    const events = parse(`${big} after`, options);
    expect(calls(events)).toEqual([]);
    expect(events.find((e) => e.type === "tool-call-rejected")).toMatchObject({ reason: "block-too-large" });
    expect(text(events)).toContain("after");
  });

  it("reports a cut-off block in the configured open tag's words", () => {
    const events = parse('<|tool_call|>{"name":"search","arguments":{"q":', pipes);
    expect(events.find((e) => e.type === "tool-call-rejected")).toMatchObject({
      reason: "unterminated",
      detail: "the stream ended inside <|tool_call|>",
    });
  });

  it("delimiters holding JSON's own characters: braces, quotes, pipes, colons", () => {
    const braces = jsonBlockFormat({ start: '<{"call":', end: '<"}>' });
    const options = parserOptions(undefined, { formats: [braces] });
    const block = braces.renderCall("search", '{"q":"}<\\"}>"}');
    expect(calls(parse(`x ${block} y`, options))).toEqual([{ name: "search", arguments: '{"q":"}<\\"}>"}' }]);
    for (const chunks of [[...block], [block.slice(0, 3), block.slice(3)]])
      expect(calls(parseChunks(chunks, options))).toEqual([{ name: "search", arguments: '{"q":"}<\\"}>"}' }]);
  });
});

describe("jsonBlockFormat: refused delimiters name the option", () => {
  const cases: Array<[Parameters<typeof jsonBlockFormat>[0], string]> = [
    [{ start: "" }, 'jsonBlockFormat: option "start" must not be empty'],
    [{ end: "" }, 'jsonBlockFormat: option "end" must not be empty'],
    [{ start: "[TOOL]" }, 'jsonBlockFormat: option "start" must start with "<" (got "[TOOL]")'],
    [{ end: "<a<b>" }, 'jsonBlockFormat: option "end" may hold no "<" but its first character'],
    [{ start: "<" }, 'jsonBlockFormat: option "start" must be longer than "<"'],
    [{ start: "<call\n>" }, 'jsonBlockFormat: option "start" must not contain a line break'],
    [{ start: "<x>", end: "<x>" }, 'jsonBlockFormat: options "start" and "end" must differ'],
    [
      { start: "<x>", end: "<x>>" },
      'jsonBlockFormat: option "start" and option "end" may not be a prefix of each other',
    ],
    [
      { start: "<call|>", end: "<call" },
      'jsonBlockFormat: option "start" and option "end" may not be a prefix of each other',
    ],
    [{ start: 7 as unknown as string }, 'jsonBlockFormat: option "start" must be a string'],
    [{ arguments: "json" as "object" }, 'jsonBlockFormat: option "arguments" must be "string" or "object"'],
  ];
  it.each(cases)("%j", (options, message) => {
    expect(() => jsonBlockFormat(options)).toThrow(new TypeError(message));
  });

  it("a parser refuses two formats whose opening tags cannot be told apart", () => {
    const shadow = jsonBlockFormat({ start: "<tool_call>", end: "<|end|>" });
    expect(() =>
      createSentinelParser(parserOptions(undefined, { formats: [JSON_TOOL_CALL_FORMAT, shadow] })),
    ).toThrow(
      'createSentinelParser: formats: the opening tags "<tool_call>" and "<tool_call>" cannot be told apart (one is a prefix of the other)',
    );
    expect(() =>
      createSentinelParser(
        parserOptions(undefined, {
          formats: [
            jsonBlockFormat({ start: "<tool_c", end: "</c>" }),
            USE_TOOL_XML_FORMAT,
            JSON_TOOL_CALL_FORMAT,
          ],
        }),
      ),
    ).toThrow(/"<tool_c" and "<tool_call>"/);
  });

  it("blockFormatsReading puts the taught format first and leaves out the formats it would shadow", () => {
    const shadow = jsonBlockFormat({ start: "<tool_call>", end: "<|end|>" });
    expect(blockFormatsReading(shadow)).toEqual([shadow, USE_TOOL_XML_FORMAT]);
    expect(blockFormatsReading(PIPES)).toEqual([PIPES, JSON_TOOL_CALL_FORMAT, USE_TOOL_XML_FORMAT]);
    expect(blockFormatsReading(JSON_TOOL_CALL_FORMAT)).toEqual(BLOCK_FORMATS);
  });
});

describe("jsonBlockFormat: arguments as an object (hermes, qwen)", () => {
  const hermes = jsonBlockFormat({ arguments: "object" });
  it("teaches and renders the object, keeping what was written", () => {
    expect(hermes.promptRules[1]).toBe(
      '<tool_call>{"name":"<function name>","arguments":<the arguments object>}</tool_call>',
    );
    expect(hermes.renderCall("search", '{"q": "x"}')).toBe(
      '<tool_call>{"name":"search","arguments":{"q": "x"}}</tool_call>',
    );
    // Arguments that are not an object are written back as a string, never changed.
    expect(hermes.renderCall("search", "not json")).toBe(
      '<tool_call>{"name":"search","arguments":"not json"}</tool_call>',
    );
  });
  it("parses hermes's own layout, line breaks around the object", () => {
    const events = parse(
      '<tool_call>\n{"name": "search", "arguments": {"q": "x"}}\n</tool_call>',
      parserOptions(undefined, { formats: blockFormatsReading(hermes) }),
    );
    expect(calls(events)).toEqual([{ name: "search", arguments: '{"q": "x"}' }]);
  });
});
