import type { GatewayRouteSpec } from "./routes.js";

/** A compact OpenAPI 3.1 description of the gateway's surface (the wire shapes are OpenAI's own). */
export const openApiDocument = (version: string, routes: ReadonlyArray<GatewayRouteSpec>) => ({
  openapi: "3.1.0",
  info: {
    title: "codex-tool-gateway",
    version,
    description:
      "OpenAI-compatible gateway that gives function/tool calling to text-only backends (codex app-server). Request and response bodies follow OpenAI's Chat Completions and Responses APIs.",
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      admin: { type: "http", scheme: "bearer", description: "The admin key (PROXY_ADMIN_KEY)." },
    },
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
  paths: pathsOf(routes),
});

/** OpenAPI paths from the route list (`/:id` → `/{id}`); request and answer shapes are OpenAI's. */
const pathsOf = (routes: ReadonlyArray<GatewayRouteSpec>) => {
  const paths: Record<string, Record<string, unknown>> = {};
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
        : okOrError(route.streams ? "application/json, text/event-stream" : "application/json"),
    };
  }
  return paths;
};

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
