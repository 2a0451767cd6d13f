import { unixSeconds } from "@proxy/core";
import {
  errorResponse,
  openAIErrorBody,
  openTurnSession,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  SSE_COMMENT_KEEP_ALIVE,
  type SurfaceDepsInput,
  type SurfaceProfile,
} from "@proxy/http-surface";
import { Hono } from "hono";
import { type ChatTurnPlan, decodeChatBody } from "./decode-request.js";
import { completeChatCompletion } from "./json-response.js";
import type { ChatTurn } from "./started-turn.js";
import { streamChatCompletion } from "./stream-response.js";

export type ChatCompletionsDeps = SurfaceDepsInput;

export const CHAT_SURFACE: SurfaceProfile = {
  api: "chat",
  errorBody: openAIErrorBody,
  keepAliveFrame: SSE_COMMENT_KEEP_ALIVE,
  modeHeaders: true,
  inputParam: "messages",
};

/** Every route this sub-app serves (mounted at `/v1`). */
export const CHAT_ROUTES = {
  create: {
    method: "POST",
    path: "/chat/completions",
    summary: "Create a chat completion (stream with `stream: true`, SSE).",
    requiredBody: ["model", "messages"],
    streams: true,
  },
} as const satisfies Record<string, RouteSpec>;

/**
 * A Hono sub-app serving `POST /chat/completions` (mount it at `/v1`). It answers its own errors in
 * OpenAI's shape, so it also works standalone or inside another Hono server.
 */
export const createChatCompletionsApp = (input: ChatCompletionsDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();

  app.on(CHAT_ROUTES.create.method, CHAT_ROUTES.create.path, async (c) => {
    const session = openTurnSession(c, deps, CHAT_SURFACE);

    let plan: ChatTurnPlan;
    try {
      plan = decodeChatBody(await readJsonBody(c));
    } catch (e) {
      return session.fail(e);
    }
    const started = await session.start({ request: plan.request, tools: plan.tools, stream: plan.stream });
    if (!started.accepted) return started.response;

    const turn: ChatTurn = {
      plan,
      session,
      batches: started.batches,
      meta: {
        id: deps.ids.next("chatcmpl").replace(/^chatcmpl_/, "chatcmpl-"),
        created: unixSeconds(deps.clock),
        model: plan.request.model,
      },
    };
    return plan.stream ? streamChatCompletion(turn) : completeChatCompletion(c, turn);
  });

  app.onError((err, c) => errorResponse(c, err));
  return app;
};
