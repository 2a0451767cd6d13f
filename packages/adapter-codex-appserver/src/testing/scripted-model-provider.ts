import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted upstream response to a `POST /v1/responses` (one sampling step of a codex turn). */
export interface ScriptedResponse {
  /** The assistant message text. Streamed as `chunks` when given (their concatenation should equal it). */
  readonly text?: string;
  readonly chunks?: ReadonlyArray<string>;
  /** A reasoning summary, streamed before the message. */
  readonly reasoning?: string;
  /** Raw output items (`function_call`, `custom_tool_call`, …) emitted before the message. */
  readonly items?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /**
   * Hosted web searches the model makes, streamed before `items` as OpenAI streams them: the
   * `web_search_call` item added in progress (no action yet), its `response.web_search_call.*`
   * events, then the item done with its `action` (and the provider's `sources`, which codex drops).
   */
  readonly webSearches?: ReadonlyArray<{
    readonly id: string;
    readonly query: string;
    readonly sources?: ReadonlyArray<string>;
  }>;
  /** Emit `items` after the message instead (text first, then the calls). */
  readonly itemsLast?: boolean;
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedInputTokens?: number;
    readonly reasoningTokens?: number;
  };
  /** Milliseconds to wait before each text chunk. */
  readonly delayMs?: number;
  /** Hold the response (headers included) until this settles: lets a test line up concurrent turns. */
  readonly gate?: Promise<unknown>;
  /** After streaming the chunks, end the stream without `response.completed` (codex retries that). */
  readonly truncate?: boolean;
  /** After streaming the chunks, keep the connection open without ever completing. */
  readonly hang?: boolean;
  /** After streaming the chunks, wait for this before completing (holds codex's end-of-turn notifications back). */
  readonly completeAfter?: Promise<unknown>;
  /** Extra response headers (e.g. the plan's `x-codex-primary-used-percent`), on success and failure alike. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fail with an HTTP status (and JSON body), or with a `response.failed` event. */
  readonly fail?:
    | { readonly status: number; readonly body?: unknown }
    | { readonly event: "failed"; readonly code: string; readonly message: string };
}

export interface RecordedRequest {
  readonly index: number;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readonly<Record<string, unknown>>;
  /** True once the client closed the connection before the response ended. */
  disconnected: boolean;
}

export type ProviderScript =
  | ScriptedResponse
  | ReadonlyArray<ScriptedResponse>
  | ((request: RecordedRequest) => ScriptedResponse | undefined);

export interface ScriptedModelProvider {
  /** Base URL to configure as `base_url`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly requests: ReadonlyArray<RecordedRequest>;
  /** Replace the script (array: consumed in order; function: asked per request). */
  script(script: ProviderScript): void;
  /** Append responses to the queue (used when the script is not a function). */
  enqueue(...responses: ReadonlyArray<ScriptedResponse>): void;
  /** Resolves when `predicate` holds for some recorded request (checked on every request and disconnect). */
  waitFor(predicate: (request: RecordedRequest) => boolean): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const usageJson = (usage: ScriptedResponse["usage"]) => {
  const u = usage ?? { inputTokens: 11, outputTokens: 7 };
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
};

/** Streams one scripted response as Responses SSE, stopping early if the client goes away. */
const playResponse = async (res: ServerResponse, step: ScriptedResponse, id: string, gone: () => boolean) => {
  if (step.gate) await step.gate.catch(() => {});
  if (gone()) return;
  if (step.fail && "status" in step.fail) {
    res.writeHead(step.fail.status, { ...step.headers, "content-type": "application/json" });
    res.end(JSON.stringify(step.fail.body ?? { error: { message: `scripted ${step.fail.status}` } }));
    return;
  }
  res.writeHead(200, { ...step.headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: Record<string, unknown>) => {
    if (!gone()) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  send({ type: "response.created", response: { id } });
  let index = 0;
  if (step.reasoning !== undefined) {
    const item = { type: "reasoning", id: `rs_${id}`, summary: [] as unknown[] };
    send({ type: "response.output_item.added", output_index: index, item });
    send({ type: "response.reasoning_summary_part.added", item_id: item.id, summary_index: 0 });
    send({
      type: "response.reasoning_summary_text.delta",
      item_id: item.id,
      summary_index: 0,
      delta: step.reasoning,
    });
    send({
      type: "response.reasoning_summary_text.done",
      item_id: item.id,
      summary_index: 0,
      text: step.reasoning,
    });
    const done = { ...item, summary: [{ type: "summary_text", text: step.reasoning }] };
    send({ type: "response.output_item.done", output_index: index++, item: done });
  }
  for (const search of step.webSearches ?? []) {
    const added = { type: "web_search_call", id: search.id, status: "in_progress" };
    send({ type: "response.output_item.added", output_index: index, item: added });
    for (const phase of ["in_progress", "searching", "completed"])
      send({ type: `response.web_search_call.${phase}`, output_index: index, item_id: search.id });
    const sources = (search.sources ?? []).map((url) => ({ type: "url", url }));
    const action = { type: "search", query: search.query, sources };
    const done = { ...added, status: "completed", action };
    send({ type: "response.output_item.done", output_index: index++, item: done });
  }
  const sendItems = () => {
    for (const item of step.items ?? []) {
      send({ type: "response.output_item.added", output_index: index, item });
      send({ type: "response.output_item.done", output_index: index++, item });
    }
  };
  if (!step.itemsLast) sendItems();
  const chunks = step.chunks ?? (step.text === undefined ? [] : [step.text]);
  if (chunks.length > 0 || step.text !== undefined) {
    const itemId = `msg_${id}`;
    const text = step.text ?? chunks.join("");
    const empty = { type: "message", id: itemId, role: "assistant", content: [] };
    send({ type: "response.output_item.added", output_index: index, item: empty });
    for (const delta of chunks) {
      if (step.delayMs) await sleep(step.delayMs);
      send({
        type: "response.output_text.delta",
        item_id: itemId,
        output_index: index,
        content_index: 0,
        delta,
      });
    }
    if (step.completeAfter) await step.completeAfter.catch(() => {});
    if (!step.hang && !step.truncate) {
      const content = [{ type: "output_text", text, annotations: [] }];
      const item = { ...empty, status: "completed", content };
      send({ type: "response.output_item.done", output_index: index++, item });
    }
  }
  if (step.itemsLast && !step.hang && !step.truncate) sendItems();
  if (step.hang) return; // leave the stream open; the server's close() or the client ends it
  if (step.truncate) {
    res.end();
    return;
  }
  if (step.fail && "event" in step.fail) {
    send({
      type: "response.failed",
      response: { id, error: { code: step.fail.code, message: step.fail.message } },
    });
  } else {
    send({ type: "response.completed", response: { id, usage: usageJson(step.usage) } });
  }
  res.end();
};

/** A plan's usage window as the ChatGPT backend reports it in response headers. */
export interface PlanWindow {
  readonly usedPercent: number;
  readonly windowMinutes?: number;
  /** Unix seconds. */
  readonly resetAt?: number;
}

/** The `x-codex-primary-*` / `x-codex-secondary-*` headers codex reads its plan's usage from. */
export const planUsageHeaders = (windows: {
  readonly primary?: PlanWindow;
  readonly secondary?: PlanWindow;
}): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, w] of Object.entries(windows) as Array<[string, PlanWindow | undefined]>) {
    if (w === undefined) continue;
    headers[`x-codex-${name}-used-percent`] = String(w.usedPercent);
    if (w.windowMinutes !== undefined) headers[`x-codex-${name}-window-minutes`] = String(w.windowMinutes);
    if (w.resetAt !== undefined) {
      headers[`x-codex-${name}-reset-at`] = String(w.resetAt);
      headers[`x-codex-${name}-reset-after-seconds`] = String(
        Math.max(0, w.resetAt - Math.floor(Date.now() / 1000)),
      );
    }
  }
  return headers;
};

/**
 * The ChatGPT backend's answer once a plan's limit is reached: 429 with a `usage_limit_reached`
 * body (`resets_at` in unix seconds) and the usage headers at 100 %.
 */
export const usageLimitReached = (options: {
  readonly resetsAt: number;
  readonly planType?: string;
  readonly windows?: { readonly primary?: PlanWindow; readonly secondary?: PlanWindow };
}): ScriptedResponse => ({
  headers: planUsageHeaders(
    options.windows ?? { primary: { usedPercent: 100, windowMinutes: 300, resetAt: options.resetsAt } },
  ),
  fail: {
    status: 429,
    body: {
      error: {
        type: "usage_limit_reached",
        message: "The usage limit has been reached",
        plan_type: options.planType ?? "plus",
        resets_at: options.resetsAt,
      },
    },
  },
});

/**
 * A local Responses-API model that codex can be pointed at: `POST /v1/responses` answered from a
 * per-test script, every request (body + headers) recorded, client disconnects noticed.
 */
export const startScriptedModelProvider = async (
  initial: ProviderScript = [],
): Promise<ScriptedModelProvider> => {
  const requests: RecordedRequest[] = [];
  let fn: ((request: RecordedRequest) => ScriptedResponse | undefined) | undefined;
  const queue: ScriptedResponse[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const setScript = (script: ProviderScript) => {
    queue.length = 0;
    fn = undefined;
    if (typeof script === "function") fn = script;
    else if (Array.isArray(script)) queue.push(...(script as ReadonlyArray<ScriptedResponse>));
    else queue.push(script as ScriptedResponse);
  };
  setScript(initial);

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        // recorded as an empty body: the test will notice
      }
      const path = req.url ?? "";
      const recorded: RecordedRequest = {
        index: requests.length,
        path,
        headers: req.headers,
        body,
        disconnected: false,
      };
      requests.push(recorded);
      let finished = false;
      res.on("finish", () => {
        finished = true;
      });
      res.on("close", () => {
        if (!finished) {
          recorded.disconnected = true;
          notify();
        }
      });
      notify();
      if (req.method !== "POST" || !path.endsWith("/responses")) {
        res.writeHead(404).end();
        return;
      }
      const step = fn ? fn(recorded) : queue.shift();
      const fallback = {
        fail: { status: 500, body: { error: { message: "scripted provider: no script left" } } },
      };
      void playResponse(res, step ?? fallback, `resp_${recorded.index}`, () => res.destroyed);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: setScript,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    waitFor: (predicate) =>
      new Promise((resolve) => {
        const check = () => {
          const hit = requests.find(predicate);
          if (hit === undefined) return;
          waiters.delete(check);
          resolve(hit);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
