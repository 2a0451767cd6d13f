export { MESSAGES_CODEC, MESSAGES_SURFACE } from "./codec.js";
export { type AnthropicErrorBody, anthropicErrorBody, anthropicStatus } from "./errors.js";
export { anthropicModel, anthropicModelList } from "./models.js";
export { decodeMessagesRequest, type MessagesTurnPlan } from "./request/decode-request.js";
export { REQUEST_ID_HEADER } from "./request-id.js";
export { createMessageEncoder } from "./response/message-encoder.js";
export type { MessageObject, MessagesStreamEvent } from "./response/message-shapes.js";
export { createMessagesApp, MESSAGES_ROUTES, type MessagesDeps, messagesSurface } from "./surface.js";
