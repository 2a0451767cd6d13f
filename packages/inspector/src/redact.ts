import type {
  BackendRequest,
  ContentPart,
  ConversationItem,
  PromptMessage,
  ToolPolicy,
  TurnRequest,
} from "@proxy/core";
import { createSecretMatcher } from "./secret-matcher.js";

/** Longest text kept of one message or tool output in a summary; the rest is counted, not kept. */
const TEXT_LIMIT = 4_000;
/** Longest name (model, tool, header value / 4) kept whole. */
export const NAME_LIMIT = 256;
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
  /** A string with every configured secret replaced by `[redacted]`, in one pass. */
  text(s: string): string;
  /** `s` cut to about `max` chars with a marker saying how much went, never inside a secret. */
  cut(s: string, max: number): string;
  /** `text(s)` in pieces of about `size` chars, no secret split across two: a big answer, sent in slices. */
  pieces(s: string, size: number): Generator<string>;
}

/** Kept text is cut like this: the reader sees how much is missing. */
export const cutMarker = (dropped: number) => `… [${dropped} more chars]`;

/**
 * Hides the gateway's own keys wherever they appear: in prompts, headers, tool schemas, errors. The
 * inspector redacts what it serves (its JSON answers and live events), so a key is also looked for
 * as JSON writes it inside a string.
 */
export const createRedactor = (secrets: ReadonlyArray<string>): Redactor => {
  const keys = [...new Set(secrets.filter((s) => s.length >= 8))];
  const forms = [...new Set(keys.flatMap((k) => [k, JSON.stringify(k).slice(1, -1)]))];
  const matcher = createSecretMatcher(forms);
  /** `at`, or past the secret that spans it. */
  const clear = (s: string, at: number) => {
    const from = Math.max(0, at - matcher.longest);
    let end = at;
    for (const [start, stop] of matcher.ranges(s.slice(from, at + matcher.longest)))
      if (from + start < at && from + stop > at) end = from + stop;
    return end;
  };
  return {
    *pieces(s, size) {
      for (let at = 0; at < s.length; ) {
        const end = at + size >= s.length ? s.length : clear(s, at + size);
        yield this.text(s.slice(at, end));
        at = end;
      }
    },
    text(s) {
      const ranges = matcher.ranges(s);
      if (ranges.length === 0) return s;
      let out = "";
      let at = 0;
      for (const [start, end] of ranges) {
        out += `${s.slice(at, start)}[redacted]`;
        at = end;
      }
      return out + s.slice(at);
    },
    cut(s, max) {
      if (s.length <= max) return s;
      let at = max;
      // A secret across the cut would leave its first half readable: cut before it.
      const from = Math.max(0, at - matcher.longest);
      for (const [start, end] of matcher.ranges(s.slice(from, at + matcher.longest)))
        if (from + start < at && from + end > at) at = from + start;
      const code = s.charCodeAt(at - 1);
      if (code >= 0xd800 && code <= 0xdbff) at--;
      return `${s.slice(0, at)}${cutMarker(s.length - at)}`;
    },
  };
};

const clip = (r: Redactor, s: string): string => r.cut(s, TEXT_LIMIT);

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
  choice:
    policy.choice.type === "tool" ? `tool: ${r.cut(policy.choice.name, NAME_LIMIT)}` : policy.choice.type,
  parallel: policy.parallel,
  ...(policy.allowed ? { allowed: policy.allowed } : {}),
  tools: policy.tools.map((t) => ({
    name: r.cut(t.name, NAME_LIMIT),
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
  model: r.cut(request.model, NAME_LIMIT),
  headers: Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [
      k,
      SECRET_HEADERS.has(k.toLowerCase()) ? "[redacted]" : r.cut(v, NAME_LIMIT * 4),
    ]),
  ),
  ...(request.instructions ? { instructions: clip(r, request.instructions) } : {}),
  ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  ...(request.stopSequences?.length
    ? { stopSequences: request.stopSequences.slice(0, 16).map((s) => r.cut(s, NAME_LIMIT)) }
    : {}),
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
  model: r.cut(request.model, NAME_LIMIT),
  // The manifest is the point of this view: kept in full up to 4x the message limit.
  instructions: r.cut(request.instructions, TEXT_LIMIT * 4),
  history: request.history.map((m) => summarizePrompt(r, m)),
  input: partsText(r, request.input),
  ...(request.tools ? { nativeTools: toolsOf(r, request.tools) } : {}),
});
