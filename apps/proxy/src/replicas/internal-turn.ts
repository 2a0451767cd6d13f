import { timingSafeEqual } from "node:crypto";
import { type BackendRequest, GatewayError, isGatewayError } from "@proxy/core";
import type { BackendBatch, TextBackend } from "@proxy/core/gateway";
import type { Context } from "hono";
import type { Logger } from "../observability/logger.js";
import {
  BEAT_LINE,
  batchLine,
  END_LINE,
  type ForwardedTurn,
  REPLICA_SECRET_HEADER,
  refusedLine,
} from "./wire.js";

export interface InternalTurnDeps {
  readonly secret: string;
  /** The owner's own backend, never the forwarding layer (a forwarded turn is not forwarded again). */
  readonly backend: TextBackend;
  /** The conversation keys the request derives (its caller's and config's; see CodexBackend). */
  readonly keysOf: (request: BackendRequest) => Promise<ReadonlyArray<string>>;
  /** This replica holds the conversation's live thread now. */
  readonly holds: (key: string) => boolean;
  readonly logger: Logger;
}

const sameSecret = (given: string, secret: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

const refuse = (c: Context, status: 400 | 401 | 409, message: string) =>
  c.json({ error: { message, type: "replica_refused" } }, status);

const isTurn = (body: unknown): body is ForwardedTurn => {
  const turn = body as Partial<ForwardedTurn> | null;
  const request = turn?.request as Partial<BackendRequest> | undefined;
  return (
    typeof turn?.key === "string" &&
    typeof turn.heartbeatMs === "number" &&
    turn.heartbeatMs >= 50 &&
    typeof request?.model === "string" &&
    typeof request.instructions === "string" &&
    Array.isArray(request.history) &&
    Array.isArray(request.input)
  );
};

const BEAT = Symbol("beat");

/**
 * `POST /internal/turn` on the replica that owns a conversation: only with the replicas' shared
 * secret (an API key opens nothing here), only for a turn whose own history and caller derive the
 * conversation key it names (one caller's turn never reaches another's thread), only while this
 * replica holds that conversation live (else the forwarder runs it fresh itself). The turn runs on
 * this replica's backend; its batches go back as NDJSON, a heartbeat line while there is nothing
 * to send, and a client that goes away stops the turn.
 */
export const internalTurnRoute =
  (deps: InternalTurnDeps) =>
  async (c: Context): Promise<Response> => {
    if (!sameSecret(c.req.header(REPLICA_SECRET_HEADER) ?? "", deps.secret))
      return refuse(c, 401, "This is the replicas' internal route: it needs their shared secret.");
    let turn: unknown;
    try {
      turn = await c.req.json();
    } catch {
      return refuse(c, 400, "The body is not JSON.");
    }
    if (!isTurn(turn)) return refuse(c, 400, "The body is not a forwarded turn.");
    const { key, request, heartbeatMs } = turn;
    if (!(await deps.keysOf(request)).includes(key))
      return refuse(c, 400, "The turn does not derive the conversation key it names (another caller's?).");
    if (!deps.holds(key)) return refuse(c, 409, "This replica no longer holds that conversation.");

    const controller = new AbortController();
    const stop = () => controller.abort();
    c.req.raw.signal.addEventListener("abort", stop, { once: true });
    const batches = deps.backend
      .stream(request, { signal: controller.signal })
      .batches()
      [Symbol.asyncIterator]();
    let pending: Promise<IteratorResult<BackendBatch>> | undefined;
    let started = false;
    const encoder = new TextEncoder();
    const finish = () => {
      c.req.raw.signal.removeEventListener("abort", stop);
      void batches.return?.();
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(sink) {
        pending ??= batches.next();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const beat = new Promise<typeof BEAT>((resolve) => {
          timer = setTimeout(() => resolve(BEAT), heartbeatMs);
        });
        try {
          const next = await Promise.race([pending, beat]);
          if (next === BEAT) return sink.enqueue(encoder.encode(BEAT_LINE));
          pending = undefined;
          if (next.done) {
            sink.enqueue(encoder.encode(END_LINE));
            sink.close();
            finish();
            return;
          }
          started = true;
          sink.enqueue(encoder.encode(batchLine(next.value)));
        } catch (error) {
          const refusal = isGatewayError(error)
            ? error
            : new GatewayError("backend_unavailable", error instanceof Error ? error.message : String(error));
          if (!started) sink.enqueue(encoder.encode(refusedLine(refusal)));
          else sink.enqueue(encoder.encode(batchLine([{ type: "error", error: refusal }])));
          sink.close();
          finish();
          deps.logger.debug({ err: error }, "forwarded turn refused");
        } finally {
          clearTimeout(timer);
        }
      },
      cancel() {
        controller.abort();
        finish();
      },
    });
    return new Response(body, {
      status: 200,
      headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" },
    });
  };
