import { describe, expect, it } from "vitest";
import { citedLinks, citedPages } from "../../src/index.js";

describe("the pages an answer cites", () => {
  it("reads markdown links with their titles and bare URLs with their hosts, at their offsets", () => {
    const text = "Sunny, per [Yr](https://yr.no/oslo). See https://met.no/x. Again [yr](https://yr.no/oslo).";
    const links = citedLinks(text);
    expect(links.map((l) => [l.url, l.title])).toEqual([
      ["https://yr.no/oslo", "Yr"],
      ["https://met.no/x", "met.no"],
      ["https://yr.no/oslo", "yr"],
    ]);
    for (const l of links) expect(text.slice(l.start, l.end)).toContain(l.url);
    expect(text.slice(links[0]?.start, links[0]?.end)).toBe("[Yr](https://yr.no/oslo)");
    expect(citedPages(links).map((l) => l.url)).toEqual(["https://yr.no/oslo", "https://met.no/x"]);
  });

  it("finds nothing in text without links", () => {
    expect(citedLinks("no links here, not even http:// alone")).toEqual([]);
  });
});
