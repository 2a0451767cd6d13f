import { MAX_MODEL_NAME_CHARS } from "@proxy/http-surface";
import type { ChatCompletionRequest } from "./request-schema.js";

/**
 * The common request, checked by hand: `ChatCompletionRequest` decoded with the schema cost ~6 µs
 * of a small request (it rebuilds every object). A body that is plainly of the schema's shape (text
 * messages, scalar options, tool fields the schema takes as they are) is taken as it is; anything
 * else, valid or not, returns undefined and goes to the schema, which then accepts it or names the
 * field. The parsed value's unknown fields are kept, and ignored by every reader, as the schema
 * drops them. `plain-request.test.ts` holds the schema to every verdict given here.
 */
export const plainChatRequest = (json: unknown): ChatCompletionRequest | undefined => {
  if (!isObject(json)) return undefined;
  const model = json.model;
  if (typeof model !== "string" || model.length === 0 || model.length > MAX_MODEL_NAME_CHARS)
    return undefined;
  if (!plainMessages(json.messages)) return undefined;
  for (const key in json) {
    const check = FIELDS[key];
    if (check === undefined) {
      if (SCHEMA_FIELDS.has(key)) return undefined;
      continue;
    }
    const value = json[key];
    if (value !== null && !check(value)) return undefined;
  }
  return json as unknown as ChatCompletionRequest;
};

type Fields = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);

const ANY = (): boolean => true;
const isBoolean = (v: unknown): boolean => typeof v === "boolean";
const isNumber = (v: unknown): boolean => typeof v === "number";
const isString = (v: unknown): boolean => typeof v === "string";
const isPositiveInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;

/** The fields taken here, each with its check when not null (a field the schema takes as unknown: any value). */
const FIELDS: Readonly<Record<string, (v: unknown) => boolean>> = {
  model: ANY,
  messages: ANY,
  stream: isBoolean,
  max_tokens: isPositiveInt,
  max_completion_tokens: isPositiveInt,
  temperature: isNumber,
  top_p: isNumber,
  seed: isNumber,
  user: isString,
  frequency_penalty: isNumber,
  presence_penalty: isNumber,
  store: isBoolean,
  logprobs: isBoolean,
  top_logprobs: isNumber,
  service_tier: isString,
  stream_options: (v) =>
    isObject(v) && (v.include_usage === undefined || v.include_usage === null || isBoolean(v.include_usage)),
  // Unknown to the schema, any value: `decode-tools.ts` checks them.
  tools: ANY,
  tool_choice: ANY,
  parallel_tool_calls: ANY,
  functions: ANY,
  function_call: ANY,
};

/** The schema's other fields: present, they are left to the schema (`n`, `stop`, `response_format`…). */
const SCHEMA_FIELDS: ReadonlySet<string> = new Set([
  "n",
  "response_format",
  "web_search_options",
  "reasoning_effort",
  "stop",
  "metadata",
  "logit_bias",
]);

/** One or more messages, each a system, developer, user or assistant message with text content only. */
const plainMessages = (messages: unknown): boolean => {
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) {
    if (!isObject(message) || typeof message.content !== "string") return false;
    switch (message.role) {
      case "system":
      case "developer":
      case "user":
        break;
      case "assistant":
        if (message.tool_calls != null || message.function_call != null) return false;
        break;
      default:
        return false;
    }
  }
  return true;
};
