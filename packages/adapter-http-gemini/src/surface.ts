import { invalidRequest } from "@proxy/core";
import {
  BEARER_KEY,
  errorResponse,
  type HttpSurface,
  type KeyScheme,
  mountRoutes,
  type SurfaceDepsInput,
} from "@proxy/http-surface";
import type { Context } from "hono";
import { createGeminiApp, createGeminiEndpointApp, GEMINI_ENDPOINT_ROUTES, GEMINI_ROUTES } from "./app.js";
import type { GeminiConversations } from "./conversation.js";
import { API_KEY_INVALID, GEMINI_SURFACE, geminiErrorBody } from "./gemini-error.js";
import { geminiModelById, geminiModelList, isGoogleClient } from "./models.js";

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
