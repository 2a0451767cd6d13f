import { GatewayError } from "@proxy/core";
import type { ModelInfo } from "@proxy/core/gateway";

/** A gateway model as Google's `Model` resource; `inputTokenLimit` where the backend knows the window. */
export const geminiModel = (model: ModelInfo) => ({
  name: `models/${model.id}`,
  version: "001",
  displayName: model.id,
  description: model.description ?? `${model.id} served by the gateway`,
  ...(model.contextWindow === undefined ? {} : { inputTokenLimit: model.contextWindow }),
  supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
});

/** `GET models`: the gateway's model list in Google's shape. */
export const geminiModelList = (models: ReadonlyArray<ModelInfo>) => ({ models: models.map(geminiModel) });

/** Request headers only Google's clients send: tells a Gemini `GET /v1/models` from an OpenAI one. */
export const isGoogleClient = (header: (name: string) => string | undefined): boolean =>
  header("x-goog-api-key") !== undefined || header("x-goog-api-client") !== undefined;

/** `GET models/{model}` (the id with or without its `models/` prefix), or Google's 404. */
export const geminiModelById = (name: string, models: ReadonlyArray<ModelInfo>) => {
  const id = name.replace(/^models\//, "");
  const model = models.find((m) => m.id === id);
  if (model === undefined)
    throw new GatewayError("not_found", `models/${id} is not found.`, { code: "not_found" });
  return geminiModel(model);
};
