import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setImmediate as tick } from "node:timers/promises";

/** One streamed `tool_calls` entry as an upstream with native tools sends it. */
export interface UpstreamToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments JSON, sent in these pieces. */
  readonly argumentChunks: ReadonlyArray<string>;
}

/** How the scripted OpenAI-compatible server answers one `POST /chat/completions`. */
export interface UpstreamTurn {
  /** Content deltas, one chunk each (default: `text` as one delta). */
  readonly chunks?: ReadonlyArray<string> | undefined;
  readonly text?: string | undefined;
  /** Streamed before the content in `reasoningField` (default `reasoning_content`). */
  readonly reasoning?: string | undefined;
  readonly reasoningField?: "reasoning_content" | "reasoning" | undefined;
  readonly toolCalls?: ReadonlyArray<UpstreamToolCall> | undefined;
  /** Sent when the client asks for it (`stream_options.include_usage`); `null`: never sent. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | null | undefined;
  readonly finishReason?: string | undefined;
  /** Answer with this status and an OpenAI error body instead of a stream. */
  readonly status?: number | undefined;
  readonly errorMessage?: string | undefined;
  readonly retryAfter?: string | undefined;
  /** Answer 200 with this body and content type instead of a stream (a server that is not OpenAI-shaped). */
  readonly raw?: { readonly contentType: string; readonly body: string } | undefined;
  /** After the chunks: these `data:` payloads verbatim (e.g. a chunk that is not OpenAI-shaped). */
  readonly rawEvents?: ReadonlyArray<string> | undefined;
  /** After the chunks: a `data: {"error":…}` event. */
  readonly midStreamError?: string | undefined;
  /** After the chunks: never finish (until the client goes away). */
  readonly hang?: boolean | undefined;
  /** After the chunks: drop the connection without finishing. */
  readonly disconnect?: boolean | undefined;
  /** Cut the SSE bytes at these offsets and write each piece separately (default: one write per event). */
  readonly splitAt?: ReadonlyArray<number> | undefined;
  readonly delayMs?: number | undefined;
}

export interface RecordedUpstreamRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

export type UpstreamScript = (request: RecordedUpstreamRequest, index: number) => UpstreamTurn | undefined;

const sse = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** The SSE events of one scripted turn (without the ending, which depends on the fault). */
const eventsOf = (turn: UpstreamTurn, model: string, includeUsage: boolean): string[] => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) =>
    sse({
      id: "chatcmpl-upstream",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    });
  const events = [chunk({ role: "assistant", content: "" })];
  if (turn.reasoning !== undefined)
    events.push(chunk({ [turn.reasoningField ?? "reasoning_content"]: turn.reasoning }));
  for (const c of turn.chunks ?? (turn.text === undefined ? [] : [turn.text]))
    events.push(chunk({ content: c }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of call.argumentChunks)
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  for (const raw of turn.rawEvents ?? []) events.push(`data: ${raw}\n\n`);
  if (turn.midStreamError !== undefined || turn.hang || turn.disconnect) return events;
  events.push(chunk({}, turn.finishReason ?? (turn.toolCalls?.length ? "tool_calls" : "stop")));
  if (includeUsage && turn.usage !== null) {
    const u = turn.usage ?? { inputTokens: 11, outputTokens: 7 };
    events.push(
      sse({
        id: "chatcmpl-upstream",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: [],
        usage: {
          prompt_tokens: u.inputTokens,
          completion_tokens: u.outputTokens,
          total_tokens: u.inputTokens + u.outputTokens,
        },
      }),
    );
  }
  events.push(sse("[DONE]"));
  return events;
};

/** The bytes to write, one piece per write: per event, or cut at byte offsets (inside UTF-8 sequences too). */
const piecesOf = (events: ReadonlyArray<string>, splitAt: ReadonlyArray<number> | undefined): Buffer[] => {
  if (splitAt === undefined) return events.map((e) => Buffer.from(e));
  const all = Buffer.from(events.join(""));
  const cuts = [...new Set(splitAt.map((p) => p % (all.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...cuts, all.length]) {
    if (c > from) out.push(all.subarray(from, c));
    from = c;
  }
  return out;
};

/**
 * A real OpenAI-compatible model server on loopback, playing scripted turns: streamed chunks split
 * anywhere, usage, HTTP errors, mid-stream errors, stalls and disconnects. Records every request and
 * counts requests the client abandoned before they finished.
 */
export const startScriptedUpstream = async (
  script: UpstreamScript,
  options: { readonly models?: ReadonlyArray<string>; readonly port?: number } = {},
) => {
  const requests: RecordedUpstreamRequest[] = [];
  const open = new Set<ServerResponse>();
  let abandoned = 0;
  let connections = 0;

  const play = async (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => {
    const recorded = { path: req.url ?? "", headers: req.headers, body };
    const turn = script(recorded, requests.length) ?? { text: "(no scripted turn)" };
    requests.push(recorded);
    if (turn.status !== undefined) {
      res.writeHead(turn.status, {
        "content-type": "application/json",
        ...(turn.retryAfter ? { "retry-after": turn.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({ error: { message: turn.errorMessage ?? `scripted ${turn.status}`, type: "error" } }),
      );
      return;
    }
    if (turn.raw) {
      res.writeHead(200, { "content-type": turn.raw.contentType });
      res.end(turn.raw.body);
      return;
    }
    const includeUsage =
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let finished = false;
    res.once("close", () => {
      if (!finished) abandoned++;
    });
    for (const piece of piecesOf(eventsOf(turn, String(body.model), includeUsage), turn.splitAt)) {
      if (res.destroyed) return;
      res.write(piece);
      await (turn.delayMs ? new Promise((r) => setTimeout(r, turn.delayMs)) : tick());
    }
    if (turn.midStreamError !== undefined)
      res.write(sse({ error: { message: turn.midStreamError, type: "server_error" } }));
    if (turn.disconnect) {
      finished = true;
      res.socket?.destroy();
      return;
    }
    if (turn.hang) return; // stays open until the client leaves or the server closes
    finished = true;
    res.end();
  };

  const server = createServer({ noDelay: true }, (req, res) => {
    open.add(res);
    res.once("close", () => open.delete(res));
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: (options.models ?? ["upstream-model"]).map((id) => ({ id, object: "model" })),
        }),
      );
      return;
    }
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      text += c;
    });
    req.on("end", () => {
      void play(req, res, JSON.parse(text) as Record<string, unknown>);
    });
  });
  server.on("connection", () => void connections++);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The OpenAI base URL (`…/v1`). */
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    /** Streams the client abandoned (aborted, or the connection dropped) before they finished. */
    abandoned: () => abandoned,
    /** TCP connections accepted so far (keep-alive reuses one). */
    connections: () => connections,
    /** Responses still open (e.g. hanging turns). */
    open: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.socket?.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

export type ScriptedUpstream = Awaited<ReturnType<typeof startScriptedUpstream>>;
