import { type CitedLink, citedLinks, citedPages } from "@proxy/core";
import type { MessagesStreamEvent, WebSearchCitation, WebSearchResult } from "./message-shapes.js";

/**
 * The blocks of a hosted web search as Anthropic streams them: a `server_tool_use` (`web_search`,
 * its query as the input's JSON), its `web_search_tool_result`, and text blocks cut at the links
 * the answer cites, each cited part with its `citations_delta`. codex tells the query, not the
 * results: the results are the pages the answer's links name (docs/hosted-tools.md).
 */

/** Anthropic's server tool ids are `srvtoolu_…`; codex's search item ids are the provider's `ws_…`. */
export const serverToolUseId = (searchId: string): string => `srvtoolu_${searchId.replace(/^ws_/, "")}`;

export const serverToolUseBlock = (index: number, id: string, query: string): MessagesStreamEvent[] => [
  {
    type: "content_block_start",
    index,
    content_block: { type: "server_tool_use", id, name: "web_search", input: {} },
  },
  {
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json: JSON.stringify({ query }) },
  },
  { type: "content_block_stop", index },
];

const resultOf = (link: CitedLink): WebSearchResult => ({
  type: "web_search_result",
  url: link.url,
  title: link.title,
  encrypted_content: "",
  page_age: null,
});

/** A search's result block, its entries the pages of `text` (the answer that followed it). */
export const searchResultBlock = (index: number, toolUseId: string, text: string): MessagesStreamEvent[] => [
  {
    type: "content_block_start",
    index,
    content_block: {
      type: "web_search_tool_result",
      tool_use_id: toolUseId,
      content: citedPages(citedLinks(text)).map(resultOf),
    },
  },
  { type: "content_block_stop", index },
];

const citationOf = (link: CitedLink, text: string): WebSearchCitation => ({
  type: "web_search_result_location",
  url: link.url,
  title: link.title,
  encrypted_index: "",
  cited_text: text.slice(link.start, link.end),
});

/**
 * `text` as text blocks from `index` on, cut at its links: the plain runs as they are, each link
 * as a block with its citation. Returns the events and the next free index.
 */
export const citedTextBlocks = (
  index: number,
  text: string,
): { readonly events: MessagesStreamEvent[]; readonly next: number } => {
  const events: MessagesStreamEvent[] = [];
  let at = 0;
  let i = index;
  const block = (part: string, link: CitedLink | undefined) => {
    if (part === "") return;
    events.push({ type: "content_block_start", index: i, content_block: { type: "text", text: "" } });
    if (link !== undefined)
      events.push({
        type: "content_block_delta",
        index: i,
        delta: { type: "citations_delta", citation: citationOf(link, text) },
      });
    events.push({ type: "content_block_delta", index: i, delta: { type: "text_delta", text: part } });
    events.push({ type: "content_block_stop", index: i });
    i++;
  };
  for (const link of citedLinks(text)) {
    block(text.slice(at, link.start), undefined);
    block(text.slice(link.start, link.end), link);
    at = link.end;
  }
  block(text.slice(at), undefined);
  return { events, next: i };
};
