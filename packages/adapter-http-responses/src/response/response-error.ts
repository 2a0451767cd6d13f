import type { GatewayError } from "@proxy/core";
import type { ErrorBodyShaper } from "@proxy/http-surface";
import { type ContextFullWording, openAIError } from "@proxy/http-surface/openai-wire";

/** The Responses API's words for a full context (`codex exec` acts on the code). */
export const RESPONSES_CONTEXT_FULL: ContextFullWording = {
  param: "input",
  message: () =>
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
};

/** The `error` of a Responses error body. */
export const responsesError = (error: GatewayError) => openAIError(error, RESPONSES_CONTEXT_FULL);

/** The `error` of a failed response object: `{code, message}`. */
export const failedWith = (error: GatewayError) => {
  const { code, message } = responsesError(error);
  return { code, message };
};

/** OpenAI's error body in the Responses API's words. */
export const responsesErrorBody: ErrorBodyShaper = (error) => ({ error: responsesError(error) });
