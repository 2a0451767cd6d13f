import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseUseToolContent } from "../../src/formats/copilot-xml.js";
import { createSentinelParser } from "../../src/parser/index.js";
import {
  assertInvariants,
  normalize,
  parse,
  parseChunks,
  parserOptions,
  TEST_TOOLS,
} from "./parser-harness.js";

const argsOf = (message: string) => {
  const end = parse(message).find((e) => e.type === "tool-call-end");
  return end?.type === "tool-call-end" ? JSON.parse(end.arguments) : undefined;
};

describe("<use_tool> blocks (Obsidian Copilot legacy format, obsidian-copilot.md §A.1)", () => {
  it("parses the canonical builtinTools examples", () => {
    expect(
      argsOf(
        '<use_tool>\n<name>localSearch</name>\n<query>piano learning practice</query>\n<salientTerms>["piano", "learning", "practice"]</salientTerms>\n</use_tool>',
      ),
    ).toEqual({ query: "piano learning practice", salientTerms: ["piano", "learning", "practice"] });
    expect(
      argsOf(
        '<use_tool>\n<name>localSearch</name>\n<query>what did I do</query>\n<salientTerms>[]</salientTerms>\n<timeRange>{"startTime": {"epoch": 1}, "endTime": {"epoch": 2}}</timeRange>\n</use_tool>',
      ),
    ).toEqual({
      query: "what did I do",
      salientTerms: [],
      timeRange: { startTime: { epoch: 1 }, endTime: { epoch: 2 } },
    });
    expect(
      argsOf(
        "<use_tool><name>webSearch</name><query>python tutorials</query><chatHistory>[]</chatHistory></use_tool>",
      ),
    ).toEqual({ query: "python tutorials", chatHistory: [] });
    expect(argsOf("<use_tool><name>getCurrentTime</name></use_tool>")).toEqual({});
    expect(
      argsOf(
        "<use_tool><name>readNote</name><notePath>Projects/launch-plan.md</notePath><chunkIndex>1</chunkIndex></use_tool>",
      ),
    ).toEqual({ notePath: "Projects/launch-plan.md", chunkIndex: "1" });
    expect(
      argsOf(
        "<use_tool><name>writeToFile</name><path>path/to/note.md</path><content>FULL CONTENT</content><confirmation>false</confirmation></use_tool>",
      ),
    ).toEqual({ path: "path/to/note.md", content: "FULL CONTENT", confirmation: "false" });
    const diff = "------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE";
    expect(
      argsOf(
        `<use_tool><name>replaceInFile</name><path>notes/meeting.md</path><diff>\n${diff}\n</diff></use_tool>`,
      ),
    ).toEqual({
      path: "notes/meeting.md",
      diff,
    });
  });

  it("follows Copilot's value rules: empty, <item> lists, nested tags, no entity decoding, the tag-in-value edge", () => {
    expect(
      argsOf("<use_tool><name>localSearch</name><salientTerms></salientTerms><query> </query></use_tool>"),
    ).toEqual({
      salientTerms: [],
      query: "",
    });
    expect(
      argsOf("<use_tool><name>localSearch</name><tags><item>a</item><item> b </item></tags></use_tool>"),
    ).toEqual({
      tags: ["a", "b"],
    });
    expect(
      argsOf("<use_tool><name>localSearch</name><range><start>1</start><end>2</end></range></use_tool>"),
    ).toEqual({
      range: { start: "1", end: "2" },
    });
    expect(argsOf("<use_tool><name>localSearch</name><q>a &amp; b</q></use_tool>")).toEqual({
      q: "a &amp; b",
    });
    expect(
      argsOf("<use_tool><name>localSearch</name><content># T <b>bold</b> text</content></use_tool>"),
    ).toEqual({
      content: { b: "bold" },
    });
    expect(argsOf('<use_tool><name>localSearch</name><q>[not json</q><r>{"a":1}</r></use_tool>')).toEqual({
      q: "[not json",
      r: { a: 1 },
    });
  });

  it("emits the whole call when the block closes (XML values are only known then)", () => {
    const parser = createSentinelParser(parserOptions());
    expect(parser.push("Searching.\n<use_tool>\n<name> localSearch </na")).toEqual([
      { type: "text-delta", delta: "Searching.\n" },
    ]);
    expect(parser.push("me>\n<query>pia")).toEqual([]);
    const raw = "<use_tool>\n<name> localSearch </name>\n<query>piano</query>\n</use_tool>";
    expect(parser.push("no</query>\n</use_tool>\n")).toEqual([
      { type: "tool-call-start", index: 0, name: "localSearch" },
      { type: "tool-call-delta", index: 0, delta: '{"query":"piano"}' },
      {
        type: "tool-call-end",
        index: 0,
        name: "localSearch",
        arguments: '{"query":"piano"}',
        format: "xml",
        repaired: false,
        raw,
      },
    ]);
    expect(parser.flush()).toEqual([]);
  });

  it("unknown tool or no <name>: rejected and given back as text", () => {
    const unknown = "<use_tool><name>deleteVault</name></use_tool>";
    expect(parse(unknown)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "unknown-tool",
        strict: false,
        name: "deleteVault",
        detail: 'unknown tool "deleteVault"',
        raw: unknown,
      },
      { type: "text-delta", delta: unknown },
    ]);
    const nameless = "<use_tool><query>x</query></use_tool>";
    expect(parse(nameless)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "unknown-tool",
        strict: false,
        detail: "the block has no <name>",
        raw: nameless,
      },
      { type: "text-delta", delta: nameless },
    ]);
  });

  it("a block cut off by the end of the stream is never a call: text (soft), a failure (strict)", () => {
    const raw = "<use_tool><name>readNote</name><notePath>a.md</notePath><chunkIndex>1";
    expect(normalize(parseChunks([...raw]))).toEqual([
      {
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: false,
        name: "readNote",
        detail: "the stream ended inside <use_tool>",
        raw,
      },
      { type: "text-delta", delta: raw },
    ]);
    const strict = "<use_tool><name>exact</name><n>1</n>";
    expect(parse(strict)).toEqual([
      expect.objectContaining({
        type: "tool-call-rejected",
        reason: "unterminated",
        strict: true,
        name: "exact",
      }),
    ]);
  });

  it("strict tools: values stay strings, so a schema wanting an integer rejects the call", () => {
    const raw = "<use_tool><name>exact</name><n>1</n></use_tool>";
    expect(parse(raw)).toEqual([
      {
        type: "tool-call-rejected",
        reason: "schema-mismatch",
        strict: true,
        name: "exact",
        detail: "arguments/n must be integer",
        raw,
      },
    ]);
  });

  it("mixes with <tool_call> blocks in one message, indexes in order", () => {
    const events = parseChunks([
      '<use_tool><name>getCurrentTime</name></use_tool>\n<tool_call>{"name":"get_time"}</tool_call>',
    ]);
    assertInvariants(events);
    expect(
      events
        .filter((e) => e.type === "tool-call-end")
        .map((e) => e.type === "tool-call-end" && [e.index, e.format]),
    ).toEqual([
      [0, "xml"],
      [1, "json"],
    ]);
    expect(TEST_TOOLS.length).toBeGreaterThan(0);
  });
});

/** Copilot 3.1.5's parser, written from the regexes documented in obsidian-copilot.md §A.1. */
function copilotReference(content: string): { name: string; args: unknown } | undefined {
  const nameMatch = content.match(/<name>([\s\S]*?)<\/name>/);
  const name = nameMatch?.[1]?.trim();
  if (!name) return undefined;
  const rest = content.replace(/<name>[\s\S]*?<\/name>/, "");
  const value = (text: string, param?: string): unknown => {
    if (!text) return param === "chatHistory" || param === "salientTerms" ? [] : "";
    if (!/<[^>]+>/.test(text)) {
      if ((text.startsWith("[") && text.endsWith("]")) || (text.startsWith("{") && text.endsWith("}"))) {
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      }
      return text;
    }
    const items = text.match(/<item>([\s\S]*?)<\/item>/g);
    if (items) return items.map((m) => value(m.replace(/<\/?item>/g, "").trim()));
    const entries: Array<[string, unknown]> = [];
    for (const m of text.matchAll(/<([^>]+)>([\s\S]*?)<\/\1>/g))
      entries.push([(m[1] ?? "").trim(), value((m[2] ?? "").trim())]);
    return entries.length > 0 ? Object.fromEntries(entries) : text;
  };
  const args: Record<string, unknown> = {};
  for (const m of rest.matchAll(/<([^>]+)>([\s\S]*?)<\/\1>/g)) {
    const key = (m[1] ?? "").trim();
    if (key) args[key] = value((m[2] ?? "").trim(), key);
  }
  return { name, args };
}

describe("copilot-xml agrees with Copilot's regex parser", () => {
  it("on random tag soup (500 runs)", () => {
    const piece = fc.constantFrom(
      "<name>",
      "</name>",
      "localSearch",
      "<query>",
      "</query>",
      "<item>",
      "</item>",
      "<salientTerms>",
      "</salientTerms>",
      "<a>",
      "</a>",
      "<a b>",
      "</a b>",
      "<",
      ">",
      "</",
      " ",
      "\n",
      "x",
      "1",
      '["p", 2]',
      '{"k": 1}',
      "[",
      "]",
      "{",
      "}",
      "&amp;",
      "<toString>",
      "</toString>",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const content = pieces.join("");
        const ours = parseUseToolContent(content);
        const theirs = copilotReference(content);
        expect(ours && { name: ours.name, args: JSON.parse(ours.arguments) }).toEqual(theirs);
      }),
      { numRuns: 500, seed: 20260902 },
    );
  });
});
