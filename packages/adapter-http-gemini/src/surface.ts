import { invalidRequest } from "@proxy/core";
import {
  BEARER_KEY,
  errorResponse,
  type HttpSurface,
  type KeyScheme,
  mountRoutes,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  type SurfaceDepsInput,
  turnRoute,
} from "@proxy/http-surface";
import { type Context, Hono } from "hono";
import { GEMINI_CODEC, GEMINI_SURFACE, geminiEndpointCodec } from "./codec.js";
import { API_KEY_INVALID, geminiErrorBody } from "./gemini-error.js";
import { geminiModelById, geminiModelList, isGoogleClient } from "./models.js";
import { countRequestTokens } from "./request/count-tokens.js";
import { decodeGenerateContent } from "./request/decode-request.js";
import { objectAt } from "./request/fields.js";
import { splitAction } from "./request/model-action.js";
import type { GeminiConversations } from "./stored/conversation.js";

export type GeminiDeps = SurfaceDepsInput;

/** `POST /v1/gemini`'s dependencies: the surface's, and the store `conversation` keys (none: refused). */
export interface GeminiEndpointDeps extends GeminiDeps {
  readonly conversations?: GeminiConversations | undefined;
}

/**
 * Every route `createGeminiApp` serves (mount it at `/v1beta` and `/v1`). The three model actions
 * share one Hono path (`/models/:action`, split on the last `:`), since Hono cannot route on a
 * suffix inside a segment; they are declared here under their documented paths.
 */
export const GEMINI_ROUTES = {
  generateContent: {
    method: "POST",
    path: "/models/:model:generateContent",
    summary: "Gemini: generate content.",
    requiredBody: ["contents"],
  },
  streamGenerateContent: {
    method: "POST",
    path: "/models/:model:streamGenerateContent",
    summary: "Gemini: stream generated content (`alt=sse` for SSE, else a JSON array).",
    requiredBody: ["contents"],
    streams: true,
  },
  countTokens: {
    method: "POST",
    path: "/models/:model:countTokens",
    summary: "Gemini: count the tokens of a request (an o200k estimate).",
  },
  listModels: { method: "GET", path: "/models", summary: "Gemini: list models." },
  getModel: { method: "GET", path: "/models/:model", summary: "Gemini: retrieve one model." },
} as const satisfies Record<string, RouteSpec>;

/** The one Gemini-native endpoint `createGeminiEndpointApp` serves (mount it at `/v1`). */
export const GEMINI_ENDPOINT_ROUTES = {
  generate: {
    method: "POST",
    path: "/gemini",
    summary: "Gemini generateContent over a single endpoint (model in the body, optional `conversation`).",
    requiredBody: ["model"],
    streams: true,
  },
} as const satisfies Record<string, RouteSpec>;

/** The Hono path the three model actions share (see `GEMINI_ROUTES`). */
const ACTION_PATH = "/models/:action";

/**
 * A Hono sub-app serving the Gemini API's own paths (mount it at `/v1beta` and `/v1`):
 * `POST models/{model}:generateContent | :streamGenerateContent | :countTokens`, `GET models` and
 * `GET models/{model}`. It answers its own errors in Google's shape.
 */
export const createGeminiApp = (input: GeminiDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  const generate = turnRoute(GEMINI_CODEC, deps);

  app.post(ACTION_PATH, async (c) => {
    const { model, method } = splitAction(c.req.param("action"));
    if (method !== "countTokens") return generate(c);
    const json = objectAt(await readJsonBody(c), "body");
    // The SDK may wrap the request: `{generateContentRequest: {model, contents, …}}`.
    const inner =
      json.generateContentRequest == null
        ? json
        : objectAt(json.generateContentRequest, "generateContentRequest");
    const plan = decodeGenerateContent(model, inner);
    return c.json({ totalTokens: await countRequestTokens(deps.tokens, plan.request, plan.tools) });
  });

  app.get(GEMINI_ROUTES.listModels.path, async (c) =>
    c.json(geminiModelList(await deps.backend.listModels())),
  );
  app.get(GEMINI_ROUTES.getModel.path, async (c) =>
    c.json(geminiModelById(c.req.param("model"), await deps.backend.listModels())),
  );

  app.onError((err, c) => errorResponse(c, err, geminiErrorBody));
  return app;
};

/**
 * `POST /gemini` (mount at `/v1`): one Gemini-native endpoint taking the model in the body,
 * `{model, input | contents, tools, toolConfig, generationConfig, systemInstruction, conversation?,
 * stream?}`, and answering with a `GenerateContentResponse` (SSE chunks of it when `stream` is true).
 * With `conversation`, the caller's stored contents go before the new ones, and the new ones plus
 * the model's answer are appended once the turn finished; without it, nothing is kept.
 */
export const createGeminiEndpointApp = (input: GeminiEndpointDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  app.post(GEMINI_ENDPOINT_ROUTES.generate.path, turnRoute(geminiEndpointCodec(input.conversations), deps));
  app.onError((err, c) => errorResponse(c, err, geminiErrorBody));
  return app;
};

/**
 * The API key as Google's clients send it (`x-goog-api-key`, `?key=`, or a bearer token), refused
 * as Google refuses a bad key: 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`.
 */
export const GOOGLE_KEY: KeyScheme = {
  presentedKey: (c) => c.req.header("x-goog-api-key") ?? c.req.query("key") ?? BEARER_KEY.presentedKey(c),
  refusal: () =>
    invalidRequest("API key not valid. Please pass a valid API key.", undefined, API_KEY_INVALID),
};

/**
 * Requests for this surface: everything under `/v1beta`, and under `/v1` the Gemini-native
 * endpoint, the `models/{m}:method` paths, and a models listing asked for by a Google client (the
 * path is shared with OpenAI's).
 */
const ownsRequest = (c: Context): boolean => {
  const path = c.req.path;
  if (path.startsWith("/v1beta/") || path === "/v1/gemini" || /^\/v1\/models\/[^/]+:[A-Za-z]+$/.test(path))
    return true;
  return path.startsWith("/v1/models") && isGoogleClient((name) => c.req.header(name));
};

/** What the host passes: the kit's deps, and the store `POST /v1/gemini` keeps conversations in. */
export interface GeminiSurfaceDeps extends SurfaceDepsInput {
  readonly stored?:
    | (Pick<GeminiConversations, "store" | "ttlMs"> & {
        readonly autocreateConversations?: boolean | undefined;
      })
    | undefined;
}

/** The Gemini API (`/v1beta` and `/v1`, plus `POST /v1/gemini`) as one module. */
export const geminiSurface: HttpSurface<GeminiSurfaceDeps> = {
  api: GEMINI_SURFACE.api,
  routes: [
    ...mountRoutes("/v1beta", GEMINI_ROUTES),
    ...mountRoutes("/v1", GEMINI_ROUTES),
    ...mountRoutes("/v1", GEMINI_ENDPOINT_ROUTES),
  ],
  owns: ownsRequest,
  auth: GOOGLE_KEY,
  errorResponse: (c, error, status) => errorResponse(c, error, geminiErrorBody, status && (() => status)),
  models: {
    claims: (c) => isGoogleClient((name) => c.req.header(name)),
    list: (models) => geminiModelList(models),
    one: (id, models) => geminiModelById(id, models),
  },
  mount(app, deps) {
    const gemini = createGeminiApp(deps);
    app.route("/v1", gemini);
    app.route(
      "/v1",
      createGeminiEndpointApp({
        ...deps,
        conversations: deps.stored && {
          store: deps.stored.store,
          ttlMs: deps.stored.ttlMs,
          autocreate: deps.stored.autocreateConversations ?? false,
        },
      }),
    );
    app.route("/v1beta", gemini);
  },
};
