export { CHAT_CODEC, CHAT_SURFACE } from "./codec.js";
export { type ChatTurnPlan, decodeChatBody, decodeChatRequest } from "./request/decode-request.js";
export { CHAT_ROUTES, type ChatCompletionsDeps, chatSurface, createChatCompletionsApp } from "./surface.js";
