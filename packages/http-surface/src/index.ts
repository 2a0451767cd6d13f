export * from "./http-error.js";
export * from "./json-body.js";
export * from "./openai-tools.js";
export * from "./routes.js";
export * from "./sse-body.js";
export * from "./surface-deps.js";
export * from "./turn-headers.js";
export * from "./turn-session.js";
