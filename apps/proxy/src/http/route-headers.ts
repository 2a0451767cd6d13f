import type { PlanLimits } from "@proxy/core/gateway";
import { requestTurn } from "@proxy/http-surface";
import type { MiddlewareHandler } from "hono";
import type { BackendControl } from "../backend/backend-stack.js";

/**
 * `x-proxy-route` names the route that answered (the last one tried, after fallbacks), and a codex
 * route's answers carry its plan's last known usage as the `x-codex-primary-*` /
 * `x-codex-secondary-*` headers codex itself reads from the ChatGPT backend (used percent, window
 * minutes, reset time in unix seconds), so tools that read those names work through the gateway.
 * A window not known is left out. A stream's headers hold what was known when it started. The route
 * is the one the turn's own stream named (its `stream-start`, or the refusal before it).
 */
const ROUTE_HEADER = "x-proxy-route";
const WINDOWS = ["primary", "secondary"] as const;
const planHeader = (window: (typeof WINDOWS)[number], what: "used-percent" | "window-minutes" | "reset-at") =>
  `x-codex-${window}-${what}`;

/** Every header this middleware may set (a browser is allowed to read them: see `EXPOSED_HEADERS`). */
export const ROUTE_HEADER_NAMES: ReadonlyArray<string> = [
  ROUTE_HEADER,
  ...WINDOWS.flatMap((w) => [
    planHeader(w, "used-percent"),
    planHeader(w, "window-minutes"),
    planHeader(w, "reset-at"),
  ]),
];

export const routeHeaders =
  (control: BackendControl): MiddlewareHandler =>
  async (c, next) => {
    await next();
    const route = requestTurn(c)?.route();
    if (route === undefined) return;
    const headers = c.res.headers;
    headers.set(ROUTE_HEADER, route);
    setPlanHeaders(headers, control.planLimitsOf(route));
  };

const setPlanHeaders = (headers: Headers, limits: PlanLimits | undefined) => {
  for (const name of WINDOWS) {
    const w = limits?.[name];
    if (w === undefined) continue;
    headers.set(planHeader(name, "used-percent"), String(w.usedPercent));
    if (w.windowMinutes !== undefined)
      headers.set(planHeader(name, "window-minutes"), String(w.windowMinutes));
    if (w.resetsAt !== undefined) headers.set(planHeader(name, "reset-at"), String(w.resetsAt));
  }
};
