import {
  BEARER_KEY,
  errorResponse,
  findModel,
  type HttpSurface,
  mountRoutes,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  type SurfaceDepsInput,
  turnRoute,
} from "@proxy/http-surface";
import { Hono, type MiddlewareHandler } from "hono";
import { MESSAGES_CODEC, MESSAGES_SURFACE } from "./codec.js";
import { anthropicErrorBody, anthropicStatus } from "./errors.js";
import { anthropicModel, anthropicModelList } from "./models.js";
import { countInputTokens } from "./request/count-tokens.js";
import { setRequestId } from "./request-id.js";

export interface MessagesDeps extends SurfaceDepsInput {
  /**
   * The host's middleware for these routes (auth, body limit), run inside this app so that what
   * they throw is answered in Anthropic's shape too.
   */
  readonly guards?: ReadonlyArray<MiddlewareHandler> | undefined;
}

/** This surface's routes, relative to where it is mounted (`/v1`). */
export const MESSAGES_ROUTES = {
  create: {
    method: "POST",
    path: "/messages",
    summary: "Anthropic Messages: create a message (SSE with `stream: true`).",
    requiredBody: ["model", "max_tokens", "messages"],
    streams: true,
  },
  countTokens: {
    method: "POST",
    path: "/messages/count_tokens",
    summary: "Anthropic Messages: count a request's input tokens.",
    requiredBody: ["model", "messages"],
  },
} as const satisfies Record<string, RouteSpec>;

/**
 * A Hono sub-app serving the Anthropic Messages API — `POST /messages` and
 * `POST /messages/count_tokens` (mount it at `/v1`; query strings such as `?beta=true` are ignored).
 * It answers its own errors in Anthropic's shape and puts a `request-id` header on every response.
 */
export const createMessagesApp = (input: MessagesDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  app.use("/messages/*", async (c, next) => {
    setRequestId(c);
    await next();
  });
  for (const guard of input.guards ?? []) app.use("/messages/*", guard);

  app.on(MESSAGES_ROUTES.countTokens.method, MESSAGES_ROUTES.countTokens.path, async (c) =>
    c.json({ input_tokens: await countInputTokens(deps.tokens, await readJsonBody(c)) }),
  );
  app.on(MESSAGES_ROUTES.create.method, MESSAGES_ROUTES.create.path, turnRoute(MESSAGES_CODEC, deps));

  app.onError((err, c) => {
    setRequestId(c);
    return errorResponse(c, err, anthropicErrorBody, anthropicStatus);
  });
  return app;
};

/** Anthropic Messages (`/v1/messages`) as one module: Anthropic's key headers, error shape and model list. */
export const messagesSurface: HttpSurface<MessagesDeps> = {
  api: MESSAGES_SURFACE.api,
  routes: mountRoutes("/v1", MESSAGES_ROUTES),
  owns: (c) => c.req.path.startsWith("/v1/messages"),
  auth: BEARER_KEY,
  errorResponse: (c, error, status) => {
    setRequestId(c);
    return errorResponse(c, error, anthropicErrorBody, status === undefined ? anthropicStatus : () => status);
  },
  // Anthropic clients (Claude Code, the Anthropic SDK) send `anthropic-version` on every request.
  models: {
    claims: (c) => c.req.header("anthropic-version") !== undefined,
    list: (models, clock) => anthropicModelList(models, new Date(clock.now()).toISOString()),
    one: (id, models, clock) => anthropicModel(findModel(id, models), new Date(clock.now()).toISOString()),
  },
  mount: (app, deps) => app.route("/v1", createMessagesApp(deps)),
};
