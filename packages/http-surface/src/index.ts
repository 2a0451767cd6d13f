/**
 * The kit every HTTP surface stands on. A surface declares itself (`surface/`: its front, routes
 * and profile) and its turn route as a codec (`turn/codec.ts`) the kit's one handler serves
 * (`turnRoute`); the session, SSE streaming, request reading and the error map are the kit's. The
 * OpenAI wire shapes both OpenAI surfaces share are their own entry, `@proxy/http-surface/openai-wire`.
 */

// Writing an answer: SSE frames and JSON text, the one error map.
export * from "./errors/http-error.js";
// Reading a request: the JSON body and its checks, decode errors, model names, request facts.
export * from "./request/caller.js";
export { isEventStream, nodeOutgoing, whenSent } from "./request/connection.js";
export * from "./request/count-tokens.js";
export * from "./request/facts.js";
export * from "./request/json-body.js";
export * from "./request/model-name.js";
export { issueToGatewayError } from "./request/schema-issue.js";
export type * from "./request/trace.js";
export * from "./stream/sse-body.js";
export type { SseSink } from "./stream/sse-sink.js";
// What a surface is: its front (key scheme, error answer, model listing), routes, profile, deps.
export * from "./surface/deps.js";
export * from "./surface/http-surface.js";
export * from "./surface/profile.js";
export * from "./surface/routes.js";
// Its turns: the codec, the one handler, the session under it, the drivers and headers.
export type * from "./turn/codec.js";
export * from "./turn/drive.js";
export * from "./turn/headers.js";
export * from "./turn/route.js";
export * from "./turn/session.js";
export { unfinishedTurn } from "./turn/terminated.js";
