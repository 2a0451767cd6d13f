import type {
  BackendRequest,
  ContentPart,
  ConversationItem,
  PromptMessage,
  ToolPolicy,
  TurnRequest,
} from "@proxy/core";

/** Longest text kept of one message or tool output in a summary; the rest is counted, not kept. */
const TEXT_LIMIT = 4_000;
/** Headers never recorded as they were sent. */
const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "x-goog-api-key",
  "cookie",
  "set-cookie",
]);

export interface Redactor {
  /** A string with every configured secret replaced by `[redacted]`. */
  text(s: string): string;
}

/** Hides the gateway's own keys wherever a client pasted them into a prompt. */
export const createRedactor = (secrets: ReadonlyArray<string>): Redactor => {
  const keys = secrets.filter((s) => s.length >= 8);
  return {
    text: (s) => (keys.length === 0 ? s : keys.reduce((out, key) => out.replaceAll(key, "[redacted]"), s)),
  };
};

const clip = (r: Redactor, s: string): string =>
  r.text(s.length > TEXT_LIMIT ? `${s.slice(0, TEXT_LIMIT)}… [${s.length - TEXT_LIMIT} more chars]` : s);

/** An image is named by its type and size; its data and any URL query (signatures) are not kept. */
const imageLabel = (url: string): string => {
  const data = /^data:([^;,]+)?(?:;base64)?,/.exec(url);
  if (data)
    return `[image ${data[1] ?? "data"}, ${Math.round(((url.length - data[0].length) * 3) / 4)} bytes]`;
  try {
    const u = new URL(url);
    return `[image ${u.origin}${u.pathname}]`;
  } catch {
    return "[image]";
  }
};

export const partsText = (r: Redactor, parts: ReadonlyArray<ContentPart>): string =>
  parts.map((p) => (p.type === "text" ? clip(r, p.text) : imageLabel(p.url))).join("");

export interface ItemSummary {
  readonly kind: string;
  readonly text: string;
}

const summarizeItem = (r: Redactor, item: ConversationItem): ItemSummary => {
  switch (item.type) {
    case "message":
      return { kind: item.role, text: partsText(r, item.content) };
    case "tool-call":
      return { kind: "tool call", text: `${item.name}(${clip(r, item.arguments)}) id=${item.callId}` };
    case "tool-result":
      return {
        kind: "tool result",
        text: `${item.name ?? ""} id=${item.callId}: ${clip(r, item.output)}${(item.images ?? []).map((i) => imageLabel(i.url)).join("")}`,
      };
    case "reasoning":
      return { kind: "reasoning", text: clip(r, item.text) };
  }
};

const toolsOf = (r: Redactor, policy: ToolPolicy) => ({
  choice: policy.choice.type === "tool" ? `tool: ${policy.choice.name}` : policy.choice.type,
  parallel: policy.parallel,
  ...(policy.allowed ? { allowed: policy.allowed } : {}),
  tools: policy.tools.map((t) => ({
    name: t.name,
    strict: t.strict,
    ...(t.custom ? { custom: true } : {}),
    ...(t.description ? { description: clip(r, t.description) } : {}),
    ...(t.parameters ? { parameters: t.parameters } : {}),
  })),
});

/** What the client asked for, decoded: its tools and choice, its messages summarized. */
export const summarizeClientRequest = (
  r: Redactor,
  request: TurnRequest,
  tools: ToolPolicy,
  headers: Readonly<Record<string, string>>,
) => ({
  model: request.model,
  headers: Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, SECRET_HEADERS.has(k.toLowerCase()) ? "[redacted]" : v]),
  ),
  ...(request.instructions ? { instructions: clip(r, request.instructions) } : {}),
  ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  ...(request.stopSequences?.length ? { stopSequences: request.stopSequences } : {}),
  ...(request.reasoningEffort ? { reasoningEffort: request.reasoningEffort } : {}),
  ...toolsOf(r, tools),
  messages: request.items.map((item) => summarizeItem(r, item)),
});

const summarizePrompt = (r: Redactor, m: PromptMessage): ItemSummary =>
  "content" in m
    ? { kind: m.role, text: partsText(r, m.content) }
    : "toolCalls" in m
      ? {
          kind: "assistant calls",
          text: m.toolCalls.map((c) => `${c.name}(${clip(r, c.arguments)})`).join(", "),
        }
      : { kind: "tool", text: `id=${m.callId}: ${clip(r, m.output)}` };

/** What the backend was sent: the rendered instructions (the tool manifest in prompt mode), history, input. */
export const summarizeBackendRequest = (r: Redactor, request: BackendRequest, attempt: number) => ({
  attempt,
  mode: request.tools === undefined ? "prompt" : "native",
  model: request.model,
  // The manifest is the point of this view: kept in full up to 4x the message limit.
  instructions: r.text(
    request.instructions.length > TEXT_LIMIT * 4
      ? `${request.instructions.slice(0, TEXT_LIMIT * 4)}… [${request.instructions.length - TEXT_LIMIT * 4} more chars]`
      : request.instructions,
  ),
  history: request.history.map((m) => summarizePrompt(r, m)),
  input: partsText(r, request.input),
  ...(request.tools ? { nativeTools: toolsOf(r, request.tools) } : {}),
});
