import { createRandomIdGenerator, createSchemaCache } from "@proxy/core";
import { generateWithTools } from "./generate.js";
import { checkOptions, type ToolCallingOptions, turnSettingsOf } from "./options.js";
import { type PlanContext, planStep } from "./plan.js";
import type { LanguageModelMiddleware } from "./sdk-types.js";
import { streamWithTools } from "./stream.js";

/**
 * AI SDK middleware that gives tool calling to a model that only writes text. Wrap the model with
 * `wrapLanguageModel({ model, middleware: toolCallingMiddleware() })`: the tools of each call are
 * taught in the system prompt (core's manifest), earlier calls and tool results are rendered into
 * the text history, and the reply is read by core's streaming parser into `tool-call` content and
 * `tool-input-start`/`-delta`/`-end` parts, under `toolChoice`, the parallel cap and the strict
 * rules (one corrective re-ask by default). Calls without function tools or tool history pass
 * through untouched. Works with `ai` 6 (LanguageModelV3) and 7 (V4).
 */
export const toolCallingMiddleware = (options: ToolCallingOptions = {}): LanguageModelMiddleware => {
  checkOptions(options);
  // Compiled schemas live as long as the middleware: an agent resends the same tools every step.
  const ctx: PlanContext = {
    options,
    settings: turnSettingsOf(options),
    ids: options.ids ?? createRandomIdGenerator(),
    schemas: createSchemaCache(),
  };
  return {
    specificationVersion: "v3",
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const plan = planStep(params, ctx);
      return plan === undefined ? doGenerate() : generateWithTools(model, plan);
    },
    wrapStream: async ({ doStream, params, model }) => {
      const plan = planStep(params, ctx);
      return plan === undefined ? doStream() : streamWithTools(model, plan);
    },
  };
};
