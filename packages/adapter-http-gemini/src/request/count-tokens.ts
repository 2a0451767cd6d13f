import type { TokenEncoding, ToolPolicy, TurnRequest } from "@proxy/core";
import { countTokensYielding } from "@proxy/http-surface";

/** The texts `countTokens` counts: instructions, messages, calls, results, tool declarations. */
function* requestTexts(request: TurnRequest, tools: ToolPolicy): Generator<string> {
  yield request.instructions ?? "";
  for (const item of request.items) {
    if (item.type === "message") {
      for (const part of item.content) if (part.type === "text") yield part.text;
    } else if (item.type === "tool-call") {
      yield item.name;
      yield item.arguments;
    } else if (item.type === "tool-result") yield item.output;
    else yield item.text;
  }
  if (tools.tools.length > 0) yield JSON.stringify(tools.tools);
}

/**
 * `countTokens`: the request's text counted with the gateway's one tokenizer, o200k_base. For
 * Gemini model names this is an estimate.
 */
export const countRequestTokens = (
  tokens: TokenEncoding,
  request: TurnRequest,
  tools: ToolPolicy,
): Promise<number> => countTokensYielding(tokens, requestTexts(request, tools));
