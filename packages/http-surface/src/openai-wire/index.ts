/**
 * The OpenAI wire shapes Chat Completions and Responses share: the tool entries and `tool_choice`
 * both APIs take, the error body both answer with, and the `<use_tool>` echo of a call.
 */
export * from "./errors.js";
export * from "./tool-call-echo.js";
export * from "./tools.js";
