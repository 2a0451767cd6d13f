import { GatewayError } from "@proxy/core";
import { OPENAI_FRONT, type RouteSpec, type SurfaceFront } from "@proxy/http-surface";
import { INSPECTOR_PATH } from "@proxy/inspector";
import type { Context } from "hono";

/**
 * Surfaces whose clients add the API version themselves (the Anthropic and Google SDKs, Claude Code,
 * the Gemini CLI): their base URL is the host alone. OpenAI clients' base URL ends in `/v1`.
 */
const HOST_ONLY_BASE_URL: ReadonlySet<string> = new Set(["messages", "gemini"]);

/** How a surface's clients write the gateway's base URL. */
export const baseUrlOf = (api: string | undefined, origin: string): string =>
  api !== undefined && HOST_ONLY_BASE_URL.has(api) ? origin : `${origin}/v1`;

/** A front (error shape) with the routes it answers for. */
export interface FrontRoutes {
  readonly front: SurfaceFront;
  readonly routes: ReadonlyArray<RouteSpec>;
  /** The surface's name (`chat`, `messages`, …); absent: the gateway's own routes. */
  readonly api?: string | undefined;
}

/** The regex a route's path matches (`/v1/responses/:id`, `/v1beta/models/:model:generateContent`). */
const patternOf = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:\w+/g, "/[^/:]+")}$`);

/** API version prefixes a base URL can end in (`…/v1`, `…/v1beta`). */
const VERSION_SEGMENT = /\/v1(beta)?(?=\/)/g;

/**
 * Paths a client may have meant by `path`: with the version prefix a base URL forgot
 * (`/chat/completions`), without what came before the last one (`/v1/v1/…`, `/api/v1/…`).
 */
const candidatesFor = (path: string): string[] => {
  // A model action (`/models/m:generateContent`) is Gemini's, whose clients' default is `/v1beta`.
  const out = /:[A-Za-z]+$/.test(path) ? [`/v1beta${path}`, `/v1${path}`] : [`/v1${path}`, `/v1beta${path}`];
  const versions = [...path.matchAll(VERSION_SEGMENT)];
  for (const v of versions.slice(1).concat(versions[0]?.index ? [versions[0]] : []))
    out.push(path.slice(v.index));
  return out;
};

/** What `path` most likely meant, with whose error shape and base URL, if one slip away from a route. */
export const meantRoute = (
  method: string,
  path: string,
  fronts: ReadonlyArray<FrontRoutes>,
): { readonly path: string; readonly method: string; readonly owner: FrontRoutes } | undefined => {
  let fallback: { path: string; method: string; owner: FrontRoutes } | undefined;
  for (const candidate of candidatesFor(path))
    for (const owner of fronts)
      for (const route of owner.routes) {
        if (!patternOf(route.path).test(candidate)) continue;
        if (route.method === method) return { path: candidate, method, owner };
        fallback ??= { path: candidate, method: route.method, owner };
      }
  return fallback;
};

/**
 * The 404 of an unknown URL, in the shape of the surface it was most likely meant for, naming the
 * path it meant and how to write the base URL; other unknown URLs get the shape of the surface that
 * owns the path (OpenAI's otherwise).
 */
export const hintedNotFound =
  (fronts: ReadonlyArray<FrontRoutes>, ownerOf: (c: Context) => SurfaceFront | undefined) =>
  (c: Context): Response => {
    const { method, path } = c.req;
    const unknown = `Unknown request URL: ${method} ${path}.`;
    const meant = meantRoute(method, path, fronts);
    if (meant === undefined) {
      const error = new GatewayError("not_found", unknown, { code: "unknown_url" });
      return (ownerOf(c) ?? OPENAI_FRONT).errorResponse(c, error);
    }
    const base = baseUrlOf(meant.owner.api, new URL(c.req.url).origin);
    const message = `${unknown} Did you mean ${meant.method} ${meant.path}? Its clients take the base URL ${base}.`;
    return meant.owner.front.errorResponse(
      c,
      new GatewayError("not_found", message, { code: "unknown_url" }),
    );
  };

/**
 * `GET /`: where things are, for someone who opened the gateway's address in a browser or curl.
 * The version only where `/openapi.json` shows it too (not behind `PROXY_METRICS_AUTH`).
 */
export const gatewayIndex = (
  origin: string,
  options: { readonly version?: string | undefined; readonly inspector: boolean },
) => ({
  name: "codex-tool-gateway",
  ...(options.version ? { version: options.version } : {}),
  base_urls: {
    openai: baseUrlOf("chat", origin),
    anthropic: baseUrlOf("messages", origin),
    gemini: baseUrlOf("gemini", origin),
  },
  endpoints: {
    chat_completions: "/v1/chat/completions",
    responses: "/v1/responses",
    messages: "/v1/messages",
    gemini: "/v1beta/models/{model}:generateContent",
    models: "/v1/models",
  },
  openapi: "/openapi.json",
  healthz: "/healthz",
  readyz: "/readyz",
  inspector: options.inspector ? INSPECTOR_PATH : INSPECTOR_OFF,
});

/** What `/ui` says while the inspector is off. */
export const INSPECTOR_OFF = `The request inspector is off: start the gateway with PROXY_INSPECTOR=on (with API keys set, PROXY_ADMIN_KEY too) and open ${INSPECTOR_PATH}.`;
