import type { SurfaceDeps, SurfaceProfile, TurnCodec } from "@proxy/http-surface";
import { geminiErrorBody } from "./gemini-error.js";
import { conversationKey, decodeGeminiEndpoint, decodeGenerateContent } from "./request/decode-request.js";
import { splitAction } from "./request/model-action.js";
import type { GeminiTurn } from "./response/answer.js";
import { geminiFolder } from "./response/fold.js";
import { geminiStreamEncoder } from "./response/stream.js";
import type { ResponseMeta } from "./response-shapes.js";
import { appendTurn, type GeminiConversations, openConversation } from "./stored/conversation.js";

/** Gemini streams get no keep-alive bytes: a comment line breaks the Gemini CLI's SSE reader. */
export const GEMINI_SURFACE: SurfaceProfile = {
  api: "gemini",
  errorBody: geminiErrorBody,
  keepAliveFrame: undefined,
  inputParam: "contents",
};

const metaFor = (deps: SurfaceDeps, model: string): ResponseMeta => ({
  modelVersion: model,
  responseId: deps.ids.next("resp"),
});

/** Both Gemini routes answer alike: SSE chunks, or the folded answer (or its chunks as one array). */
const stream: TurnCodec<GeminiTurn>["stream"] = (turn, { session }) => geminiStreamEncoder(turn, session);
const fold: TurnCodec<GeminiTurn>["fold"] = (turn, { session }) => geminiFolder(turn, session);

/**
 * `POST models/{model}:generateContent | :streamGenerateContent` as the kit serves it: the model
 * from the path; SSE with `alt=sse`, else one answer or (streamGenerateContent) the array of chunks.
 */
export const GEMINI_CODEC: TurnCodec<GeminiTurn> = {
  profile: GEMINI_SURFACE,
  stream,
  fold,
  decode(body, { c, deps }) {
    const { model, method } = splitAction(c.req.param("action") ?? "");
    const plan = decodeGenerateContent(model, body);
    const delivery =
      method === "generateContent" ? "json" : c.req.query("alt") === "sse" ? "sse" : "json-array";
    const { request, tools } = plan;
    return { request, tools, stream: delivery === "sse", plan, delivery, meta: metaFor(deps, request.model) };
  },
};

/**
 * `POST /gemini` as the kit serves it: the model in the body and, with `conversation`, the caller's
 * stored contents before the new ones; the new ones and the answer are appended once it finished.
 */
export const geminiEndpointCodec = (
  conversations: GeminiConversations | undefined,
): TurnCodec<GeminiTurn> => ({
  profile: GEMINI_SURFACE,
  stream,
  fold,
  async decode(body, { c, deps }) {
    const key = conversationKey(body);
    const started = (plan: ReturnType<typeof decodeGeminiEndpoint>) => ({
      request: plan.request,
      tools: plan.tools,
      stream: plan.stream,
      plan,
      delivery: plan.stream ? ("sse" as const) : ("json" as const),
      meta: metaFor(deps, plan.request.model),
    });
    if (key === undefined) return started(decodeGeminiEndpoint(body));
    const open = await openConversation(c, conversations, key, deps.clock.now());
    const plan = decodeGeminiEndpoint(body, open.history);
    return {
      ...started(plan),
      async onAnswer(answer) {
        const content = answer.candidates[0]?.content;
        // openConversation refused a missing store, so `conversations` is set here.
        if (content !== undefined && conversations !== undefined)
          await appendTurn(conversations, open, deps.ids, plan.contents, content);
      },
    };
  },
});
