import { invalidRequest, type TokenEncoding, withoutSecrets } from "@proxy/core";
import { type BackendReadiness, backendStream, type ModelInfo, type TextBackend } from "@proxy/core/gateway";
import { Agent, request as httpRequest } from "undici";
import { isUnreachable } from "./map-upstream-error.js";
import { streamTurn, type TurnContext } from "./stream-turn.js";

export interface OpenAICompatibleBackendOptions {
  /** The server's OpenAI base URL, e.g. `http://127.0.0.1:8080/v1` (turns go to `{baseUrl}/chat/completions`). */
  readonly baseUrl: string;
  /** The gateway's tokenizer: usage is estimated with it when the upstream reports none. */
  readonly tokens: TokenEncoding;
  /** The name errors and readiness use for this upstream (the route id); never the URL. */
  readonly route?: string | undefined;
  /** Sent as `Authorization: Bearer …` when set (local servers usually need none). */
  readonly apiKey?: string | undefined;
  /** Connection setup limit (default 5 s). */
  readonly connectTimeoutMs?: number | undefined;
  /** Time until the upstream answers with headers, i.e. prompt processing (default 300 s). */
  readonly headersTimeoutMs?: number | undefined;
  /** Max silence between streamed bytes (default 300 s; the gateway's own idle watchdog is usually shorter). */
  readonly idleTimeoutMs?: number | undefined;
  /** Kept-alive connections to the upstream (default 64). */
  readonly maxConnections?: number | undefined;
  /**
   * Native tool mode: the server's own function calling is used (`tools`/`tool_choice` are sent as
   * they are and its `tool_calls` come back as tool-call events). Off by default: many local
   * servers' templates do tools badly, and prompt mode works with any of them.
   */
  readonly nativeTools?: boolean | undefined;
  /**
   * Send a stable per-conversation `prompt_cache_key` (caller, model, instructions, first message),
   * for servers that route or cache by it. Off by default: some servers refuse fields they do not know.
   */
  readonly promptCacheKey?: boolean | undefined;
  /** How long a failed reachability check is trusted before `readiness()` re-probes (default 5 s). */
  readonly reprobeAfterMs?: number | undefined;
}

export type OpenAICompatibleBackend = TextBackend & {
  /** Asks the upstream for `/models` once and updates readiness; resolves to whether it answered. */
  probe(): Promise<boolean>;
  close(): Promise<void>;
};

const PROBE_TIMEOUT_MS = 3000;
/** A `/models` list larger than this is not a model list (an upstream that never ends its body). */
const MAX_MODELS_BODY_BYTES = 1024 * 1024;

/** What an upstream may echo back that is the deployment's, not the client's: key, URL, host, path. */
const scrubberFor = (base: string, apiKey: string | undefined) => {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, "");
  const secrets = [base, url.host, url.hostname, path, apiKey ?? ""].filter((s) => s !== "" && s !== "/");
  return (text: string): string => withoutSecrets(text, secrets);
};

/** The body as JSON, or undefined once it passes `limit` bytes or is not JSON. */
const readJsonUpTo = async (body: AsyncIterable<Buffer>, limit: number): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
};

/** `TextBackend` (prompt mode) over any OpenAI-compatible `/chat/completions` server. */
export const createOpenAICompatibleBackend = (
  options: OpenAICompatibleBackendOptions,
): OpenAICompatibleBackend => {
  const route = options.route ?? "openai-compatible";
  const base = options.baseUrl.replace(/\/+$/, "");
  const dispatcher = new Agent({
    connections: options.maxConnections ?? 64,
    keepAliveTimeout: 30_000,
    headersTimeout: options.headersTimeoutMs ?? 300_000,
    bodyTimeout: options.idleTimeoutMs ?? 300_000,
    connect: { timeout: options.connectTimeoutMs ?? 5000 },
  });
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const reprobeAfterMs = options.reprobeAfterMs ?? 5000;

  let active = 0;
  // Reachability as last seen by a turn or a probe; unknown counts as reachable until shown otherwise.
  let reachable = true;
  let detail = "upstream not contacted yet";
  let checkedAt = 0;
  let probing: Promise<boolean> | undefined;

  const reached = (ok: boolean, error?: unknown) => {
    checkedAt = Date.now();
    if (ok) {
      reachable = true;
      detail = "upstream reachable";
    } else if (isUnreachable(error)) {
      reachable = false;
      detail = `upstream unreachable (${(error as { code?: string }).code ?? "connection failed"})`;
    }
  };

  const turnUrl = new URL(`${base}/chat/completions`);
  const context: TurnContext = {
    route,
    origin: turnUrl.origin,
    path: `${turnUrl.pathname}${turnUrl.search}`,
    // Built once: every turn sends the same headers.
    headers: { ...headers, "content-type": "application/json", accept: "text/event-stream" },
    dispatcher,
    promptCacheKey: options.promptCacheKey === true,
    tokens: options.tokens,
    reached,
    scrub: scrubberFor(base, options.apiKey),
  };

  const getModels = async (): Promise<ReadonlyArray<ModelInfo> | undefined> => {
    const response = await httpRequest(`${base}/models`, {
      headers,
      dispatcher,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    reached(true);
    if (response.statusCode !== 200) {
      await response.body.dump();
      return undefined;
    }
    const body = (await readJsonUpTo(response.body, MAX_MODELS_BODY_BYTES).finally(() => {
      if (!response.body.destroyed) response.body.destroy();
    })) as { data?: unknown } | undefined;
    if (!Array.isArray(body?.data)) return undefined;
    return body.data.flatMap((m: { id?: unknown }) =>
      typeof m?.id === "string" ? [{ id: m.id, ownedBy: route }] : [],
    );
  };

  const probe = (): Promise<boolean> =>
    (probing ??= getModels()
      .then(
        () => true,
        (error: unknown) => {
          reached(false, error);
          if (!isUnreachable(error)) {
            reachable = false;
            detail = "upstream did not answer the /models probe";
          }
          return false;
        },
      )
      .finally(() => {
        probing = undefined;
      }));

  return {
    specificationVersion: "v1",
    name: `openai-compatible:${route}`,
    capabilities: { nativeTools: options.nativeTools === true },
    stream(request, { signal }) {
      return backendStream(async function* () {
        const search = request.hostedTools?.webSearch;
        // A Chat Completions server has no hosted search to run: refused, never answered without it.
        if (search !== undefined)
          throw invalidRequest(
            `The hosted tool '${search.tool}' at '${search.param}' is not available on this model route (an OpenAI-compatible server has no hosted web search; codex routes do).`,
            search.param,
            "hosted_tool_unsupported",
          );
        active++;
        try {
          yield* streamTurn(context, request, signal);
        } finally {
          active--;
        }
      });
    },
    async listModels() {
      const models = await getModels().catch(() => undefined);
      return models && models.length > 0 ? models : [{ id: route, ownedBy: route }];
    },
    readiness(): BackendReadiness {
      // No timers: a down upstream is re-checked in the background when someone asks.
      if (!reachable && Date.now() - checkedAt >= reprobeAfterMs) void probe();
      return {
        ready: reachable,
        inFlight: active,
        queued: 0,
        capacity: Number.POSITIVE_INFINITY,
        restarts: 0,
        detail,
      };
    },
    probe,
    close: () => dispatcher.close(),
  };
};
