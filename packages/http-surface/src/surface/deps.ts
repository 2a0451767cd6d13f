import {
  createRandomIdGenerator,
  createSchemaCache,
  type IdGenerator,
  type SchemaCache,
  type TokenEncoding,
} from "@proxy/core";
import {
  type Clock,
  DEFAULT_TURN_SETTINGS,
  type MediaFetcher,
  type OutputMode,
  systemClock,
  type TextBackend,
  type TurnObserver,
  type TurnSettings,
} from "@proxy/core/gateway";
import type { RequestTraceFor } from "../request/trace.js";

/** What a model's route sets for its requests (a request's `x-proxy-*-mode` headers still win). */
export interface RouteSettings {
  readonly outputMode?: OutputMode | undefined;
}

/** What every HTTP surface's sub-app is given by the composition root (no globals). */
export interface SurfaceDepsInput {
  readonly backend: TextBackend;
  /** The tokenizer for output token limits and the token-counting endpoints. */
  readonly tokens: TokenEncoding;
  /** Random ids by default; tests pass a counting generator for reproducible transcripts. */
  readonly ids?: IdGenerator | undefined;
  readonly clock?: Clock | undefined;
  readonly settings?: Partial<TurnSettings> | undefined;
  /** The route's own settings for a model name, if it has a route that sets any. */
  readonly routeSettings?: ((model: string) => RouteSettings | undefined) | undefined;
  /** Told exactly once per request, when its response ends (logs/metrics live in the composition root). */
  readonly observer?: TurnObserver | undefined;
  /** Idle milliseconds after which a stream gets the surface's keep-alive frame; 0 = off. */
  readonly keepAliveMs?: number | undefined;
  /** Fetches http(s) images so they reach the backend inline; without it they pass as they are. */
  readonly media?: MediaFetcher | undefined;
  /** How long a stream waits for a client that stopped reading before the turn is dropped; 0 = forever. */
  readonly writeTimeoutMs?: number | undefined;
  /** Characters of output an answer held whole (non-streaming, background) may reach; 0 = no cap. */
  readonly maxAnswerChars?: number | undefined;
  /** The request inspector's recorder, when it is on: each turn's trace is taken from it. */
  readonly trace?: RequestTraceFor | undefined;
  /**
   * Compiled tool schemas, shared by every surface of one gateway: a client that speaks two
   * protocols sends the same tools, and each new engine compiles its meta-schemas first (tens of
   * milliseconds on the event loop). Without it, the sub-app gets its own.
   */
  readonly schemas?: SchemaCache | undefined;
}

export interface SurfaceDeps {
  readonly backend: TextBackend;
  readonly tokens: TokenEncoding;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly settings: TurnSettings;
  readonly routeSettings: ((model: string) => RouteSettings | undefined) | undefined;
  readonly observer: TurnObserver | undefined;
  readonly keepAliveMs: number;
  readonly writeTimeoutMs: number;
  readonly maxAnswerChars: number;
  /** Tool schemas compiled once per app: clients resend the same tools every turn. */
  readonly schemas: SchemaCache;
  readonly media: MediaFetcher | undefined;
  readonly trace: RequestTraceFor | undefined;
}

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_ANSWER_CHARS = 16 * 1024 * 1024;

/** Fills in the defaults once per sub-app. */
export const resolveSurfaceDeps = (input: SurfaceDepsInput): SurfaceDeps => ({
  backend: input.backend,
  tokens: input.tokens,
  ids: input.ids ?? createRandomIdGenerator(),
  clock: input.clock ?? systemClock,
  settings: { ...DEFAULT_TURN_SETTINGS, ...input.settings },
  routeSettings: input.routeSettings,
  observer: input.observer,
  keepAliveMs: input.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
  writeTimeoutMs: input.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
  maxAnswerChars:
    input.maxAnswerChars === 0
      ? Number.POSITIVE_INFINITY
      : (input.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS),
  schemas: input.schemas ?? createSchemaCache(),
  media: input.media,
  trace: input.trace,
});
