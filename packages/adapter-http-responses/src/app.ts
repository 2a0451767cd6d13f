import { GatewayError } from "@proxy/core";
import { errorResponse } from "@proxy/http-surface";
import { Hono } from "hono";
import { handleCompact } from "./http/compact.js";
import { handleCreateResponse } from "./http/create-response.js";
import { type ResponsesAppDeps, resolveDeps } from "./http/deps.js";

const notStored = (id: string): GatewayError =>
  new GatewayError("not_found", `No response found with id '${id}': this gateway does not store responses.`, {
    param: "response_id",
    code: "not_found",
  });

/**
 * The OpenAI Responses API over core turns, as a Hono sub-app: mount it with
 * `app.route("/v1", createResponsesApp(deps))`. It answers its own errors in OpenAI's shape so it
 * also works standalone inside any other Hono server.
 */
export const createResponsesApp = (deps: ResponsesAppDeps): Hono => {
  const resolved = resolveDeps(deps);
  const app = new Hono();
  app.post("/responses", (c) => handleCreateResponse(c, resolved));
  app.post("/responses/compact", (c) => handleCompact(c, resolved));
  // Stored responses do not exist (store is always false): retrieval and friends are 404s.
  app.get("/responses/:id", (c) => errorResponse(c, notStored(c.req.param("id"))));
  app.delete("/responses/:id", (c) => errorResponse(c, notStored(c.req.param("id"))));
  app.get("/responses/:id/input_items", (c) => errorResponse(c, notStored(c.req.param("id"))));
  app.post("/responses/:id/cancel", (c) => errorResponse(c, notStored(c.req.param("id"))));
  app.onError((error, c) => errorResponse(c, error));
  return app;
};
