import { SSE_COMMENT_KEEP_ALIVE, type SurfaceProfile, type TurnCodec } from "@proxy/http-surface";
import { openAIErrorBody } from "@proxy/http-surface/openai-wire";
import { type ChatTurnPlan, decodeChatBody } from "./request/decode-request.js";
import { chatMeta } from "./response/answer.js";
import { chatFolder } from "./response/fold.js";
import { chatStreamEncoder } from "./response/stream.js";

export const CHAT_SURFACE: SurfaceProfile = {
  api: "chat",
  errorBody: openAIErrorBody,
  keepAliveFrame: SSE_COMMENT_KEEP_ALIVE,
  modeHeaders: true,
  inputParam: "messages",
};

/**
 * `POST /chat/completions` as the kit serves it: the body decoded into one turn, answered as
 * `chat.completion.chunk` SSE (`stream: true`) or as one `chat.completion`.
 */
export const CHAT_CODEC: TurnCodec<ChatTurnPlan> = {
  profile: CHAT_SURFACE,
  decode: (body) => decodeChatBody(body),
  stream: (plan, { deps, session }) => chatStreamEncoder(plan, session, chatMeta(deps, plan.request.model)),
  fold: (plan, { c, deps, session }) => chatFolder(c, plan, session, chatMeta(deps, plan.request.model)),
};
