/** A compact OpenAPI 3.1 description of the gateway's surface (the wire shapes are OpenAI's own). */
export const openApiDocument = (version: string) => ({
  openapi: "3.1.0",
  info: {
    title: "codex-tool-gateway",
    version,
    description:
      "OpenAI-compatible gateway that gives function/tool calling to text-only backends (codex app-server). Request and response bodies follow OpenAI's Chat Completions and Responses APIs.",
  },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: {
      Error: {
        type: "object",
        required: ["error"],
        properties: {
          error: {
            type: "object",
            required: ["message", "type", "param", "code"],
            properties: {
              message: { type: "string" },
              type: { type: "string" },
              param: { type: ["string", "null"] },
              code: { type: ["string", "null"] },
            },
          },
        },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    "/v1/chat/completions": {
      post: {
        summary: "Create a chat completion (stream with `stream: true`, SSE).",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", required: ["model", "messages"] } } },
        },
        responses: okOrError("application/json, text/event-stream"),
      },
    },
    "/v1/responses": {
      post: {
        summary: "Create a model response (stream with `stream: true`, SSE).",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object", required: ["model"] } } },
        },
        responses: okOrError("application/json, text/event-stream"),
      },
    },
    "/v1/responses/compact": {
      post: {
        summary: "Compact a conversation into a summary item (legacy codex remote compaction).",
        responses: okOrError("application/json"),
      },
    },
    "/v1/responses/{response_id}": {
      get: {
        summary:
          "Retrieve a stored response (`?stream=true&starting_after=N` replays its events; see docs/state.md).",
        parameters: [idParam("response_id")],
        responses: okOrError("application/json, text/event-stream"),
      },
      delete: {
        summary: "Delete a stored response.",
        parameters: [idParam("response_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/responses/{response_id}/input_items": {
      get: {
        summary: "List a stored response's input items.",
        parameters: [idParam("response_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/responses/{response_id}/cancel": {
      post: {
        summary: "Cancel a background response.",
        parameters: [idParam("response_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/conversations": {
      post: { summary: "Create a conversation.", responses: okOrError("application/json") },
    },
    "/v1/conversations/{conversation_id}": {
      get: {
        summary: "Retrieve a conversation.",
        parameters: [idParam("conversation_id")],
        responses: okOrError("application/json"),
      },
      post: {
        summary: "Update a conversation's metadata.",
        parameters: [idParam("conversation_id")],
        responses: okOrError("application/json"),
      },
      delete: {
        summary: "Delete a conversation.",
        parameters: [idParam("conversation_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/conversations/{conversation_id}/items": {
      get: {
        summary: "List a conversation's items.",
        parameters: [idParam("conversation_id")],
        responses: okOrError("application/json"),
      },
      post: {
        summary: "Add items to a conversation.",
        parameters: [idParam("conversation_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/conversations/{conversation_id}/items/{item_id}": {
      get: {
        summary: "Retrieve a conversation item.",
        parameters: [idParam("conversation_id"), idParam("item_id")],
        responses: okOrError("application/json"),
      },
      delete: {
        summary: "Delete a conversation item.",
        parameters: [idParam("conversation_id"), idParam("item_id")],
        responses: okOrError("application/json"),
      },
    },
    "/v1/models": {
      get: {
        summary: "List the backend's models plus configured aliases.",
        responses: okOrError("application/json"),
      },
    },
    "/healthz": {
      get: { summary: "Process is up.", security: [], responses: { "200": { description: "ok" } } },
    },
    "/readyz": {
      get: {
        summary: "Backend initialized and not saturated; with model routes, each route under `routes`.",
        security: [],
        responses: { "200": { description: "ready" }, "503": { description: "not ready" } },
      },
    },
    "/metrics": {
      get: {
        summary: "Prometheus metrics.",
        security: [],
        responses: { "200": { description: "text/plain exposition" } },
      },
    },
    "/openapi.json": {
      get: { summary: "This document.", security: [], responses: { "200": { description: "OpenAPI 3.1" } } },
    },
  },
});

function idParam(name: string) {
  return { name, in: "path", required: true, schema: { type: "string" } };
}

function okOrError(contentType: string) {
  const error = {
    description: "OpenAI-shaped error",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
  return {
    "200": { description: `Success (${contentType})` },
    "400": error,
    "401": error,
    "404": error,
    "413": error,
    "429": error,
    "500": error,
    "503": error,
  };
}
