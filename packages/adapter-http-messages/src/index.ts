export { createMessagesApp, MESSAGES_ROUTES, MESSAGES_SURFACE, type MessagesDeps } from "./app.js";
export { type AnthropicErrorBody, anthropicErrorBody, anthropicStatus } from "./errors.js";
export { REQUEST_ID_HEADER } from "./http/request-id.js";
export { anthropicModel, anthropicModelList } from "./models.js";
export { decodeMessagesRequest, type MessagesTurnPlan } from "./request/decode-request.js";
export { createMessageEncoder } from "./response/message-encoder.js";
export type { MessageObject, MessagesStreamEvent } from "./response/message-shapes.js";
export { messagesSurface } from "./surface.js";
