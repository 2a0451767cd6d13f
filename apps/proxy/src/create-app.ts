import { createChatCompletionsApp } from "@proxy/adapter-http-chat";
import { createGeminiApp, createGeminiEndpointApp, geminiErrorBody } from "@proxy/adapter-http-gemini";
import {
  anthropicErrorBody,
  anthropicModel,
  anthropicModelList,
  createMessagesApp,
} from "@proxy/adapter-http-messages";
import { createResponsesApp, type StoredStateOptions } from "@proxy/adapter-http-responses";
import {
  type Clock,
  GatewayError,
  type IdGenerator,
  type MediaFetcher,
  systemClock,
  type TurnSettings,
  unixSeconds,
} from "@proxy/core";
import { errorResponse, openAIErrorBody, type RouteSettings } from "@proxy/http-surface";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { GatewayBackend } from "./backend/gateway-backend.js";
import { bearerAuth, type KeyList } from "./http/auth.js";
import { methodNotAllowed, notFound, onError } from "./http/errors.js";
import { googleKeyAuth, isGeminiRequest } from "./http/google-auth.js";
import { openApiDocument } from "./http/openapi.js";
import { createRequestContext, type RequestScope, type RequestTurnObserver } from "./http/request-context.js";
import { type RequestGuardOptions, requestGuards } from "./http/request-guard.js";
import { routeHeaders } from "./http/route-headers.js";
import { allowedMethods, GATEWAY_ROUTES, ROUTES } from "./http/routes.js";
import type { Inspector } from "./inspector/inspector.js";
import type { Logger } from "./observability/logger.js";
import type { Metrics } from "./observability/metrics.js";
import { type AdminDeps, createAdminApp } from "./usage/admin-usage.js";

export interface AppDeps
  extends Partial<Pick<RequestGuardOptions, "bindHost" | "allowedHosts" | "metricsAuth">> {
  readonly backend: GatewayBackend;
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
  /** Request scope shared with the logger's mixin (so adapter log lines carry the request id). */
  readonly scope?: RequestScope;
  readonly clock?: Clock;
  /** Fetches http(s) images for backends that take only inline ones. */
  readonly media?: MediaFetcher;
  /** Stored responses and conversations (see state/); absent = stateless. */
  readonly stored?: StoredStateOptions | undefined;
  /** Told of every turn after the logs and metrics (usage accounting, traces). */
  readonly turnObservers?: ReadonlyArray<RequestTurnObserver> | undefined;
  /** The admin endpoints (`/admin/*`); absent = they do not exist (no `PROXY_ADMIN_KEY`). */
  readonly admin?: AdminDeps | undefined;
  /** The request inspector (`/ui`), when PROXY_INSPECTOR is on. */
  readonly inspector?: Inspector | undefined;
}

/** The composition of HTTP concerns around the two API sub-apps; no I/O of its own. */
export const createApp = (deps: AppDeps): Hono => {
  const { backend, logger, metrics } = deps;
  const clock = deps.clock ?? systemClock;
  const context = createRequestContext({
    logger,
    metrics,
    observers: deps.turnObservers,
    ...(deps.scope ? { scope: deps.scope } : {}),
  });
  const app = new Hono();
  app.onError(onError(logger));
  app.notFound(notFound);
  app.use("*", context.middleware);
  app.use("*", routeHeaders(backend, context.answeringRoute));
  // Refusals before any surface runs still answer in the shape of the surface asked for.
  const errorShapeFor = (c: Context) =>
    c.req.path.startsWith("/v1/messages")
      ? anthropicErrorBody
      : c.req.path.startsWith("/v1beta/") || isGeminiRequest(c)
        ? geminiErrorBody
        : openAIErrorBody;
  app.use(
    "*",
    ...requestGuards({ ...deps, errorShapeFor, sameOriginPrefixes: deps.inspector?.sameOriginPrefixes }),
  );
  if (deps.corsOrigins.length > 0) {
    app.use(
      "*",
      cors({
        origin: deps.corsOrigins.includes("*") ? "*" : [...deps.corsOrigins],
        exposeHeaders: ["x-request-id"],
      }),
    );
  }

  deps.inspector?.mount(app);
  const G = GATEWAY_ROUTES;
  app.get(G.healthz.path, (c) => c.json({ status: "ok" }));
  /** The backend's readiness (and each model route's), recorded in the metrics as it is read. */
  const observeBackend = () => {
    const routes = backend.routes?.();
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
  app.get(G.openapi.path, (c) => c.json(openApiDocument(deps.version, ROUTES)));
  if (deps.admin) app.route("/admin", createAdminApp(deps.admin));

  const v1 = new Hono();
  const bearer = bearerAuth(deps.apiKeys);
  const googleAuth = googleKeyAuth(deps.apiKeys);
  // Gemini requests under /v1 take Google's key headers and get Google-shaped refusals.
  v1.use("*", (c, next) => (isGeminiRequest(c) ? googleAuth(c, next) : bearer(c, next)));
  const tooLarge = new GatewayError(
    "request_too_large",
    `Request body is larger than ${deps.bodyLimitBytes} bytes.`,
  );
  const limit = (shape = errorResponse) =>
    bodyLimit({ maxSize: deps.bodyLimitBytes, onError: (c) => shape(c, tooLarge) });
  const openAILimit = limit();
  const geminiLimit = limit((c, e) => errorResponse(c, e, geminiErrorBody));
  v1.use("*", (c, next) => (isGeminiRequest(c) ? geminiLimit(c, next) : openAILimit(c, next)));
  // Anthropic clients (Claude Code, the Anthropic SDK) send `anthropic-version`; Google's send
  // `x-goog-api-key`. The same path serves each its own listing shape.
  const anthropicListing = (c: { req: { header(name: string): string | undefined } }) =>
    c.req.header("anthropic-version") !== undefined;
  v1.get(G.models.path.slice("/v1".length), async (c, next) => {
    if (isGeminiRequest(c)) return next();
    const created = unixSeconds(clock);
    const models = await backend.listModels();
    if (anthropicListing(c)) return c.json(anthropicModelList(models, new Date(clock.now()).toISOString()));
    return c.json({
      object: "list",
      data: models.map((m) => ({ id: m.id, object: "model", created, owned_by: m.ownedBy ?? "codex" })),
    });
  });
  v1.get(G.model.path.slice("/v1".length), async (c, next) => {
    if (isGeminiRequest(c)) return next();
    const model = (await backend.listModels()).find((m) => m.id === c.req.param("id"));
    if (!model)
      throw new GatewayError("not_found", `The model '${c.req.param("id")}' does not exist.`, {
        param: "model",
        code: "model_not_found",
      });
    if (anthropicListing(c)) return c.json(anthropicModel(model, new Date(clock.now()).toISOString()));
    return c.json({
      id: model.id,
      object: "model",
      created: unixSeconds(clock),
      owned_by: model.ownedBy ?? "codex",
    });
  });
  const adapterDeps = {
    backend,
    ids: deps.ids,
    clock,
    settings: deps.settings,
    routeSettings: deps.routeSettings,
    observer: context.observer,
    media: deps.media,
    keepAliveMs: deps.keepAliveMs,
    writeTimeoutMs: deps.writeTimeoutMs,
    maxAnswerChars: deps.maxAnswerChars,
    trace: deps.inspector?.traceFor,
  };
  v1.route("/", createChatCompletionsApp(adapterDeps));
  v1.route("/", createResponsesApp({ ...adapterDeps, stored: deps.stored }));
  // After the OpenAI listings, which hand Google clients' `GET /v1/models` on to it.
  const gemini = createGeminiApp(adapterDeps);
  v1.route("/", gemini);
  v1.route(
    "/",
    createGeminiEndpointApp({
      ...adapterDeps,
      conversations: deps.stored && {
        store: deps.stored.store,
        ttlMs: deps.stored.ttlMs,
        autocreate: deps.stored.autocreateConversations ?? false,
      },
    }),
  );
  // Mounted before `v1` so its auth and body-limit failures are answered in Anthropic's shape.
  const messagesGuards = [
    bearer,
    bodyLimit({
      maxSize: deps.bodyLimitBytes,
      onError: () => {
        throw tooLarge;
      },
    }),
  ];
  app.route(
    "/v1",
    createMessagesApp({ ...adapterDeps, keepAliveMs: deps.keepAliveMs, guards: messagesGuards }),
  );
  app.route("/v1", v1);
  const v1beta = new Hono();
  v1beta.use("*", googleAuth, geminiLimit);
  v1beta.route("/", gemini);
  app.route("/v1beta", v1beta);

  for (const [path, allow] of allowedMethods(ROUTES)) app.all(path, methodNotAllowed(allow));
  return app;
};
