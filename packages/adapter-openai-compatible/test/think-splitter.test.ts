import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createThinkSplitter, type ThinkSegment } from "../src/think-splitter.js";

/** Adjacent segments of the same kind as one: chunking may cut a run into several. */
const merged = (segments: ReadonlyArray<ThinkSegment>): ThinkSegment[] => {
  const out: ThinkSegment[] = [];
  for (const s of segments) {
    const last = out.at(-1);
    if (last?.kind === s.kind) out[out.length - 1] = { kind: s.kind, text: last.text + s.text };
    else out.push(s);
  }
  return out;
};

const run = (chunks: ReadonlyArray<string>) => {
  const splitter = createThinkSplitter();
  return merged([...chunks.flatMap((c) => splitter.push(c)), ...splitter.flush()]);
};

/** Cuts `text` at the given positions (sorted, deduplicated, in range). */
const cut = (text: string, points: ReadonlyArray<number>): string[] => {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of at) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
};

describe("think splitter", () => {
  it("moves a Qwen3-style think block into reasoning and drops the blank lines after it", () => {
    expect(run(["<think>\nTwo plus two.\n</think>\n\nThe answer is 4."])).toEqual([
      { kind: "reasoning", text: "\nTwo plus two.\n" },
      { kind: "text", text: "The answer is 4." },
    ]);
  });

  it("holds back a tag split across chunks, and releases a false start as text", () => {
    expect(run(["Hi <th", "ink>hm</thi", "nk>ok"])).toEqual([
      { kind: "text", text: "Hi " },
      { kind: "reasoning", text: "hm" },
      { kind: "text", text: "ok" },
    ]);
    expect(run(["a <thin", "g> b <"])).toEqual([{ kind: "text", text: "a <thing> b <" }]);
  });

  it("keeps text that merely looks like a tag, and an unclosed block stays reasoning", () => {
    expect(run(["x </think> y"])).toEqual([{ kind: "text", text: "x </think> y" }]);
    expect(run(["<think>still thinking"])).toEqual([{ kind: "reasoning", text: "still thinking" }]);
  });

  it("keeps a tool-call sentinel after the think block intact", () => {
    const call = '<tool_call>{"name":"f","arguments":"{}"}</tool_call>';
    expect(run(["<think>use f</think>", call])).toEqual([
      { kind: "reasoning", text: "use f" },
      { kind: "text", text: call },
    ]);
  });

  it("gives the same segments however the text is split (split anywhere)", () => {
    const piece = fc.constantFrom(
      "<think>",
      "</think>",
      "<",
      "<th",
      "</",
      "think>",
      "a",
      " ",
      "\n",
      "ü",
      "🚀",
      "ok.",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (pieces, points) => {
          const text = pieces.join("");
          expect(run(cut(text, points))).toEqual(run([text]));
        },
      ),
      { numRuns: 500 },
    );
  });
});
