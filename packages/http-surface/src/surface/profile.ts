import type { OutputMode } from "@proxy/core/gateway";
import type { ErrorBodyShaper, ErrorStatusOverride } from "../errors/http-error.js";

/** What makes one surface's session differ from another's. */
export interface SurfaceProfile {
  /** The surface's name in turn summaries, logs and metrics (`chat`, `responses`, …). */
  readonly api: string;
  /** The surface's error body, for HTTP errors and its streams' terminal error. */
  readonly errorBody: ErrorBodyShaper;
  /** The surface's status where it differs from the kit's table (optional). */
  readonly errorStatus?: ErrorStatusOverride | undefined;
  /** Written to a stream after `keepAliveMs` of silence; undefined = the surface sends none. */
  readonly keepAliveFrame: string | undefined;
  /**
   * The surface's one output mode, whatever the request's `x-proxy-output-mode` or its model's
   * route ask (Messages: the JSON sentinel format; `<use_tool>` XML is an OpenAI-client matter).
   */
  readonly outputMode?: OutputMode | undefined;
  /** The surface reports the output and stop-after-tools modes in response headers. */
  readonly modeHeaders?: boolean | undefined;
  /** The surface's conversation field (`messages`, `input`, `contents`): named when a backend finds the input too long. */
  readonly inputParam?: string | undefined;
}

/** The OpenAI surfaces' keep-alive: an SSE comment every SSE parser skips. */
export const SSE_COMMENT_KEEP_ALIVE = ": ping\n\n";
