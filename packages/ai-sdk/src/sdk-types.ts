import type { LanguageModelMiddleware } from "ai";

/**
 * The AI SDK's own language-model types, read off the middleware type of the `ai` the user has
 * installed (LanguageModelV3 under ai 6, V4 under ai 7): the shapes this package touches are the
 * same in both, so one implementation serves both majors and its types follow the installed one.
 */
type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>;

export type { LanguageModelMiddleware };
export type CallOptions = Parameters<WrapGenerate>[0]["params"];
export type LanguageModel = Parameters<WrapGenerate>[0]["model"];
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
export type StreamResult = Awaited<ReturnType<WrapStream>>;
export type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
export type Prompt = CallOptions["prompt"];
export type Message = Prompt[number];
export type Content = GenerateResult["content"][number];
export type SdkFinishReason = GenerateResult["finishReason"];
export type SdkUsage = GenerateResult["usage"];
export type Warning = GenerateResult["warnings"][number];
export type SdkTool = NonNullable<CallOptions["tools"]>[number];
export type FunctionTool = Extract<SdkTool, { type: "function" }>;
export type SdkToolChoice = NonNullable<CallOptions["toolChoice"]>;
export type ToolResultOutput = Extract<
  Extract<Message, { role: "tool" }>["content"][number],
  { type: "tool-result" }
>["output"];
