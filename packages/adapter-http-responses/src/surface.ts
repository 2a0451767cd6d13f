import { errorResponse, type HttpSurface, mountRoutes, OPENAI_FRONT } from "@proxy/http-surface";
import { createResponsesApp, RESPONSES_ROUTES } from "./app.js";
import type { ResponsesAppDeps } from "./http/deps.js";
import { RESPONSES_SURFACE, responsesStatus } from "./http/surface.js";
import { responsesErrorBody } from "./response/response-error.js";
import { CONVERSATION_ROUTES } from "./stored/conversation-routes.js";

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
