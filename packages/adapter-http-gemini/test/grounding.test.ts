import { describe, expect, it } from "vitest";
import { groundingOf } from "../src/response/grounding.js";

describe("groundingMetadata of a searched answer", () => {
  it("segment offsets are UTF-8 bytes into the text; a page cited twice is one chunk", () => {
    const text = "Været i Oslo: [Yr](https://yr.no/a) — se også https://yr.no/a";
    const g = groundingOf(["vær oslo"], text);
    expect(g.webSearchQueries).toEqual(["vær oslo"]);
    expect(g.groundingChunks).toEqual([{ web: { uri: "https://yr.no/a", title: "Yr" } }]);
    const bytes = Buffer.from(text, "utf8");
    for (const s of g.groundingSupports) {
      expect(bytes.subarray(s.segment.startIndex, s.segment.endIndex).toString("utf8")).toBe(s.segment.text);
      expect(s.groundingChunkIndices).toEqual([0]);
    }
    expect(g.groundingSupports.map((s) => s.segment.text)).toEqual([
      "[Yr](https://yr.no/a)",
      "https://yr.no/a",
    ]);
  });
});
