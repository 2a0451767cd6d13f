import type { StoredStateOptions } from "@proxy/adapter-http-responses";
import {
  createSchemaCache,
  GatewayError,
  type IdGenerator,
  type SchemaCache,
  type TokenEncoding,
  toGatewayError,
} from "@proxy/core";
import {
  type Clock,
  type MediaFetcher,
  systemClock,
  type TextBackend,
  type TurnObserver,
  type TurnSettings,
} from "@proxy/core/gateway";
import {
  mountRoutes,
  OPENAI_FRONT,
  OPENAI_MODEL_LISTING,
  type RouteSettings,
  type SurfaceFront,
} from "@proxy/http-surface";
import { INSPECTOR_PATH, type Inspector } from "@proxy/inspector";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { BackendControl } from "./backend/backend-stack.js";
import { type KeyList, keyAuth } from "./http/auth.js";
import { bodyLimit } from "./http/body-limit.js";
import { methodNotAllowed, onError } from "./http/errors.js";
import { EXPOSED_HEADERS } from "./http/exposed-headers.js";
import { openApiDocument } from "./http/openapi.js";
import { createRequestContext, type RequestScope } from "./http/request-context.js";
import { type RequestGuardOptions, requestGuards } from "./http/request-guard.js";
import { routeHeaders } from "./http/route-headers.js";
import { allowedMethods, GATEWAY_ROUTES, type GatewayRouteSpec, ROUTES } from "./http/routes.js";
import { type GatewaySurfaceDeps, SURFACES, surfaceOf } from "./http/surfaces.js";
import { gatewayIndex, hintedNotFound, INSPECTOR_OFF } from "./http/url-guide.js";
import type { Logger } from "./observability/logger.js";
import type { Metrics } from "./observability/metrics.js";
import { lazyO200kEncoding } from "./tokens/lazy-o200k.js";
import { ADMIN_PREFIX, ADMIN_ROUTES, type AdminDeps, createAdminApp } from "./usage/admin-usage.js";

export interface AppDeps
  extends Partial<Pick<RequestGuardOptions, "bindHost" | "allowedHosts" | "metricsAuth">> {
  /** The backend stack's stream port (`backend/backend-stack.ts`)… */
  readonly backend: TextBackend;
  /** …and its control plane: drain, active turns, routes, plan limits. */
  readonly control: BackendControl;
  readonly settings: TurnSettings;
  /** A model's route settings (`models[].outputMode`), applied under the request's own headers. */
  readonly routeSettings?: ((model: string) => RouteSettings | undefined) | undefined;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly apiKeys: KeyList;
  readonly corsOrigins: ReadonlyArray<string>;
  readonly bodyLimitBytes: number;
  readonly version: string;
  /** SSE keep-alive interval for streams (0 = off). */
  readonly keepAliveMs?: number;
  /** How long a stream waits for a client that stopped reading (0 = forever). */
  readonly writeTimeoutMs?: number;
  /** Characters of output an answer held whole may reach (0 = no cap). */
  readonly maxAnswerChars?: number;
  readonly ids?: IdGenerator;
  /** The tokenizer (output limits, token counting); one o200k_base loaded on first use by default. */
  readonly tokens?: TokenEncoding;
  /** Request scope shared with the logger's mixin (so adapter log lines carry the request id). */
  readonly scope?: RequestScope;
  readonly clock?: Clock;
  /** Fetches http(s) images for backends that take only inline ones. */
  readonly media?: MediaFetcher;
  /** Stored responses and conversations (see state/); absent = stateless. */
  readonly stored?: StoredStateOptions | undefined;
  /** Told of every turn after the logs and metrics (usage accounting, traces). */
  readonly turnObservers?: ReadonlyArray<TurnObserver> | undefined;
  /** The admin endpoints (`/admin/*`); absent = they do not exist (no `PROXY_ADMIN_KEY`). */
  readonly admin?: AdminDeps | undefined;
  /** The request inspector (`/ui`), when PROXY_INSPECTOR is on. */
  readonly inspector?: Inspector | undefined;
  /** Compiled tool schemas for all surfaces; one per app by default. */
  readonly schemas?: SchemaCache | undefined;
}

/** The gateway's own API (`/v1/models`, and unknown `/v1` paths): key and body limit as the surfaces'. */
const GATEWAY_API = /^\/v1(\/|$)/;

/** The composition of HTTP concerns around the API surfaces (`SURFACES`); no I/O of its own. */
export const createApp = (deps: AppDeps): Hono => {
  const { backend, control, logger, metrics } = deps;
  const clock = deps.clock ?? systemClock;
  const context = createRequestContext({
    logger,
    metrics,
    observers: deps.turnObservers,
    ...(deps.scope ? { scope: deps.scope } : {}),
  });
  const app = new Hono();
  app.onError(onError(logger));
  app.use("*", context.middleware);
  app.use("*", routeHeaders(control));
  // The surface a request is for: refusals before it runs answer in its shape, with its key scheme.
  const frontFor = (c: Context): SurfaceFront => surfaceOf(c) ?? OPENAI_FRONT;
  app.use(
    "*",
    ...requestGuards({ ...deps, frontFor, sameOriginPrefixes: deps.inspector?.sameOriginPrefixes }),
  );
  if (deps.corsOrigins.length > 0) {
    const allowOrigins = cors({
      origin: deps.corsOrigins.includes("*") ? "*" : [...deps.corsOrigins],
      exposeHeaders: [...EXPOSED_HEADERS],
    });
    // The inspector is same-origin only: no CORS answer for its paths.
    const own = deps.inspector?.owns;
    app.use("*", own ? (c, next) => (own(c.req.path) ? next() : allowOrigins(c, next)) : allowOrigins);
  }

  deps.inspector?.mount(app);
  const G = GATEWAY_ROUTES;
  app.get(G.index.path, (c) =>
    c.json(
      gatewayIndex(new URL(c.req.url).origin, {
        version: deps.metricsAuth ? undefined : deps.version,
        inspector: deps.inspector !== undefined,
      }),
    ),
  );
  if (deps.inspector === undefined) {
    const off = (c: Context) =>
      OPENAI_FRONT.errorResponse(c, new GatewayError("not_found", INSPECTOR_OFF, { code: "inspector_off" }));
    app.all(INSPECTOR_PATH, off);
    app.all(`${INSPECTOR_PATH}/*`, off);
  }
  app.get(G.healthz.path, (c) => c.json({ status: "ok" }));
  /** The backend's readiness (and each model route's), recorded in the metrics as it is read. */
  const observeBackend = () => {
    const routes = control.routes();
    for (const r of routes ?? []) metrics.observeBackend(r, r.route);
    const r = backend.readiness();
    if (!routes) metrics.observeBackend(r);
    return { r, routes };
  };
  const finite = (n: number) => (Number.isFinite(n) ? n : null);
  app.get(G.readyz.path, (c) => {
    const { r, routes } = observeBackend();
    // Each backend defines `ready` as initialized and below capacity (not saturated).
    const ready = r.ready;
    return c.json(
      {
        status: ready ? "ready" : "not_ready",
        ...r,
        capacity: finite(r.capacity),
        ...(routes
          ? { routes: routes.map((route) => ({ ...route, capacity: finite(route.capacity) })) }
          : {}),
      },
      ready ? 200 : 503,
    );
  });
  app.get(G.metrics.path, async (c) => {
    observeBackend();
    return c.text(await metrics.registry.metrics(), 200, { "content-type": metrics.registry.contentType });
  });
  // The admin and inspector routes exist only when configured; so do their 405s and OpenAPI entries.
  const configured: ReadonlyArray<GatewayRouteSpec> = [
    ...(deps.admin ? mountRoutes(ADMIN_PREFIX, ADMIN_ROUTES) : []),
    ...(deps.inspector?.routes ?? []),
  ];
  const routes: ReadonlyArray<GatewayRouteSpec> = [...ROUTES, ...configured];
  const own: ReadonlyArray<GatewayRouteSpec> = [...Object.values(G), ...configured];
  const groups = [{ routes: own }, ...SURFACES.map((s) => ({ api: s.api, routes: s.routes }))];
  app.get(G.openapi.path, (c) => c.json(openApiDocument(deps.version, groups)));
  if (deps.admin) app.route(ADMIN_PREFIX, createAdminApp(deps.admin));

  const authenticate = keyAuth(deps.apiKeys);
  const tooLarge = new GatewayError(
    "request_too_large",
    `Request body is larger than ${deps.bodyLimitBytes} bytes.`,
  );
  /** Each front's body limit, built once (a refusal answers in that front's shape). */
  const limits = new Map<SurfaceFront, MiddlewareHandler>(
    [OPENAI_FRONT, ...SURFACES].map((front) => [
      front,
      bodyLimit({ maxSize: deps.bodyLimitBytes, onError: (c) => front.errorResponse(c, tooLarge) }),
    ]),
  );
  /** A surface's request, wherever the surface is mounted, or the gateway's own `/v1` API. */
  const guard: MiddlewareHandler = async (c, next) => {
    const owner = surfaceOf(c);
    if (owner === undefined && !GATEWAY_API.test(c.req.path)) return next();
    const front = owner ?? OPENAI_FRONT;
    try {
      authenticate(c, front.auth);
    } catch (error) {
      return front.errorResponse(c, toGatewayError(error));
    }
    return limits.get(front)?.(c, next) ?? next();
  };
  app.use("*", guard);

  // `GET /v1/models` is shared: each surface's clients get its own listing shape (OpenAI's by default).
  const listingFor = (c: Context) =>
    SURFACES.find((s) => s.models?.claims(c))?.models ?? OPENAI_MODEL_LISTING;
  app.get(G.models.path, async (c) =>
    c.json(listingFor(c).list(await backend.listModels(), clock) as object),
  );
  app.get(G.model.path, async (c) =>
    c.json(listingFor(c).one(c.req.param("id"), await backend.listModels(), clock) as object),
  );

  const surfaceDeps: GatewaySurfaceDeps = {
    backend,
    tokens: deps.tokens ?? lazyO200kEncoding(),
    ids: deps.ids,
    clock,
    settings: deps.settings,
    routeSettings: deps.routeSettings,
    observer: context.observer,
    media: deps.media,
    keepAliveMs: deps.keepAliveMs,
    writeTimeoutMs: deps.writeTimeoutMs,
    stored: deps.stored,
    maxAnswerChars: deps.maxAnswerChars,
    trace: deps.inspector?.traceFor,
    schemas: deps.schemas ?? createSchemaCache(),
  };
  for (const surface of SURFACES) surface.mount(app, surfaceDeps);

  for (const [path, allow] of allowedMethods(routes)) app.all(path, methodNotAllowed(allow));
  // An unknown URL one slip from a route (`/chat/completions`, `/v1/v1/…`) is told the path meant.
  app.notFound(
    hintedNotFound(
      [
        // The gateway's own first: `/v1/models` is OpenAI's unless a Google client asks.
        { front: OPENAI_FRONT, routes: own },
        ...SURFACES.map((s) => ({ front: s, routes: s.routes, api: s.api })),
      ],
      surfaceOf,
    ),
  );
  return app;
};
