import { GatewayError } from "@proxy/core";
import {
  checkModelName,
  errorResponse,
  openTurnSession,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  type SurfaceDeps,
  type SurfaceDepsInput,
} from "@proxy/http-surface";
import { type Context, Hono } from "hono";
import { appendTurn, type GeminiConversations, openConversation } from "./conversation.js";
import { countRequestTokens } from "./count-tokens.js";
import {
  conversationKey,
  decodeGeminiEndpoint,
  decodeGenerateContent,
  type GeminiTurnPlan,
} from "./decode-request.js";
import { objectAt } from "./fields.js";
import { GEMINI_SURFACE, geminiErrorBody } from "./gemini-error.js";
import { geminiModelById, geminiModelList } from "./models.js";
import type { ResponseMeta } from "./response-shapes.js";
import { type Delivery, type OnAnswer, serveTurn } from "./serve-turn.js";

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
const METHODS = ["generateContent", "streamGenerateContent", "countTokens"] as const satisfies ReadonlyArray<
  keyof typeof GEMINI_ROUTES
>;

const notFound = (what: string) => new GatewayError("not_found", what, { code: "not_found" });

/** `gemini-2.5-flash:generateContent` → model and method (split on the last `:`). */
const splitAction = (action: string): { model: string; method: (typeof METHODS)[number] } => {
  const at = action.lastIndexOf(":");
  const method = action.slice(at + 1);
  const model = checkModelName(action.slice(0, Math.max(0, at)));
  if (at <= 0 || !(METHODS as ReadonlyArray<string>).includes(method))
    throw notFound(
      `Method '${at < 0 ? "" : method}' is not found for 'models/${action}'. Use :generateContent, :streamGenerateContent or :countTokens.`,
    );
  return { model, method: method as (typeof METHODS)[number] };
};

const metaFor = (deps: SurfaceDeps, model: string): ResponseMeta => ({
  modelVersion: model,
  responseId: deps.ids.next("resp"),
});

interface Decoded {
  readonly plan: GeminiTurnPlan;
  readonly delivery: Delivery;
  readonly onAnswer?: OnAnswer | undefined;
}

/** Decodes the body, runs the turn and answers; a decoding failure is a 400 reported once. */
const runPlan = async (
  c: Context,
  deps: SurfaceDeps,
  decode: (json: unknown) => Decoded | Promise<Decoded>,
) => {
  const session = openTurnSession(c, deps, GEMINI_SURFACE);
  let decoded: Decoded;
  try {
    decoded = await decode(await readJsonBody(c));
  } catch (e) {
    return session.fail(e);
  }
  const { plan, delivery, onAnswer } = decoded;
  return serveTurn(session, plan, metaFor(deps, plan.request.model), delivery, onAnswer);
};

/**
 * A Hono sub-app serving the Gemini API's own paths (mount it at `/v1beta` and `/v1`):
 * `POST models/{model}:generateContent | :streamGenerateContent | :countTokens`, `GET models` and
 * `GET models/{model}`. It answers its own errors in Google's shape.
 */
export const createGeminiApp = (input: GeminiDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();

  app.post(ACTION_PATH, async (c) => {
    const { model, method } = splitAction(c.req.param("action"));
    if (method === "countTokens") {
      const json = objectAt(await readJsonBody(c), "body");
      // The SDK may wrap the request: `{generateContentRequest: {model, contents, …}}`.
      const inner =
        json.generateContentRequest == null
          ? json
          : objectAt(json.generateContentRequest, "generateContentRequest");
      const plan = decodeGenerateContent(model, inner);
      return c.json({ totalTokens: await countRequestTokens(deps.tokens, plan.request, plan.tools) });
    }
    const delivery: Delivery =
      method === "generateContent" ? "json" : c.req.query("alt") === "sse" ? "sse" : "json-array";
    return runPlan(c, deps, (json) => ({ plan: decodeGenerateContent(model, json), delivery }));
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
  const { conversations } = input;
  const app = new Hono();
  app.post(GEMINI_ENDPOINT_ROUTES.generate.path, (c) =>
    runPlan(c, deps, async (json) => {
      const key = conversationKey(json);
      if (key === undefined) {
        const plan = decodeGeminiEndpoint(json);
        return { plan, delivery: plan.stream ? "sse" : "json" };
      }
      const open = await openConversation(c, conversations, key, deps.clock.now());
      const plan = decodeGeminiEndpoint(json, open.history);
      const onAnswer: OnAnswer = async (answer) => {
        const content = answer.candidates[0]?.content;
        // openConversation refused a missing store, so `conversations` is set here.
        if (content !== undefined && conversations !== undefined)
          await appendTurn(conversations, open, deps.ids, plan.contents, content);
      };
      return { plan, delivery: plan.stream ? "sse" : "json", onAnswer };
    }),
  );
  app.onError((err, c) => errorResponse(c, err, geminiErrorBody));
  return app;
};
