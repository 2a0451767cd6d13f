import { errorResponse } from "@proxy/http-surface";
import { Hono } from "hono";
import { handleCompact } from "./http/compact.js";
import { handleCreateResponse } from "./http/create-response.js";
import { type ResponsesAppDeps, resolveDeps } from "./http/deps.js";
import { mountConversationRoutes } from "./stored/conversation-routes.js";
import { mountResponseRoutes } from "./stored/response-routes.js";

/**
 * The OpenAI Responses API over core turns, as a Hono sub-app: mount it with
 * `app.route("/v1", createResponsesApp(deps))`. It answers its own errors in OpenAI's shape so it
 * also works standalone inside any other Hono server. With `deps.stored` it also keeps responses
 * and serves the Conversations API; without, stored-state routes answer 404.
 */
export const createResponsesApp = (deps: ResponsesAppDeps): Hono => {
  const resolved = resolveDeps(deps);
  const app = new Hono();
  app.post("/responses", (c) => handleCreateResponse(c, resolved));
  app.post("/responses/compact", (c) => handleCompact(c, resolved));
  mountResponseRoutes(app, resolved);
  if (resolved.state !== undefined) mountConversationRoutes(app, resolved, resolved.state);
  app.onError((error, c) => errorResponse(c, error));
  return app;
};
