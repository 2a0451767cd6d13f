import { isGatewayError } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { decodeResponsesHostedTools } from "../src/request/hosted-tools.js";

describe("the hosted web search a Responses request asks for", () => {
  it("reads web_search and its dated and preview names, with allowed domains and the context size", () => {
    for (const type of [
      "web_search",
      "web_search_preview",
      "web_search_preview_2025_03_11",
      "web_search_2025_08_26",
    ])
      expect(decodeResponsesHostedTools([{ type: "function", name: "f" }, { type }]).webSearch).toMatchObject(
        {
          tool: type,
          param: "tools[1]",
        },
      );
    expect(
      decodeResponsesHostedTools([
        { type: "web_search", filters: { allowed_domains: ["yr.no"] }, search_context_size: "low" },
      ]).webSearch,
    ).toMatchObject({ allowedDomains: ["yr.no"], contextSize: "low" });
    expect(decodeResponsesHostedTools([{ type: "file_search" }, { type: "function", name: "f" }])).toEqual(
      {},
    );
    expect(decodeResponsesHostedTools(undefined)).toEqual({});
  });

  it("a bad setting is a 400 naming its field", () => {
    const problem = (tool: unknown) => {
      try {
        decodeResponsesHostedTools([tool]);
      } catch (e) {
        return isGatewayError(e) ? [e.kind, e.param] : e;
      }
      return undefined;
    };
    expect(problem({ type: "web_search", search_context_size: "huge" })).toEqual([
      "invalid_request",
      "tools[0].search_context_size",
    ]);
    expect(problem({ type: "web_search", filters: { allowed_domains: "yr.no" } })).toEqual([
      "invalid_request",
      "tools[0].filters.allowed_domains",
    ]);
  });
});
