import { invalidRequest } from "@proxy/core";
import * as Schema from "effect/Schema";

/**
 * The longest model name a request may give. No real model id comes near it (Anthropic and OpenAI
 * refuse longer ones with a 400 too); a name goes into usage rows, metrics, logs and traces, so
 * one without a bound would let a single request fill each of them.
 */
export const MAX_MODEL_NAME_CHARS = 256;

const tooLong = (length: number): string =>
  `string too long. Expected a string with maximum length ${MAX_MODEL_NAME_CHARS}, but got a string with length ${length} instead`;

/** A request body's `model`: 1 to `MAX_MODEL_NAME_CHARS` characters (the decode error names it). */
export const ModelName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.makeFilter((model: string) => model.length <= MAX_MODEL_NAME_CHARS || tooLong(model.length)),
);

/** The same bound for a model named outside a schema (a URL path); throws a 400 naming `param`. */
export const checkModelName = (model: string, param = "model"): string => {
  if (model.length > MAX_MODEL_NAME_CHARS)
    throw invalidRequest(`Invalid '${param}': ${tooLong(model.length)}.`, param, "string_above_max_length");
  return model;
};
