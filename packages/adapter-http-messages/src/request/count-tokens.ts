import { JSON_TOOL_CALL_FORMAT, renderBackendRequest, type TokenEncoding } from "@proxy/core";
import { countTokensYielding } from "@proxy/http-surface";
import { decodeCountTokensRequest } from "./decode-request.js";

/**
 * `input_tokens` for a count_tokens body: the prompt exactly as the backend would receive it (the
 * gateway's instructions, the tool manifest, the rendered history), counted with the gateway's one
 * tokenizer. For non-OpenAI models it is an estimate; images are not counted.
 */
export const countInputTokens = (tokens: TokenEncoding, body: unknown): Promise<number> => {
  const { request, tools } = decodeCountTokensRequest(body);
  const rendered = renderBackendRequest(request, tools, JSON_TOOL_CALL_FORMAT).request;
  const texts = [rendered.instructions];
  for (const message of [...rendered.history, { content: rendered.input }]) {
    if (!("content" in message)) continue;
    for (const part of message.content) if (part.type === "text") texts.push(part.text);
  }
  return countTokensYielding(tokens, texts);
};
