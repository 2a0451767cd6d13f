import { countTokens, type ToolPolicy, type TurnRequest } from "@proxy/core";

/**
 * `countTokens`: the request's text (instructions, messages, calls, results, tool declarations)
 * counted with the gateway's one tokenizer, o200k_base. For Gemini model names this is an estimate.
 */
export const countRequestTokens = (request: TurnRequest, tools: ToolPolicy): number => {
  let total = countTokens(request.instructions ?? "");
  for (const item of request.items) {
    if (item.type === "message")
      for (const part of item.content) total += part.type === "text" ? countTokens(part.text) : 0;
    else if (item.type === "tool-call") total += countTokens(item.name) + countTokens(item.arguments);
    else if (item.type === "tool-result") total += countTokens(item.output);
    else total += countTokens(item.text);
  }
  if (tools.tools.length > 0) total += countTokens(JSON.stringify(tools.tools));
  return total;
};
