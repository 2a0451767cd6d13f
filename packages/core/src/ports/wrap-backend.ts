import { backendStream } from "./backend-stream.js";
import type {
  BackendBatch,
  BackendCapabilities,
  BackendReadiness,
  BackendRequest,
  BackendStreamOptions,
  ModelInfo,
  TextBackend,
} from "./text-backend.js";

type StreamOptions = BackendStreamOptions;

/**
 * One layer around a backend (as vercel/ai's `wrapLanguageModel` middleware is around a model):
 * each hook gets the inner backend's as `next`; a hook left out passes through unchanged.
 */
export interface BackendMiddleware {
  /** The wrapped backend's name (default: the inner one's). */
  readonly name?: string | undefined;
  /**
   * Runs one turn: rewrite the request, admit or refuse it (throw a `GatewayError`), then return the
   * batches of `next(request, options)`, as they are or transformed. Called at the first read, so
   * it may be async; returning `next(...)` itself adds nothing per batch.
   */
  stream?(
    request: BackendRequest,
    options: StreamOptions,
    next: (request: BackendRequest, options: StreamOptions) => AsyncIterable<BackendBatch>,
  ): AsyncIterable<BackendBatch> | Promise<AsyncIterable<BackendBatch>>;
  capabilitiesFor?(
    model: string,
    next: (model: string) => BackendCapabilities | undefined,
  ): BackendCapabilities | undefined;
  listModels?(next: () => Promise<ReadonlyArray<ModelInfo>>): Promise<ReadonlyArray<ModelInfo>>;
  readiness?(next: () => BackendReadiness): BackendReadiness;
}

const isList = (
  middleware: BackendMiddleware | ReadonlyArray<BackendMiddleware>,
): middleware is ReadonlyArray<BackendMiddleware> => Array.isArray(middleware);

const wrapOne = (backend: TextBackend, middleware: BackendMiddleware): TextBackend => {
  const next = (request: BackendRequest, options: StreamOptions) =>
    backend.stream(request, options).batches();
  const innerCapabilities = (model: string) => backend.capabilitiesFor?.(model);
  const { stream, capabilitiesFor, listModels, readiness } = middleware;
  return {
    specificationVersion: "v1",
    name: middleware.name ?? backend.name,
    // A getter: a backend may learn at startup that it cannot do native tools after all.
    get capabilities() {
      return backend.capabilities;
    },
    capabilitiesFor:
      capabilitiesFor === undefined
        ? innerCapabilities
        : (model) => capabilitiesFor.call(middleware, model, innerCapabilities),
    stream:
      stream === undefined
        ? (request, options) => backend.stream(request, options)
        : (request, options) => backendStream(() => stream.call(middleware, request, options, next)),
    listModels:
      listModels === undefined
        ? () => backend.listModels()
        : () => listModels.call(middleware, () => backend.listModels()),
    readiness:
      readiness === undefined
        ? () => backend.readiness()
        : () => readiness.call(middleware, () => backend.readiness()),
  };
};

/**
 * `backend` behind `middleware`: the one way the gateway decorates a backend (auth, limits, drain…).
 * A list is applied as vercel/ai's `wrapLanguageModel` applies one: its first entry is the
 * outermost layer (it sees a request first and the inner backend's batches last).
 */
export const wrapBackend = (
  backend: TextBackend,
  middleware: BackendMiddleware | ReadonlyArray<BackendMiddleware>,
): TextBackend =>
  isList(middleware) ? middleware.reduceRight(wrapOne, backend) : wrapOne(backend, middleware);
