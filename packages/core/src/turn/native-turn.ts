import { GatewayError } from "../errors/gateway-error.js";
import type { TurnRequest } from "../model/conversation.js";
import type { ToolPolicy, ToolSpec } from "../model/tool-spec.js";
import { blockFormatFor, blockFormatsFor, createSentinelParser } from "../parser/index.js";
import type { ArgumentsValidator } from "../parser/parser-types.js";
import type { BackendRequest, PromptMessage, TextBackend } from "../ports/text-backend.js";
import { type RenderedPrompt, renderBackendRequest } from "../prompt/render-history.js";
import { renderNativeRequest } from "../prompt/render-native.js";
import { createNativeCallReader, type EventReader } from "./native-calls.js";
import type { ToolMode, TurnSettings } from "./turn-settings.js";

/** The mode a turn actually runs in. */
export type ResolvedToolMode = Exclude<ToolMode, "auto">;

/**
 * `prompt` and `native` are taken as asked (native fails when the backend cannot); `auto` is
 * native when the backend has native function calling and the request offers tools (every
 * canonical tool is a plain function, which any native backend can take), prompt otherwise.
 */
export const chooseToolMode = (
  mode: ToolMode,
  backend: Pick<TextBackend, "name" | "capabilities" | "capabilitiesFor">,
  policy: ToolPolicy,
  model?: string,
): ResolvedToolMode | GatewayError => {
  const capabilities =
    (model === undefined ? undefined : backend.capabilitiesFor?.(model)) ?? backend.capabilities;
  const native = capabilities?.nativeTools === true;
  if (mode === "prompt") return "prompt";
  if (mode === "native") {
    if (native) return "native";
    return new GatewayError(
      "invalid_request",
      `Tool mode "native" was asked for (x-proxy-tool-mode or PROXY_TOOL_MODE), but the backend ${backend.name} has no native function calling right now; use "auto" or "prompt".`,
      { param: "x-proxy-tool-mode", code: "native_tools_unavailable" },
    );
  }
  return native && policy.tools.length > 0 ? "native" : "prompt";
};

/** The backend request for the chosen mode. */
export const renderForMode = (
  mode: ResolvedToolMode,
  request: TurnRequest,
  policy: ToolPolicy,
  settings: TurnSettings,
): RenderedPrompt =>
  mode === "native"
    ? renderNativeRequest(request, policy)
    : renderBackendRequest(request, policy, blockFormatFor(settings.outputMode));

/** Prompt mode reads sentinel blocks out of the text; native mode reads the model's own calls. */
export const createEventReader = (
  mode: ResolvedToolMode,
  tools: ReadonlyMap<string, ToolSpec>,
  validator: ArgumentsValidator | undefined,
  settings: TurnSettings,
): EventReader => {
  if (mode === "native") return createNativeCallReader({ tools, validator });
  const parser = createSentinelParser({
    tools,
    validator,
    maxBlockBytes: settings.maxBlockBytes,
    formats: blockFormatsFor(tools.values()),
  });
  return {
    pushTo(event, sink) {
      if (event.type === "text-delta") parser.pushTo(event.delta, sink);
    },
    flushTo: (sink) => parser.flushTo(sink),
  };
};

/**
 * The corrective turn: the failed attempt goes into history as the assistant's text (its native
 * calls are left out — a call without an output would be an invalid native history), followed
 * by what was wrong.
 */
export const correctiveRequest = (
  request: BackendRequest,
  rawText: string,
  message: string,
): BackendRequest => {
  const history: PromptMessage[] = [...request.history];
  if (request.input.length > 0) history.push({ role: "user", content: request.input });
  if (rawText !== "" || request.tools === undefined)
    history.push({ role: "assistant", content: [{ type: "text", text: rawText }] });
  return {
    ...request,
    history,
    input: [
      {
        type: "text",
        text: `Your previous reply broke the function-calling rules: ${message}. Write your reply again from the start, following the rules exactly.`,
      },
    ],
  };
};
