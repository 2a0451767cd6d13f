import type { WebSearchAction } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";

type WebSearchEvent = Extract<BackendEvent, { type: "web-search" }>;

const text = (u: unknown): string | undefined => (typeof u === "string" && u !== "" ? u : undefined);

/**
 * codex's `WebSearchAction` (camelCase tags, `other` for "not known yet") in the Responses API's
 * terms. Verified shapes (0.169): `{type:"search", query, queries}` when done, `{type:"other"}` at
 * the item's start.
 */
const actionOf = (
  action: Readonly<Record<string, unknown>> | null | undefined,
): WebSearchAction | undefined => {
  switch (action?.type) {
    case "search": {
      const queries = Array.isArray(action.queries)
        ? action.queries.filter((q): q is string => typeof q === "string")
        : undefined;
      return { type: "search", query: text(action.query), ...(queries?.length ? { queries } : {}) };
    }
    case "openPage":
      return { type: "open_page", url: text(action.url) };
    case "findInPage":
      return { type: "find_in_page", url: text(action.url), pattern: text(action.pattern) };
    default:
      return undefined;
  }
};

/** One `webSearch` thread item (`item/started` or `item/completed`) as the turn's `web-search` event. */
export const webSearchEvent = (
  item: {
    readonly id?: string | null | undefined;
    readonly query?: string | null | undefined;
    readonly action?: Readonly<Record<string, unknown>> | null | undefined;
  },
  status: WebSearchEvent["status"],
): WebSearchEvent => {
  const action = actionOf(item.action);
  const query = text(item.query) ?? (action?.type === "search" ? action.query : undefined);
  return {
    type: "web-search",
    id: text(item.id) ?? "ws_unknown",
    status,
    ...(query !== undefined ? { query } : {}),
    ...(action !== undefined ? { action } : {}),
  };
};
