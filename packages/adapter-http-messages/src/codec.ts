import type { SurfaceProfile, TurnCodec } from "@proxy/http-surface";
import { anthropicErrorBody, anthropicStatus } from "./errors.js";
import { decodeMessagesRequest, type MessagesTurnPlan } from "./request/decode-request.js";
import { messageFolder } from "./response/fold.js";
import type { MessageMeta } from "./response/message-shapes.js";
import { messageStreamEncoder } from "./response/stream.js";

export const MESSAGES_SURFACE: SurfaceProfile = {
  api: "messages",
  errorBody: anthropicErrorBody,
  errorStatus: anthropicStatus,
  keepAliveFrame: 'event: ping\ndata: {"type":"ping"}\n\n',
  inputParam: "messages",
  // The JSON sentinel format always: `<use_tool>` XML output is an OpenAI-surface (Copilot) matter.
  outputMode: "openai-json",
};

/** The answer's id, model and stop sequences, made once the backend accepted the turn. */
const metaOf = (plan: MessagesTurnPlan, ids: { next(prefix: string): string }): MessageMeta => ({
  id: ids.next("msg"),
  model: plan.request.model,
  stopSequences: plan.stopSequences,
  thinking: plan.thinking,
});

/**
 * `POST /messages` as the kit serves it: the body decoded into one turn, answered as Messages SSE
 * (`stream: true`) or as one Message.
 */
export const MESSAGES_CODEC: TurnCodec<MessagesTurnPlan> = {
  profile: MESSAGES_SURFACE,
  decode: (body) => decodeMessagesRequest(body),
  stream: (plan, { deps }) => messageStreamEncoder(metaOf(plan, deps.ids)),
  fold: (plan, { deps }) => messageFolder(metaOf(plan, deps.ids)),
};
