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
        summary: "Retrieve a stored response (not stored by this gateway: 404).",
        parameters: [{ name: "response_id", in: "path", required: true, schema: { type: "string" } }],
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
