import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/model/tool-spec.js";
import {
  BLOCK_FORMATS,
  CUSTOM_TOOL_RAW_FORMAT,
  JSON_TOOL_CALL_FORMAT,
  USE_TOOL_XML_FORMAT,
} from "../../src/parser/index.js";
import { assertInvariants, normalize, parseChunks, parserOptions, TEST_TOOLS } from "./parser-harness.js";

const APPLY_PATCH: ToolSpec = { name: "apply_patch", strict: false, custom: true };
const tools = [...TEST_TOOLS, APPLY_PATCH];
const withRaw = parserOptions(tools, { formats: [...BLOCK_FORMATS, CUSTOM_TOOL_RAW_FORMAT] });
const jsonOnly = parserOptions(tools);

const patch = '*** Begin Patch\n*** Add File: a.txt\n+say "hi" \\ </tool_call> <use_tool>\n*** End Patch';
const rawBlock = `<custom_tool_call>apply_patch\n${patch}\n</custom_tool_call>`;
const inputArgs = JSON.stringify({ input: patch });

/** Every chunking gives the same normalized events (and keeps the wire invariants). */
const parseAllWays = (message: string, options = withRaw) => {
  const whole = normalize(parseChunks([message], options));
  for (const chunks of [[...message], [message.slice(0, 17), message.slice(17)]]) {
    const events = parseChunks(chunks, options);
    assertInvariants(events);
    expect(normalize(events)).toEqual(whole);
  }
  return whole;
};

describe("custom (freeform) tools", () => {
  it("a raw block carries the input unescaped; the core sees it as {input}", () => {
    const events = parseAllWays(`Patching.\n${rawBlock}`);
    expect(events).toEqual([
      { type: "text-delta", delta: "Patching.\n" },
      { type: "tool-call-start", index: 0, name: "apply_patch" },
      { type: "tool-call-delta", index: 0, delta: inputArgs },
      {
        type: "tool-call-end",
        index: 0,
        name: "apply_patch",
        arguments: inputArgs,
        format: "raw",
        repaired: false,
        raw: rawBlock,
      },
    ]);
  });

  it('the JSON block {"name", "input"} is accepted for a custom tool (models fall back to it)', () => {
    const block = `<tool_call>${JSON.stringify({ name: "apply_patch", input: patch })}</tool_call>`;
    const end = parseAllWays(block, jsonOnly).at(-1);
    expect(end).toMatchObject({
      type: "tool-call-end",
      name: "apply_patch",
      arguments: inputArgs,
      format: "json",
    });
    // A non-JSON "arguments" string is taken as the input too (the close tag may not appear in it:
    // a broken arguments string lets `</tool_call>` end the block, as for any tool).
    const plain = "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch";
    const asArguments = `<tool_call>${JSON.stringify({ name: "apply_patch", arguments: plain })}</tool_call>`;
    expect(parseAllWays(asArguments, jsonOnly).at(-1)).toMatchObject({
      arguments: JSON.stringify({ input: plain }),
    });
  });

  it("the raw format is opt-in: without it the block is plain text", () => {
    const block = "<custom_tool_call>apply_patch\n*** Begin Patch\n*** End Patch\n</custom_tool_call>";
    expect(parseAllWays(block, jsonOnly)).toEqual([{ type: "text-delta", delta: block }]);
  });

  it("unknown tools and cut-off raw blocks are text, never calls", () => {
    const unknown = "<custom_tool_call>rm_rf\n/\n</custom_tool_call>";
    expect(parseAllWays(unknown)).toEqual([
      expect.objectContaining({ type: "tool-call-rejected", reason: "unknown-tool", name: "rm_rf" }),
      { type: "text-delta", delta: unknown },
    ]);
    const cut = rawBlock.slice(0, -30);
    expect(parseAllWays(cut)).toEqual([
      expect.objectContaining({ type: "tool-call-rejected", reason: "unterminated", name: "apply_patch" }),
      { type: "text-delta", delta: cut },
    ]);
  });

  it("a function tool in the raw form needs a JSON arguments object", () => {
    const ok = '<custom_tool_call>search\n{"q":"x"}\n</custom_tool_call>';
    expect(parseAllWays(ok).at(-1)).toMatchObject({
      type: "tool-call-end",
      name: "search",
      arguments: '{"q":"x"}',
    });
    const bad = "<custom_tool_call>search\nnot json\n</custom_tool_call>";
    expect(parseAllWays(bad)[0]).toMatchObject({ type: "tool-call-rejected", reason: "invalid-json" });
  });

  it("each format renders an earlier call that its own reader reads back to the same arguments", () => {
    const cases: Array<[typeof JSON_TOOL_CALL_FORMAT, string, string]> = [
      [JSON_TOOL_CALL_FORMAT, "search", '{"q":"a \\"b\\" </tool_call>"}'],
      [USE_TOOL_XML_FORMAT, "localSearch", '{"query":"piano"}'],
      [CUSTOM_TOOL_RAW_FORMAT, "apply_patch", inputArgs],
    ];
    for (const [format, name, args] of cases) {
      const end = parseAllWays(format.renderCall(name, args)).at(-1);
      expect(end).toMatchObject({ type: "tool-call-end", name, arguments: args, format: format.id });
    }
  });
});
