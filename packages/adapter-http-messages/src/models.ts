import type { ModelInfo } from "@proxy/core/gateway";

/**
 * `GET /v1/models` in Anthropic's shape (`models.list` of the SDK). The host serves the OpenAI
 * listing on the same path and picks this one when the request carries `anthropic-version`.
 */
export const anthropicModel = (model: ModelInfo, createdAt: string) => ({
  type: "model" as const,
  id: model.id,
  display_name: model.id,
  created_at: createdAt,
  // The model's context window, as Anthropic's model objects give it, where the backend knows it.
  ...(model.contextWindow === undefined ? {} : { max_input_tokens: model.contextWindow }),
});

export const anthropicModelList = (models: ReadonlyArray<ModelInfo>, createdAt: string) => ({
  data: models.map((m) => anthropicModel(m, createdAt)),
  has_more: false,
  first_id: models[0]?.id ?? null,
  last_id: models.at(-1)?.id ?? null,
});
