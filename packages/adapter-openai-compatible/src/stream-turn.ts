import { setImmediate as yieldToLoop } from "node:timers/promises";
import {
  type BackendRequest,
  countTokensPausing,
  EXACT_COUNT_CHARS,
  estimateTokens,
  type Finish,
  GatewayError,
  type TokenEncoding,
  type Usage,
} from "@proxy/core";
import type { BackendBatch, BackendEvent } from "@proxy/core/gateway";
import { createParser } from "eventsource-parser";
import type { Dispatcher } from "undici";
import { decodeChatChunk, mapFinishReason, toUsage, upstreamErrorMessage } from "./chat-chunk.js";
import { type ChatMessage, promptText, toChatBody } from "./chat-request.js";
import { createContentTemplate } from "./content-template.js";
import { mapTransportError, mapUpstreamStatus } from "./map-upstream-error.js";
import { conversationCacheKey } from "./prompt-cache-key.js";
import { createThinkSplitter, type ThinkSegment } from "./think-splitter.js";
import { createToolCallAccumulator } from "./tool-call-accumulator.js";
import { openExchange, type UpstreamExchange } from "./upstream-exchange.js";

/** What one turn needs from its backend: where to send it, how, and where to report reachability. */
export interface TurnContext {
  readonly route: string;
  /** `POST {base}/chat/completions` as undici dispatches it: origin, path, and the headers of every turn. */
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly dispatcher: Dispatcher;
  /** Send a per-conversation `prompt_cache_key` (servers that take it: OpenAI, vLLM, llama.cpp…). */
  readonly promptCacheKey: boolean;
  /** Counts usage when the upstream reports none. */
  readonly tokens: TokenEncoding;
  /** Told whether the upstream could be reached at all (drives readiness). */
  readonly reached: (ok: boolean, error?: unknown) => void;
  /** Removes the route's own key, URL, host and path from upstream text before it is passed on. */
  readonly scrub: (text: string) => string;
}

const MAX_ERROR_BODY = 64 * 1024;

/** At most `MAX_ERROR_BODY` characters of an error body (a misbehaving upstream may send megabytes). */
const readSome = async (body: UpstreamExchange): Promise<string> => {
  const decoder = new TextDecoder();
  let text = "";
  for (let chunks = await body.read(); chunks !== undefined; chunks = await body.read()) {
    for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
    if (text.length >= MAX_ERROR_BODY) break;
  }
  return text.slice(0, MAX_ERROR_BODY);
};

/**
 * The largest server-sent event read from an upstream. A model's deltas are a few tokens; one
 * event of megabytes would hold the event loop while it is parsed and re-encoded for the client
 * (a 32 MB delta took 0.6 s), so a longer one ends the turn as a bad response.
 */
export const MAX_UPSTREAM_EVENT_CHARS = 4 * 1024 * 1024;

const badResponse = (route: string, what: string) =>
  new GatewayError("backend_error", `route '${route}': the upstream model server ${what}`, {
    code: "upstream_bad_response",
  });

const chunkError = (ctx: TurnContext, error: unknown): GatewayError => {
  const message = typeof error === "string" ? error : (error as { message?: string | null }).message;
  return mapUpstreamStatus(ctx.route, 500, message ? ctx.scrub(message) : undefined);
};

/**
 * One prompt-mode turn against `POST {base}/chat/completions`, streamed. Failures before the
 * upstream accepts the turn are thrown (they become HTTP statuses); after `stream-start` they are
 * `error` events. Aborting `signal` cancels the upstream request and ends the iterable quietly.
 * Yields batches: the events of every body chunk that arrived since the last pull, mapped in one pass.
 */
export async function* streamTurn(
  ctx: TurnContext,
  request: BackendRequest,
  signal: AbortSignal,
): AsyncGenerator<BackendBatch> {
  const body = ctx.promptCacheKey
    ? { ...toChatBody(request), prompt_cache_key: conversationCacheKey(request) }
    : toChatBody(request);
  let response: UpstreamExchange;
  try {
    response = await openExchange(
      ctx.dispatcher,
      {
        origin: ctx.origin,
        path: ctx.path,
        method: "POST",
        headers: ctx.headers,
        body: JSON.stringify(body),
      },
      signal,
    );
  } catch (error) {
    if (signal.aborted) return;
    ctx.reached(false, error);
    throw mapTransportError(ctx.route, error);
  }
  ctx.reached(true);
  const { statusCode, headers } = response;
  try {
    if (statusCode >= 400) {
      const text = await readSome(response).catch(() => "");
      const retryAfter = headers["retry-after"];
      const message = upstreamErrorMessage(text);
      throw mapUpstreamStatus(
        ctx.route,
        statusCode,
        message === undefined ? undefined : ctx.scrub(message),
        typeof retryAfter === "string" ? retryAfter : undefined,
      );
    }
    const contentType = String(headers["content-type"] ?? "");
    if (!contentType.includes("text/event-stream"))
      throw badResponse(
        ctx.route,
        `answered HTTP ${statusCode} with '${ctx.scrub(contentType).slice(0, 100)}' instead of an event stream`,
      );

    yield [{ type: "stream-start", model: request.model }];

    const data: string[] = [];
    // Characters fed since the last event (or comment) ended: an event's size so far.
    let eventChars = 0;
    const parser = createParser({
      onEvent: (event) => {
        eventChars = 0;
        data.push(event.data);
      },
      onComment: () => {
        eventChars = 0;
      },
    });
    const decoder = new TextDecoder();
    const splitter = createThinkSplitter();
    // Native turns only: the model's own calls, keyed by index; ids the server omits are minted here.
    const calls = createToolCallAccumulator(() => `call_${crypto.randomUUID().replaceAll("-", "")}`);
    // Only to estimate usage if the upstream reports none; a long answer is counted as it goes.
    const output = createOutputCounter(ctx.tokens);
    const template = createContentTemplate();
    let usage: Usage | undefined;
    let finish: Finish | undefined;
    let done = false;
    let batch: BackendEvent[] = [];

    const segmentEvent = (s: ThinkSegment): BackendEvent =>
      s.kind === "text" ? { type: "text-delta", delta: s.text } : { type: "reasoning-delta", delta: s.text };
    /** A chunk's content text, whether sliced out by the template or parsed. */
    const pushContent = (text: string, into: BackendEvent[]) => {
      output.add(text);
      for (const segment of splitter.push(text)) into.push(segmentEvent(segment));
    };

    try {
      for (let chunks = await response.read(); chunks !== undefined; chunks = await response.read()) {
        let text = "";
        for (const bytes of chunks) text += decoder.decode(bytes, { stream: true });
        eventChars += text.length;
        if (eventChars > MAX_UPSTREAM_EVENT_CHARS) {
          yield [
            {
              type: "error",
              error: badResponse(
                ctx.route,
                `sent an event longer than ${MAX_UPSTREAM_EVENT_CHARS} characters`,
              ),
            },
          ];
          return;
        }
        parser.feed(text);
        batch = [];
        for (const payload of data) {
          // Read on to the end after [DONE] so the connection goes back to the keep-alive pool.
          if (done) break;
          if (payload === "[DONE]") {
            done = true;
            continue;
          }
          const text = template.match(payload);
          if (text !== undefined) {
            if (text !== "") pushContent(text, batch);
            continue;
          }
          const chunk = decodeChatChunk(payload);
          if (chunk === undefined) {
            batch.push({
              type: "error",
              error: badResponse(ctx.route, "sent a chunk that is not a chat.completion.chunk"),
            });
            yield batch;
            return;
          }
          if (chunk.error !== undefined) {
            batch.push({ type: "error", error: chunkError(ctx, chunk.error) });
            yield batch;
            return;
          }
          template.learn(payload, chunk);
          if (chunk.usage) usage = toUsage(chunk.usage);
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const reasoning = choice.delta?.reasoning_content ?? choice.delta?.reasoning;
          if (reasoning) {
            output.add(reasoning);
            batch.push({ type: "reasoning-delta", delta: reasoning });
          }
          const content = choice.delta?.content;
          if (content) pushContent(content, batch);
          const toolCalls = choice.delta?.tool_calls;
          if (toolCalls) {
            for (const d of toolCalls) if (d.function?.arguments) output.add(d.function.arguments);
            for (const event of calls.push(toolCalls)) batch.push(event);
          }
          if (choice.finish_reason) finish = mapFinishReason(choice.finish_reason);
        }
        data.length = 0;
        if (batch.length > 0) yield batch;
      }
    } catch (error) {
      if (signal.aborted) return;
      yield [{ type: "error", error: mapTransportError(ctx.route, error) }];
      return;
    }
    if (signal.aborted) return;
    const tail: BackendEvent[] = [];
    for (const segment of splitter.flush()) tail.push(segmentEvent(segment));
    if (!done && finish === undefined) {
      tail.push({
        type: "error",
        error: new GatewayError(
          "backend_error",
          `route '${ctx.route}': the upstream model server closed the stream before the turn finished`,
          { code: "upstream_disconnected" },
        ),
      });
      yield tail;
      return;
    }
    // A call is complete only once the upstream finished; an interrupted stream yields none.
    for (const event of calls.flush()) tail.push(event);
    tail.push({ type: "usage", usage: usage ?? (await estimateUsage(ctx.tokens, body.messages, output)) });
    tail.push({ type: "finish", finish: finish ?? { reason: "stop", raw: "done" } });
    yield tail;
  } finally {
    response.close();
  }
}

/** The gateway tokenizer's count, marked as an estimate, for upstreams that report no usage. */
const estimateUsage = async (
  tokens: TokenEncoding,
  messages: ReadonlyArray<ChatMessage>,
  output: OutputCounter,
): Promise<Usage> => {
  // A prompt of megabytes takes seconds to count: slice by slice, letting other requests run between.
  const inputTokens = await countTokensPausing(tokens, [promptText(messages)], () => yieldToLoop());
  const outputTokens = output.tokens();
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, estimated: true };
};

/**
 * Output held for an exact count of at most this much at a time (a bounded cost per chunk), then
 * counted and dropped so a long answer is not kept; a single larger delta is estimated.
 */
const OUTPUT_HOLD_CHARS = EXACT_COUNT_CHARS;

type OutputCounter = ReturnType<typeof createOutputCounter>;

const createOutputCounter = (tokens: TokenEncoding) => {
  let held: string[] = [];
  let heldChars = 0;
  let counted = 0;
  return {
    add(text: string): void {
      // What is held is counted before it would grow past the exact size.
      if (heldChars > 0 && heldChars + text.length > OUTPUT_HOLD_CHARS) {
        counted += estimateTokens(tokens, held.join(""));
        held = [];
        heldChars = 0;
      }
      held.push(text);
      heldChars += text.length;
    },
    tokens: (): number => counted + estimateTokens(tokens, held.join("")),
  };
};
