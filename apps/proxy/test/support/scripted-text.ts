import type { RecordedRequest } from "@proxy/adapter-codex-appserver/testing";

/** All the text codex sent upstream for one request (instructions, history, input). */
export const transcriptOf = (request: RecordedRequest): string =>
  JSON.stringify(request.body.input ?? "").replaceAll('\\"', '"');

/** The text of the last user message codex sent upstream (the turn's input). */
export const lastUserText = (request: RecordedRequest): string => {
  const items = (request.body.input ?? []) as Array<{
    role?: string;
    content?: Array<{ text?: string }> | string;
  }>;
  const last = items.filter((i) => i.role === "user").at(-1);
  if (!last) return "";
  return typeof last.content === "string"
    ? last.content
    : (last.content ?? []).map((c) => c.text ?? "").join("");
};

export const toolCallText = (name: string, args: object) =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;
