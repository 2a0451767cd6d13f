import { invalidRequest } from "@proxy/core";
import type { Page, PageQuery, StoredItem } from "@proxy/core/gateway";
import type { Context } from "hono";

/** `limit` (1–100, default 20), `order` (default desc), `after`, `before` of a list endpoint. */
export const pageQueryOf = (c: Context): PageQuery => {
  const rawLimit = c.req.query("limit");
  const limit = rawLimit === undefined ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidRequest(
      `Invalid 'limit': expected an integer between 1 and 100, got '${rawLimit}'.`,
      "limit",
      "invalid_value",
    );
  const order = c.req.query("order") ?? "desc";
  if (order !== "asc" && order !== "desc")
    throw invalidRequest(
      `Invalid 'order': expected 'asc' or 'desc', got '${order}'.`,
      "order",
      "invalid_value",
    );
  const after = c.req.query("after");
  const before = c.req.query("before");
  return { limit, order, ...(after ? { after } : {}), ...(before ? { before } : {}) };
};

/** OpenAI's list envelope. */
export const listBody = (page: Page<StoredItem>) => ({
  object: "list" as const,
  data: page.data.map((item) => item.body),
  first_id: page.data[0]?.id ?? null,
  last_id: page.data.at(-1)?.id ?? null,
  has_more: page.hasMore,
});
