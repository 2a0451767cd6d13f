import { type HttpSurface, mountRoutes, OPENAI_FRONT } from "@proxy/http-surface";
import { CHAT_ROUTES, CHAT_SURFACE, createChatCompletionsApp } from "./app.js";

/** OpenAI Chat Completions (`/v1/chat/completions`) as one module. */
export const chatSurface: HttpSurface = {
  ...OPENAI_FRONT,
  api: CHAT_SURFACE.api,
  routes: mountRoutes("/v1", CHAT_ROUTES),
  owns: (c) => c.req.path.startsWith("/v1/chat/"),
  mount: (app, deps) => app.route("/v1", createChatCompletionsApp(deps)),
};
