import { GatewayError, type UsageFilter, type UsageStore } from "@proxy/core";
import { Hono } from "hono";
import { adminAuth } from "../http/admin-auth.js";
import type { GatewayRouteSpec } from "../http/routes.js";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const dayParam = (name: "from" | "to", value: string | undefined): string | undefined => {
  if (value === undefined || value === "") return undefined;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new GatewayError("invalid_request", `'${name}' must be a UTC date YYYY-MM-DD, got '${value}'.`, {
      param: name,
    });
  return value;
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
    summary: "Per-key usage rows (key, route, UTC day) and their totals; `?key=&route=&from=&to=`.",
    admin: true,
  },
} as const satisfies Record<string, GatewayRouteSpec>;

/**
 * `/admin/*` behind the admin key: `GET /admin/usage?key=&route=&from=&to=` lists per-key usage
 * rows (one per key, route and UTC day) with their totals.
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
    await deps.settle?.();
    const rows = await deps.usage.usage(filter);
    const total = {
      requests: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      toolCalls: 0,
      errors: 0,
    };
    for (const row of rows)
      for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += row[k];
    return c.json({ object: "usage", filter, data: rows, total });
  });
  return app;
};
