import { GatewayError } from "@proxy/core";
import { OPENAI_FRONT, type SurfaceFront } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth, type KeyList } from "./auth.js";

export interface RequestGuardOptions {
  /** The address the server is bound to: on loopback only loopback `Host` names are served. */
  readonly bindHost?: string | undefined;
  /** `Host` names accepted besides loopback ones (`*` for any). */
  readonly allowedHosts?: ReadonlyArray<string> | undefined;
  /** Browser origins allowed to call the gateway (`*` for any); any other `Origin` is refused. */
  readonly corsOrigins: ReadonlyArray<string>;
  readonly apiKeys: KeyList;
  /** Also require an API key on the operational routes. */
  readonly metricsAuth?: boolean | undefined;
  /** The surface a request is for (refusals answer in its error shape); OpenAI's by default. */
  readonly frontFor?: ((c: Context) => SurfaceFront) | undefined;
  /** Paths of the gateway's own page (the inspector), whose same-origin form posts carry an `Origin`. */
  readonly sameOriginPrefixes?: ReadonlyArray<string> | undefined;
}

const OPERATIONAL_ROUTES = new Set(["/metrics", "/readyz", "/openapi.json"]);

export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" ||
  host.endsWith(".localhost") ||
  host === "::1" ||
  host === "[::1]" ||
  /^127(\.\d{1,3}){3}$/.test(host);

/** `Host` header → bare lower-case name: port, IPv6 brackets and a trailing dot removed. */
const hostName = (header: string): string => {
  const h = header.trim().toLowerCase();
  const name = h.startsWith("[") ? h.slice(1, h.indexOf("]")) : h.replace(/:\d*$/, "");
  return name.replace(/\.$/, "");
};

/**
 * What keeps a browser page from driving the gateway: a foreign `Host` (DNS rebinding against a
 * loopback gateway), an `Origin` the operator did not allow, and a body that is not JSON (a
 * "simple" cross-site POST needs no preflight only with text/plain or a form type) are refused
 * before anything else runs. Non-browser clients send JSON and no `Origin`, and are unaffected.
 */
export const requestGuards = (options: RequestGuardOptions): MiddlewareHandler[] => {
  const extraHosts = new Set((options.allowedHosts ?? []).map((h) => hostName(h)));
  const anyHost = extraHosts.has("*");
  const checkHost =
    !anyHost && (extraHosts.size > 0 || (options.bindHost !== undefined && isLoopbackHost(options.bindHost)));
  const anyOrigin = options.corsOrigins.includes("*");
  const origins = new Set(options.corsOrigins);
  const auth = bearerAuth(options.apiKeys);
  const frontFor = options.frontFor ?? (() => OPENAI_FRONT);
  const refuse = (c: Context, status: 403 | 415, message: string, code: string, param: string) =>
    frontFor(c).errorResponse(c, new GatewayError("invalid_request", message, { code, param }), status);

  const ownPage = options.sameOriginPrefixes ?? [];
  /** A post from the gateway's own page names the gateway itself (the Host check vouches for it). */
  const sameOrigin = (c: Context, value: string) =>
    ownPage.some((p) => c.req.path === p || c.req.path.startsWith(`${p}/`)) &&
    URL.canParse(value) &&
    new URL(value).host === c.req.header("host");

  /** The refusal for this request, or undefined when it may go on. */
  const refusal = (c: Context): Response | Promise<Response> | undefined => {
    const host = c.req.header("host");
    if (checkHost && host !== undefined) {
      const name = hostName(host);
      if (!isLoopbackHost(name) && !extraHosts.has(name))
        return refuse(
          c,
          403,
          `The host '${name}' is not served here; add it to PROXY_ALLOWED_HOSTS if it is a reverse proxy's name.`,
          "host_not_allowed",
          "host",
        );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !anyOrigin && !origins.has(origin) && !sameOrigin(c, origin))
      return refuse(
        c,
        403,
        `Requests from the origin '${origin}' are not allowed; list it in PROXY_CORS_ORIGINS to allow it.`,
        "origin_not_allowed",
        "origin",
      );
    if (c.req.method === "POST") {
      // A POST without a body (`responses.cancel`) carries nothing a page could smuggle in.
      const length = c.req.header("content-length");
      const bodyless =
        length === "0" || (length === undefined && c.req.header("transfer-encoding") === undefined);
      const path = c.req.path;
      if (!bodyless && (path.startsWith("/v1/") || path.startsWith("/v1beta/"))) {
        const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
        if (type !== "application/json")
          return refuse(
            c,
            415,
            `Content-Type must be application/json${type ? `, not '${type}'` : ""}.`,
            "unsupported_media_type",
            "content-type",
          );
      }
    }
    return undefined;
  };
  // One middleware, not four: each level of hono's chain costs a closure and a promise per request.
  const guard: MiddlewareHandler = (c, next) => {
    const refused = refusal(c);
    if (refused !== undefined) return Promise.resolve(refused);
    return options.metricsAuth && OPERATIONAL_ROUTES.has(c.req.path) ? auth(c, next) : next();
  };
  return [guard];
};
