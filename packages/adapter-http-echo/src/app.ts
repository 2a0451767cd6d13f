import { invalidRequest, type ToolPolicy, type TurnRequest } from "@proxy/core";
import {
  errorResponse,
  foldTurn,
  openAIError,
  openAIErrorBody,
  openTurnSession,
  type RouteSpec,
  readJsonBody,
  resolveSurfaceDeps,
  SSE_COMMENT_KEEP_ALIVE,
  type SurfaceDepsInput,
  type SurfaceProfile,
  streamTurn,
} from "@proxy/http-surface";
import { Hono } from "hono";

/** This surface's one route, relative to where it is mounted (`/echo/v1`). */
export const ECHO_ROUTES = {
  complete: {
    method: "POST",
    path: "/complete",
    summary: "Echo: one text turn (`{model, prompt, stream}` → `{text}`, or SSE `{delta}` frames).",
    requiredBody: ["model", "prompt"],
    streams: true,
  },
} as const satisfies Record<string, RouteSpec>;

export const ECHO_SURFACE: SurfaceProfile = {
  api: "echo",
  errorBody: openAIErrorBody,
  keepAliveFrame: SSE_COMMENT_KEEP_ALIVE,
  inputParam: "prompt",
};

const NO_TOOLS: ToolPolicy = { tools: [], choice: { type: "none" }, parallel: false };

const decode = (body: unknown): { request: TurnRequest; stream: boolean } => {
  const { model, prompt, stream } = (body ?? {}) as Record<string, unknown>;
  if (typeof model !== "string") throw invalidRequest("'model' must be a string.", "model");
  if (typeof prompt !== "string") throw invalidRequest("'prompt' must be a string.", "prompt");
  const items: TurnRequest["items"] = [
    { type: "message", role: "user", content: [{ type: "text", text: prompt }] },
  ];
  return { request: { model, items }, stream: stream === true };
};

/** `POST /complete`: one text turn, answered as `{text, finish}` or as SSE `{delta}` frames ending in `{done}`. */
export const createEchoApp = (input: SurfaceDepsInput): Hono => {
  const deps = resolveSurfaceDeps(input);
  const app = new Hono();
  app.on(ECHO_ROUTES.complete.method, ECHO_ROUTES.complete.path, async (c) => {
    const session = openTurnSession(c, deps, ECHO_SURFACE);
    let decoded: ReturnType<typeof decode>;
    try {
      decoded = decode(await readJsonBody(c));
    } catch (e) {
      return session.fail(e);
    }
    const started = await session.start({
      request: decoded.request,
      tools: NO_TOOLS,
      stream: decoded.stream,
    });
    if (!started.accepted) return started.response;
    if (decoded.stream)
      return streamTurn(session, started.batches, {
        push(event, sink) {
          if (event.type === "text-delta") sink.queue(JSON.stringify({ delta: event.delta }));
        },
        end(terminal, sink) {
          sink.queue(
            JSON.stringify(
              terminal.type === "finish"
                ? { done: true, finish: terminal.finish.reason }
                : { error: openAIError(terminal.error) },
            ),
          );
        },
      });
    let text = "";
    return foldTurn(session, started.batches, {
      push(event) {
        if (event.type === "text-delta") text += event.delta;
      },
      end: (terminal) =>
        terminal.type === "finish"
          ? { body: { text, finish: terminal.finish.reason } }
          : { error: terminal.error },
    });
  });
  app.onError((err, c) => errorResponse(c, err, openAIErrorBody));
  return app;
};
