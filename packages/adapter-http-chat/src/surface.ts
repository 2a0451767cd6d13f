import {
  errorResponse,
  type HttpSurface,
  mountRoutes,
  OPENAI_FRONT,
  type RouteSpec,
  resolveSurfaceDeps,
  type SurfaceDepsInput,
  turnRoute,
} from "@proxy/http-surface";
import { Hono } from "hono";
import { CHAT_CODEC, CHAT_SURFACE } from "./codec.js";

export type ChatCompletionsDeps = SurfaceDepsInput;

/** Every route this sub-app serves (mounted at `/v1`). */
export const CHAT_ROUTES = {
  create: {
    method: "POST",
    path: "/chat/completions",
    summary: "Create a chat completion (stream with `stream: true`, SSE).",
    requiredBody: ["model", "messages"],
    streams: true,
  },
} as const satisfies Record<string, RouteSpec>;

/**
 * A Hono sub-app serving `POST /chat/completions` (mount it at `/v1`). It answers its own errors in
 * OpenAI's shape, so it also works standalone or inside another Hono server.
 */
export const createChatCompletionsApp = (input: ChatCompletionsDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  app.on(CHAT_ROUTES.create.method, CHAT_ROUTES.create.path, turnRoute(CHAT_CODEC, deps));
  app.onError((err, c) => errorResponse(c, err));
  return app;
};

/** OpenAI Chat Completions (`/v1/chat/completions`) as one module. */
export const chatSurface: HttpSurface = {
  ...OPENAI_FRONT,
  api: CHAT_SURFACE.api,
  routes: mountRoutes("/v1", CHAT_ROUTES),
  owns: (c) => c.req.path.startsWith("/v1/chat/"),
  mount: (app, deps) => app.route("/v1", createChatCompletionsApp(deps)),
};
