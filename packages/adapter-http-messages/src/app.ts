import {
  errorResponse,
  openTurnSession,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  type SurfaceDepsInput,
  type SurfaceProfile,
} from "@proxy/http-surface";
import { Hono, type MiddlewareHandler } from "hono";
import { anthropicErrorBody, anthropicStatus } from "./errors.js";
import { completeMessage } from "./http/complete-message.js";
import { countInputTokens } from "./http/count-tokens.js";
import { setRequestId } from "./http/request-id.js";
import { streamMessage } from "./http/stream-message.js";
import { decodeMessagesRequest, type MessagesTurnPlan } from "./request/decode-request.js";

export interface MessagesDeps extends SurfaceDepsInput {
  /**
   * The host's middleware for these routes (auth, body limit), run inside this app so that what
   * they throw is answered in Anthropic's shape too.
   */
  readonly guards?: ReadonlyArray<MiddlewareHandler> | undefined;
}

/** This surface's routes, relative to where it is mounted (`/v1`). */
export const MESSAGES_ROUTES = {
  create: {
    method: "POST",
    path: "/messages",
    summary: "Anthropic Messages: create a message (SSE with `stream: true`).",
    requiredBody: ["model", "max_tokens", "messages"],
    streams: true,
  },
  countTokens: {
    method: "POST",
    path: "/messages/count_tokens",
    summary: "Anthropic Messages: count a request's input tokens.",
    requiredBody: ["model", "messages"],
  },
} as const satisfies Record<string, RouteSpec>;

export const MESSAGES_SURFACE: SurfaceProfile = {
  api: "messages",
  errorBody: anthropicErrorBody,
  errorStatus: anthropicStatus,
  keepAliveFrame: 'event: ping\ndata: {"type":"ping"}\n\n',
  inputParam: "messages",
};

/**
 * A Hono sub-app serving the Anthropic Messages API — `POST /messages` and
 * `POST /messages/count_tokens` (mount it at `/v1`; query strings such as `?beta=true` are ignored).
 * It answers its own errors in Anthropic's shape and puts a `request-id` header on every response.
 */
export const createMessagesApp = (input: MessagesDeps): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  app.use("/messages/*", async (c, next) => {
    setRequestId(c);
    await next();
  });
  for (const guard of input.guards ?? []) app.use("/messages/*", guard);

  app.on(MESSAGES_ROUTES.countTokens.method, MESSAGES_ROUTES.countTokens.path, async (c) =>
    c.json({ input_tokens: await countInputTokens(deps.tokens, await readJsonBody(c)) }),
  );

  app.on(MESSAGES_ROUTES.create.method, MESSAGES_ROUTES.create.path, async (c) => {
    const session = openTurnSession(c, deps, MESSAGES_SURFACE);
    let plan: MessagesTurnPlan;
    try {
      plan = decodeMessagesRequest(await readJsonBody(c));
    } catch (e) {
      return session.fail(e);
    }
    // The JSON sentinel format always: `<use_tool>` XML output is an OpenAI-surface (Copilot) matter.
    const settings = { ...session.settings, outputMode: "openai-json" as const };
    const started = await session.start({
      request: plan.request,
      tools: plan.tools,
      stream: plan.stream,
      settings,
    });
    if (!started.accepted) return started.response;
    const meta = { id: deps.ids.next("msg"), model: plan.request.model, stopSequences: plan.stopSequences };
    return plan.stream
      ? streamMessage(session, meta, started.batches)
      : completeMessage(session, meta, started.batches);
  });

  app.onError((err, c) => {
    setRequestId(c);
    return errorResponse(c, err, anthropicErrorBody, anthropicStatus);
  });
  return app;
};
