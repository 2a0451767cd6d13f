import { citedLinks, citedPages } from "@proxy/core";
import type { GroundingMetadata } from "../response-shapes.js";

const encoder = new TextEncoder();
const bytes = (text: string): number => encoder.encode(text).length;

/**
 * The `groundingMetadata` of an answer that searched the web: the queries codex reported, and as
 * chunks and supports the pages the answer's links name (codex tells the query, not the results:
 * docs/hosted-tools.md). Google's segment offsets are UTF-8 bytes into the answer's text.
 */
export const groundingOf = (queries: ReadonlyArray<string>, text: string): GroundingMetadata => {
  const links = citedLinks(text);
  const pages = citedPages(links);
  const chunkOf = new Map(pages.map((p, i) => [p.url, i]));
  return {
    webSearchQueries: queries,
    groundingChunks: pages.map((p) => ({ web: { uri: p.url, title: p.title } })),
    groundingSupports: links.map((l) => ({
      segment: {
        startIndex: bytes(text.slice(0, l.start)),
        endIndex: bytes(text.slice(0, l.end)),
        text: text.slice(l.start, l.end),
      },
      groundingChunkIndices: [chunkOf.get(l.url) ?? 0],
    })),
  };
};
