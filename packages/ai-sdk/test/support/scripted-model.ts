import type { MockLanguageModelV3 } from "ai/test";
import type { Sdk } from "./sdk.js";

type CallOptions = MockLanguageModelV3["doGenerateCalls"][number];
export type ModelPrompt = CallOptions["prompt"];

/** One scripted reply: its text, or a function of the prompt the model got. */
export type Reply = string | ((prompt: ModelPrompt) => string);

export interface ScriptedModel {
  readonly model: MockLanguageModelV3;
  /** Every prompt the model got, in order (both generate and stream calls). */
  readonly prompts: ModelPrompt[];
  /** The params of every call (to check what else reached the model). */
  readonly calls: CallOptions[];
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** Text cut into pieces of `size` characters (the stream's text deltas). */
export const piecesOf =
  (size: number) =>
  (text: string): string[] => {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  };

/**
 * A text-only model that plays `replies` in order (the last one repeats), as `doGenerate` content
 * or as a stream of text deltas cut by `chunk`. It has no tools of its own: it only writes text.
 */
export const scriptedModel = (
  sdk: Sdk,
  replies: ReadonlyArray<Reply>,
  chunk: (text: string) => string[] = piecesOf(3),
): ScriptedModel => {
  const prompts: ModelPrompt[] = [];
  const calls: CallOptions[] = [];
  const next = (options: CallOptions): string => {
    const reply = replies[Math.min(prompts.length, replies.length - 1)] ?? "";
    prompts.push(options.prompt);
    calls.push(options);
    return typeof reply === "string" ? reply : reply(options.prompt);
  };
  const model = new sdk.MockLanguageModelV3({
    doGenerate: async (options) => ({
      content: [{ type: "text", text: next(options) }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: USAGE,
      warnings: [],
    }),
    doStream: async (options) => {
      const text = next(options);
      const parts = [
        { type: "stream-start" as const, warnings: [] },
        { type: "text-start" as const, id: "0" },
        ...chunk(text).map((delta) => ({ type: "text-delta" as const, id: "0", delta })),
        { type: "text-end" as const, id: "0" },
        { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "stop" }, usage: USAGE },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts, calls };
};

/** The prompt's text as one string per message ("role: text"), to assert on what the model read. */
export const promptText = (prompt: ModelPrompt): string[] =>
  prompt.map((m) =>
    typeof m.content === "string"
      ? `${m.role}: ${m.content}`
      : `${m.role}: ${m.content.map((p) => ("text" in p ? p.text : `[${p.type}]`)).join("")}`,
  );
