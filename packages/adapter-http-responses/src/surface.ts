import { GatewayError } from "@proxy/core";
import {
  errorResponse,
  type HttpSurface,
  mountRoutes,
  OPENAI_FRONT,
  type RouteSpec,
  turnRoute,
} from "@proxy/http-surface";
import { Hono, type MiddlewareHandler } from "hono";
import { COMPACT_CODEC, RESPONSES_CODEC } from "./codec.js";
import { type ResponsesAppDeps, resolveDeps } from "./deps.js";
import { RESPONSES_SURFACE, responsesStatus } from "./profile.js";
import { responsesErrorBody } from "./response/response-error.js";
import { CONVERSATION_ROUTES, mountConversationRoutes } from "./stored/conversation-routes.js";
import { mountResponseRoutes } from "./stored/response-routes.js";

/** Every route this sub-app serves (mounted at `/v1`). */
export const RESPONSES_ROUTES = {
  create: {
    method: "POST",
    path: "/responses",
    summary: "Create a model response (stream with `stream: true`, SSE).",
    requiredBody: ["model"],
    streams: true,
  },
  compact: {
    method: "POST",
    path: "/responses/compact",
    summary: "Compact a conversation into a summary item (legacy codex remote compaction).",
    requiredBody: ["model"],
  },
  retrieve: {
    method: "GET",
    path: "/responses/:id",
    summary:
      "Retrieve a stored response (`?stream=true&starting_after=N` replays its events; see docs/state.md).",
  },
  delete: {
    method: "DELETE",
    path: "/responses/:id",
    summary: "Delete a stored response.",
  },
  inputItems: {
    method: "GET",
    path: "/responses/:id/input_items",
    summary: "List a stored response's input items.",
  },
  cancel: {
    method: "POST",
    path: "/responses/:id/cancel",
    summary: "Cancel a background response.",
  },
} as const satisfies Record<string, RouteSpec>;

/**
 * The OpenAI Responses API over core turns, as a Hono sub-app: mount it with
 * `app.route("/v1", createResponsesApp(deps))`. It answers its own errors in OpenAI's shape so it
 * also works standalone inside any other Hono server.
 */
export const createResponsesApp = (deps: ResponsesAppDeps): Hono => {
  const resolved = resolveDeps(deps);
  const app = new Hono();
  const R = RESPONSES_ROUTES;
  // A path id with a NUL character (`%00`) names nothing on any store (PostgreSQL cannot hold one).
  const nulIdIsNotFound: MiddlewareHandler = async (c, next) => {
    if (/%00/i.test(new URL(c.req.url).pathname))
      throw new GatewayError("not_found", "No object found with that id.", { code: "not_found" });
    await next();
  };
  app.use("/responses/*", nulIdIsNotFound);
  app.use("/conversations/*", nulIdIsNotFound);
  app.on(R.create.method, R.create.path, turnRoute(RESPONSES_CODEC, resolved));
  app.on(R.compact.method, R.compact.path, turnRoute(COMPACT_CODEC, resolved));
  // Stored-response routes (404s without a store) and, with one, the Conversations API.
  mountResponseRoutes(app, resolved);
  if (resolved.state !== undefined) mountConversationRoutes(app, resolved, resolved.state);
  app.onError((error, c) => errorResponse(c, error, responsesErrorBody, responsesStatus));
  return app;
};

/** OpenAI Responses and Conversations (`/v1/responses`, `/v1/conversations`) as one module. */
export const responsesSurface: HttpSurface<ResponsesAppDeps> = {
  ...OPENAI_FRONT,
  api: RESPONSES_SURFACE.api,
  errorResponse: (c, error, status) =>
    errorResponse(c, error, responsesErrorBody, status === undefined ? responsesStatus : () => status),
  routes: [...mountRoutes("/v1", RESPONSES_ROUTES), ...mountRoutes("/v1", CONVERSATION_ROUTES)],
  owns: (c) => c.req.path.startsWith("/v1/responses") || c.req.path.startsWith("/v1/conversations"),
  mount: (app, deps) => app.route("/v1", createResponsesApp(deps)),
};
