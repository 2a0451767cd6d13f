import type { GatewayRouteSpec } from "./routes.js";

/** Routes grouped by the surface serving them (`api`); absent: the gateway's own (OpenAI's error shape). */
export interface RouteGroup {
  readonly api?: string | undefined;
  readonly routes: ReadonlyArray<GatewayRouteSpec>;
}

const DESCRIPTION = [
  "Gives function/tool calling to language-model backends that only produce text, first of all the Codex CLI's `codex app-server`, and to OpenAI-compatible servers chosen per model by routing.",
  "Four client protocols, each with its own request, response, streaming and error shapes: OpenAI Chat Completions (`/v1/chat/completions`), OpenAI Responses with stored state and conversations (`/v1/responses`, `/v1/conversations`), Anthropic Messages (`/v1/messages`) and Gemini `generateContent` (`/v1beta/models/{model}:generateContent`, also under `/v1`).",
  "Tools go to the codex model's own function calling by default (native tool mode, `PROXY_TOOL_MODE=auto`); prompt mode teaches the backend a sentinel format and parses the calls from its text. `x-proxy-tool-mode` chooses per request.",
].join("\n\n");

/** Each surface's error body, as its own clients parse it. */
const ERROR_SCHEMAS = {
  Error: {
    description: "OpenAI's error body.",
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
  AnthropicError: {
    description: "Anthropic's error body.",
    type: "object",
    required: ["type", "error"],
    properties: {
      type: { const: "error" },
      error: {
        type: "object",
        required: ["type", "message"],
        properties: { type: { type: "string" }, message: { type: "string" } },
      },
    },
  },
  GoogleError: {
    description: "Google's error body.",
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "status"],
        properties: { code: { type: "integer" }, message: { type: "string" }, status: { type: "string" } },
      },
    },
  },
} as const;

const ERROR_SCHEMA_OF: Readonly<Record<string, keyof typeof ERROR_SCHEMAS>> = {
  messages: "AnthropicError",
  gemini: "GoogleError",
};

/** A compact OpenAPI 3.1 description of what the gateway serves (request and answer bodies are each protocol's own). */
export const openApiDocument = (version: string, groups: ReadonlyArray<RouteGroup>) => ({
  openapi: "3.1.0",
  info: { title: "codex-tool-gateway", version, description: DESCRIPTION },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      admin: { type: "http", scheme: "bearer", description: "The admin key (PROXY_ADMIN_KEY)." },
    },
    schemas: ERROR_SCHEMAS,
  },
  security: [{ bearer: [] }],
  paths: pathsOf(groups),
});

/** OpenAPI paths from the route lists (`/:id` → `/{id}`), each with its surface's error shape. */
const pathsOf = (groups: ReadonlyArray<RouteGroup>) => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { api, routes } of groups)
    for (const route of routes) {
      // A parameter starts a segment; `:generateContent` after one is a literal action suffix.
      const path = route.path.replace(/\/:(\w+)/g, "/{$1}");
      const parameters = [...route.path.matchAll(/\/:(\w+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      }));
      const operations = paths[path] ?? {};
      paths[path] = operations;
      operations[route.method.toLowerCase()] = {
        summary: route.summary,
        ...(api ? { tags: [api] } : {}),
        ...(route.public ? { security: [] } : route.admin ? { security: [{ admin: [] }] } : {}),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(route.requiredBody
          ? {
              requestBody: {
                required: true,
                content: {
                  "application/json": { schema: { type: "object", required: [...route.requiredBody] } },
                },
              },
            }
          : {}),
        responses: route.public
          ? { "200": { description: "ok" } }
          : okOrError(
              route.streams ? "application/json, text/event-stream" : "application/json",
              ERROR_SCHEMA_OF[api ?? ""] ?? "Error",
            ),
      };
    }
  return paths;
};

function okOrError(contentType: string, schema: keyof typeof ERROR_SCHEMAS) {
  const error = {
    description: ERROR_SCHEMAS[schema].description,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
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
