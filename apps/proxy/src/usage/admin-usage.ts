import { GatewayError } from "@proxy/core";
import type { UsageCursor, UsageFilter, UsageStore } from "@proxy/core/gateway";
import { Hono } from "hono";
import { adminAuth } from "../http/admin-auth.js";
import type { GatewayRouteSpec } from "../http/routes.js";

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Rows a page holds unless `limit` says otherwise, and the most it may ask for. */
export const USAGE_PAGE_DEFAULT = 100;
export const USAGE_PAGE_MAX = 1000;
/** A cursor names a row (day, key, route); anything longer was not written by this gateway. */
const MAX_CURSOR_CHARS = 1024;

const invalid = (param: string, message: string) => new GatewayError("invalid_request", message, { param });

const dayParam = (name: "from" | "to", value: string | undefined): string | undefined => {
  if (value === undefined || value === "") return undefined;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw invalid(name, `'${name}' must be a UTC date YYYY-MM-DD, got '${value.slice(0, 40)}'.`);
  return value;
};

const limitParam = (value: string | undefined): number => {
  if (value === undefined) return USAGE_PAGE_DEFAULT;
  const limit = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= USAGE_PAGE_MAX))
    throw invalid("limit", `'limit' must be a whole number from 1 to ${USAGE_PAGE_MAX}.`);
  return limit;
};

/** `next_page` is the last row's (day, key, route), base64url JSON: opaque to clients. */
const cursorOf = (row: UsageCursor): string =>
  Buffer.from(JSON.stringify([row.day, row.key, row.route])).toString("base64url");

const pageParam = (value: string | undefined): UsageCursor | undefined => {
  if (value === undefined) return undefined;
  const bad = () => invalid("page", "'page' must be the `next_page` of an earlier answer.");
  if (value.length > MAX_CURSOR_CHARS) throw bad();
  try {
    const parts = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(parts) && parts.length === 3 && parts.every((p) => typeof p === "string")) {
      const [day, key, route] = parts as [string, string, string];
      return { day, key, route };
    }
  } catch {}
  throw bad();
};

export interface AdminDeps {
  readonly adminKey: string;
  readonly usage: UsageStore;
  /** Waits for this process's usage writes under way, so an answer includes turns that just ended. */
  readonly settle?: (() => Promise<void>) | undefined;
}

/** Where the admin app is mounted. */
export const ADMIN_PREFIX = "/admin";

/** The admin routes, relative to `ADMIN_PREFIX`: the handlers, 405 answers and `/openapi.json` read them. */
export const ADMIN_ROUTES = {
  usage: {
    method: "GET",
    path: "/usage",
    summary:
      "Per-key usage rows (key, route, UTC day), a page at a time, and the totals of all rows matching; `?key=&route=&from=&to=&limit=&page=`.",
    admin: true,
  },
} as const satisfies Record<string, GatewayRouteSpec>;

/**
 * `/admin/*` behind the admin key: `GET /admin/usage?key=&route=&from=&to=&limit=&page=` lists
 * per-key usage rows (one per key, route and UTC day) a page at a time (`has_more`, and
 * `next_page` to pass as `page`), with the totals of every row the filter matches.
 */
export const createAdminApp = (deps: AdminDeps): Hono => {
  const app = new Hono();
  app.use("*", adminAuth(deps.adminKey));
  app.get(ADMIN_ROUTES.usage.path, async (c) => {
    const q = (name: string) => c.req.query(name) || undefined;
    const filter: UsageFilter = {
      key: q("key"),
      route: q("route"),
      from: dayParam("from", q("from")),
      to: dayParam("to", q("to")),
    };
    const limit = limitParam(q("limit"));
    const after = pageParam(q("page"));
    await deps.settle?.();
    const [page, total] = await Promise.all([
      deps.usage.usage(filter, { limit, after }),
      deps.usage.usageTotals(filter),
    ]);
    const last = page.data.at(-1);
    return c.json({
      object: "usage",
      filter,
      data: page.data,
      total,
      has_more: page.hasMore,
      next_page: page.hasMore && last !== undefined ? cursorOf(last) : null,
    });
  });
  return app;
};
