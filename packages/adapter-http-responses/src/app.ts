import { GatewayError } from "@proxy/core";
import { errorResponse, type RouteSpec } from "@proxy/http-surface";
import { Hono } from "hono";
import { handleCompact } from "./http/compact.js";
import { handleCreateResponse } from "./http/create-response.js";
import { type ResponsesAppDeps, resolveDeps } from "./http/deps.js";

const notStored = (id: string): GatewayError =>
  new GatewayError("not_found", `No response found with id '${id}': this gateway does not store responses.`, {
    param: "response_id",
    code: "not_found",
  });

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
    summary: "Retrieve a stored response (not stored by this gateway: 404).",
  },
  delete: {
    method: "DELETE",
    path: "/responses/:id",
    summary: "Delete a stored response (404: none are stored).",
  },
  inputItems: {
    method: "GET",
    path: "/responses/:id/input_items",
    summary: "List a stored response's input items (404: none are stored).",
  },
  cancel: {
    method: "POST",
    path: "/responses/:id/cancel",
    summary: "Cancel a background response (404: none are stored).",
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
  app.on(R.create.method, R.create.path, (c) => handleCreateResponse(c, resolved));
  app.on(R.compact.method, R.compact.path, (c) => handleCompact(c, resolved));
  // Stored responses do not exist (store is always false): retrieval and friends are 404s.
  for (const route of [R.retrieve, R.delete, R.inputItems, R.cancel])
    app.on(route.method, route.path, (c) => errorResponse(c, notStored(c.req.param("id") ?? "")));
  app.onError((error, c) => errorResponse(c, error));
  return app;
};
