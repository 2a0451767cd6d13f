import { API_KEY_INVALID, geminiErrorBody, isGoogleClient } from "@proxy/adapter-http-gemini";
import { CALLER_VARIABLE, type Caller, invalidRequest } from "@proxy/core";
import { errorResponse } from "@proxy/http-surface";
import type { Context, MiddlewareHandler } from "hono";
import { type KeyList, keyLookup } from "./auth.js";

/**
 * Requests for the Gemini surface under `/v1`: the Gemini-native endpoint, the `models/{m}:method`
 * paths, and a models listing asked for by a Google client (the path is shared with OpenAI's).
 */
export const isGeminiRequest = (c: Context): boolean => {
  const path = c.req.path;
  if (path === "/v1/gemini" || /^\/v1\/models\/[^/]+:[A-Za-z]+$/.test(path)) return true;
  return path.startsWith("/v1/models") && isGoogleClient((name) => c.req.header(name));
};

/**
 * The API key as Google's clients send it (`x-goog-api-key`, `?key=`, or a bearer token), answered
 * as Google answers a bad key: 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`. Sets the
 * caller (the owner of stored conversations) as `bearerAuth` does.
 */
export const googleKeyAuth = (keys: KeyList): MiddlewareHandler => {
  const lookup = keyLookup(keys);
  return async (c, next) => {
    if (keys.length === 0) {
      c.set(CALLER_VARIABLE, { owner: "" } satisfies Caller);
      return next();
    }
    const bearer = /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim())?.[1];
    const presented = c.req.header("x-goog-api-key") ?? c.req.query("key") ?? bearer ?? "";
    const caller = lookup(presented);
    if (caller !== undefined) {
      c.set(CALLER_VARIABLE, caller);
      return next();
    }
    return errorResponse(
      c,
      invalidRequest("API key not valid. Please pass a valid API key.", undefined, API_KEY_INVALID),
      geminiErrorBody,
    );
  };
};
