import { GatewayError } from "@proxy/core";
import { checkModelName } from "@proxy/http-surface";

/** The methods of `models/{model}:{method}` (one Hono path: it cannot route on a suffix in a segment). */
export const MODEL_METHODS = ["generateContent", "streamGenerateContent", "countTokens"] as const;
export type ModelMethod = (typeof MODEL_METHODS)[number];

const notFound = (what: string) => new GatewayError("not_found", what, { code: "not_found" });

/** `gemini-2.5-flash:generateContent` → model and method (split on the last `:`). */
export const splitAction = (action: string): { model: string; method: ModelMethod } => {
  const at = action.lastIndexOf(":");
  const method = action.slice(at + 1);
  const model = checkModelName(action.slice(0, Math.max(0, at)));
  if (at <= 0 || !(MODEL_METHODS as ReadonlyArray<string>).includes(method))
    throw notFound(
      `Method '${at < 0 ? "" : method}' is not found for 'models/${action}'. Use :generateContent, :streamGenerateContent or :countTokens.`,
    );
  return { model, method: method as ModelMethod };
};
