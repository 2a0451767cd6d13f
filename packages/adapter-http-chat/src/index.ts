export { CHAT_ROUTES, CHAT_SURFACE, type ChatCompletionsDeps, createChatCompletionsApp } from "./app.js";
export { type ChatTurnPlan, decodeChatBody, decodeChatRequest } from "./decode-request.js";
export { chatSurface } from "./surface.js";
