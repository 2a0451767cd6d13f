export * from "./http-error.js";
export * from "./json-body.js";
export * from "./surface-deps.js";
export * from "./turn-session.js";
