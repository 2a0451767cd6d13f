import {
  type BackendRequest,
  type ContentPart,
  GatewayError,
  INPUT_TOO_LONG,
  type PromptMessage,
} from "@proxy/core";

type ImagePart = Extract<ContentPart, { type: "image" }>;

/** A raw Responses `message` item as `thread/inject_items` takes it. */
export interface ResponsesMessageItem {
  readonly type: "message";
  readonly role: "user" | "assistant" | "developer";
  readonly content: ReadonlyArray<Record<string, unknown>>;
}

/** Raw Responses items as `thread/inject_items` takes them (native history included). */
export type ResponsesItem =
  | ResponsesMessageItem
  | {
      readonly type: "function_call";
      readonly call_id: string;
      readonly name: string;
      readonly arguments: string;
    }
  | { readonly type: "function_call_output"; readonly call_id: string; readonly output: string };

type ContentMessage = Extract<PromptMessage, { content: unknown }>;

/** What to send for one request: history to inject, and the `turn/start` input. */
export interface CodexTurnInput {
  readonly inject: ReadonlyArray<ResponsesItem>;
  readonly input: ReadonlyArray<Record<string, unknown>>;
}

const isDataUrl = (url: string) => /^data:/i.test(url);

const checkImage = (part: ImagePart, allowRemoteImages: boolean) => {
  if (isDataUrl(part.url) || allowRemoteImages) return;
  throw new GatewayError(
    "invalid_request",
    "The codex backend only accepts inline images (data: URLs); fetch the image and send it base64-encoded.",
    { param: "image_url", code: "invalid_image_url" },
  );
};

const toInjectedMessage = (message: ContentMessage): ResponsesMessageItem | undefined => {
  if (message.role === "assistant") {
    // Responses input allows only text for assistant turns; an image there has no wire form.
    const content = message.content.flatMap((p) =>
      p.type === "text" ? [{ type: "output_text", text: p.text }] : [],
    );
    return content.length === 0 ? undefined : { type: "message", role: "assistant", content };
  }
  const content = message.content.map((p) =>
    p.type === "text"
      ? { type: "input_text", text: p.text }
      : { type: "input_image", image_url: p.url, ...(p.detail ? { detail: p.detail } : {}) },
  );
  return content.length === 0 ? undefined : { type: "message", role: message.role, content };
};

/**
 * codex 0.169 replaces a `turn/start` image whose detail is "low" with the text "image content
 * omitted because detail 'low' is not supported" (verified), so "low" is sent as codex's default.
 */
const toUserInput = (part: ContentPart): Record<string, unknown> =>
  part.type === "text"
    ? { type: "text", text: part.text, text_elements: [] }
    : {
        type: "image",
        url: part.url,
        ...(part.detail && part.detail !== "low" ? { detail: part.detail } : {}),
      };

/**
 * Splits a request into codex calls. History goes in through `thread/inject_items` as raw
 * Responses `message` items, so every message keeps its own role (user/developer/assistant)
 * upstream — instead of being flattened into one user text that the model would have to
 * re-parse, and that a client could forge role markers inside. The new input goes to
 * `turn/start`, except when it holds a remote image (only with `allowRemoteImages`): the
 * app-server rejects non-data URLs in `turn/start`, but passes injected items through verbatim,
 * so such input is injected too and the turn starts with an empty input (verified: codex adds
 * no empty user message).
 */
/** Native history: earlier calls and their outputs as the model's own items, names as codex knows them. */
const toInjectedItems = (message: PromptMessage, codexName: (name: string) => string): ResponsesItem[] => {
  if ("toolCalls" in message)
    return message.toolCalls.map((c) => ({
      type: "function_call",
      call_id: c.callId,
      name: codexName(c.name),
      arguments: c.arguments,
    }));
  if (message.role === "tool")
    return [{ type: "function_call_output", call_id: message.callId, output: message.output }];
  const item = toInjectedMessage(message);
  return item ? [item] : [];
};

/**
 * codex refuses a `turn/start` whose text input is longer than this many characters (Unicode
 * scalar values, all text items together; verified with codex 0.169: 1,048,576 "x" start a turn,
 * 1,048,577 are refused with "Input exceeds the maximum length of 1048576 characters.").
 */
export const CODEX_MAX_INPUT_CHARS = 1_048_576;

/** Characters as codex counts them: a surrogate pair is one. */
const codePoints = (text: string): number => {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
};

/** The client's input, refused before any turn starts when codex would refuse it. */
export const inputTooLong = (characters: number): GatewayError =>
  new GatewayError(
    "invalid_request",
    `The input is too long for the codex backend: ${characters} characters in the message that starts the turn, at most ${CODEX_MAX_INPUT_CHARS}.`,
    { code: INPUT_TOO_LONG },
  );

const checkInputLength = (input: ReadonlyArray<ContentPart>): void => {
  let units = 0;
  for (const part of input) if (part.type === "text") units += part.text.length;
  // Code points never outnumber UTF-16 units: only a long input needs counting.
  if (units <= CODEX_MAX_INPUT_CHARS) return;
  let characters = 0;
  for (const part of input) if (part.type === "text") characters += codePoints(part.text);
  if (characters > CODEX_MAX_INPUT_CHARS) throw inputTooLong(characters);
};

export const toCodexTurnInput = (
  request: Pick<BackendRequest, "history" | "input">,
  options: { readonly allowRemoteImages: boolean; readonly codexName?: (name: string) => string },
): CodexTurnInput => {
  for (const message of request.history) {
    if (!("content" in message) || message.role === "assistant") continue;
    for (const part of message.content)
      if (part.type === "image") checkImage(part, options.allowRemoteImages);
  }
  for (const part of request.input) if (part.type === "image") checkImage(part, options.allowRemoteImages);
  const codexName = options.codexName ?? ((name: string) => name);
  const inject = request.history.flatMap((m) => toInjectedItems(m, codexName));
  const remoteInInput = request.input.some((p) => p.type === "image" && !isDataUrl(p.url));
  if (remoteInInput) {
    const last = toInjectedMessage({ role: "user", content: request.input });
    return { inject: last ? [...inject, last] : inject, input: [] };
  }
  checkInputLength(request.input);
  return { inject, input: request.input.map(toUserInput) };
};
