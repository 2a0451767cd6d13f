import { GatewayError } from "@proxy/core";
import { type Clock, type ModelInfo, unixSeconds } from "@proxy/core/gateway";
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorResponse } from "../errors/http-error.js";
import { openAIErrorBody } from "../openai-wire/errors.js";
import type { SurfaceDepsInput } from "./deps.js";
import type { RouteSpec } from "./routes.js";

/** How a surface's clients present the API key, and how a surface says the key is wrong. */
export interface KeyScheme {
  /** The key the request presents; `undefined` when it presents none. */
  presentedKey(c: Context): string | undefined;
  /** The error for a missing or wrong key (answered in the surface's error shape). */
  refusal(presented: string | undefined): GatewayError;
}

/**
 * The OpenAI and Anthropic clients' key: `Authorization: Bearer <key>` (OpenAI clients, the
 * Anthropic SDK) or `x-api-key` (Claude Code).
 */
export const BEARER_KEY: KeyScheme = {
  presentedKey: (c) =>
    /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim())?.[1] ?? c.req.header("x-api-key"),
  refusal: (presented) =>
    new GatewayError(
      "unauthorized",
      presented !== undefined
        ? "Incorrect API key provided."
        : "Missing bearer authentication in the Authorization header (or an x-api-key header).",
      { code: "invalid_api_key" },
    ),
};

/** How a surface's clients see the model list on the shared `GET /v1/models[/:id]`. */
export interface ModelListing {
  /** This surface's clients ask (a header only their SDKs send). */
  claims(c: Context): boolean;
  list(models: ReadonlyArray<ModelInfo>, clock: Clock): unknown;
  /** One model by id; a missing one throws the surface's not-found. */
  one(id: string, models: ReadonlyArray<ModelInfo>, clock: Clock): unknown;
}

const modelNotFound = (id: string) =>
  new GatewayError("not_found", `The model '${id}' does not exist.`, {
    param: "model",
    code: "model_not_found",
  });

/** A model by id, or the OpenAI-style 404 naming it (`model_not_found`). */
export const findModel = (id: string, models: ReadonlyArray<ModelInfo>): ModelInfo => {
  const model = models.find((m) => m.id === id);
  if (model === undefined) throw modelNotFound(id);
  return model;
};

/** OpenAI's model objects: what the gateway lists when no surface claims the request. */
export const OPENAI_MODEL_LISTING: ModelListing = {
  claims: () => true,
  list: (models, clock) => {
    const created = unixSeconds(clock);
    return { object: "list", data: models.map((m) => openAIModel(m, created)) };
  },
  one: (id, models, clock) => openAIModel(findModel(id, models), unixSeconds(clock)),
};

/** OpenAI's model object, with `context_window` (as LiteLLM-style listings add it) where known. */
const openAIModel = (model: ModelInfo, created: number) => ({
  id: model.id,
  object: "model",
  created,
  owned_by: model.ownedBy ?? "codex",
  ...(model.contextWindow === undefined ? {} : { context_window: model.contextWindow }),
});

/** What the host needs to answer for a surface before (or instead of) the surface itself. */
export interface SurfaceFront {
  /** How its clients present the key. */
  readonly auth: KeyScheme;
  /**
   * An error in its shape (status, body, headers), for refusals before the surface runs; `status`
   * replaces the error's own (the host's 403 and 415 guards).
   */
  errorResponse(c: Context, error: GatewayError, status?: ContentfulStatusCode): Response;
}

/** The gateway's own answers (its `/v1/models`, an unknown `/v1` path): OpenAI's key and shape. */
export const OPENAI_FRONT: SurfaceFront = {
  auth: BEARER_KEY,
  errorResponse: (c, error, status) => errorResponse(c, error, openAIErrorBody, status && (() => status)),
};

/**
 * An HTTP surface as one module: everything the composition root needs to serve it. The host keeps
 * one list of these and iterates it (auth, body limit, error shape, routes, model listing, mount);
 * adding a surface is one entry in that list.
 */
export interface HttpSurface<Deps extends SurfaceDepsInput = SurfaceDepsInput> extends SurfaceFront {
  /** Its name in turn summaries, logs and metrics (`chat`, `messages`, …). */
  readonly api: string;
  /** Every route it serves, as mounted (`/v1/chat/completions`): 405 answers and `/openapi.json`. */
  readonly routes: ReadonlyArray<RouteSpec>;
  /**
   * The requests it owns, so that what the host refuses before the surface runs (browser guards,
   * key, body size) is answered in its shape and checked with its key scheme.
   */
  owns(c: Context): boolean;
  /** How its clients see `GET /v1/models` (absent: OpenAI's objects). */
  readonly models?: ModelListing | undefined;
  /** Registers its sub-apps on the host's app, under the prefixes of `routes`. */
  mount(app: Hono, deps: Deps): void;
}
