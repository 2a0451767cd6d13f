import { BEARER_KEY, errorResponse, findModel, type HttpSurface, mountRoutes } from "@proxy/http-surface";
import { createMessagesApp, MESSAGES_ROUTES, MESSAGES_SURFACE, type MessagesDeps } from "./app.js";
import { anthropicErrorBody, anthropicStatus } from "./errors.js";
import { setRequestId } from "./http/request-id.js";
import { anthropicModel, anthropicModelList } from "./models.js";

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
