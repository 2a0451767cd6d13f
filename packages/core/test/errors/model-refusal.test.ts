import { modelNotFound, refusesModel } from "@proxy/core";
import { describe, expect, it } from "vitest";

describe("refusesModel: a model provider's refusal that is about the model", () => {
  it.each([
    "The 'gpt-9' model is not supported when using Codex with a ChatGPT account.",
    "The model `gpt-9` does not exist or you do not have access to it.",
    'model "qwen9" not found, try pulling it first',
    "Unknown model: foo-1",
    "The model gpt-9 is not available in your region",
  ])("%s", (message) => {
    expect(refusesModel(message)).toBe(true);
  });

  it.each([
    "Unsupported parameter: 'temperature' is not supported with this model.",
    "This model's maximum context length is 8192 tokens.",
    "messages: field required",
    "This model does not support tools",
  ])("not: %s", (message) => {
    expect(refusesModel(message)).toBe(false);
  });

  it("modelNotFound is OpenAI's 404 naming the model field", () => {
    expect(modelNotFound("no such model")).toMatchObject({
      kind: "not_found",
      code: "model_not_found",
      param: "model",
      retryable: false,
    });
  });
});
