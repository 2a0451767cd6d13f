import type { Context } from "hono";

/** What `@hono/node-server` puts in `c.env.outgoing`: the Node response of the request. */
interface NodeOutgoing {
  once(event: "close", listener: () => void): unknown;
  removeListener(event: "close", listener: () => void): unknown;
  destroy(): void;
  cork?(): void;
  uncork?(): void;
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
}

/** The Node response under a Node server; undefined elsewhere (`app.fetch`, another runtime). */
export const nodeOutgoing = (c: Context): NodeOutgoing | undefined => {
  const outgoing = (c.env as { outgoing?: Partial<NodeOutgoing> } | undefined)?.outgoing;
  return typeof outgoing?.once === "function" && typeof outgoing.destroy === "function"
    ? (outgoing as NodeOutgoing)
    : undefined;
};

/** The answer is an event stream: its first byte and its end come after the handler returned. */
export const isEventStream = (res: Response): boolean =>
  res.headers.get("content-type")?.startsWith("text/event-stream") === true;

/**
 * Calls `done` once the answer's body was sent in full or the client went away. Under the Node
 * server (the gateway's own) the response's `close` event tells, with nothing put in the body's
 * way; elsewhere (`app.fetch`, another runtime) the body is passed through a tap that tells.
 */
export const whenSent = (c: Context, done: () => void): void => {
  const outgoing = nodeOutgoing(c);
  if (outgoing !== undefined) {
    // A client already gone: its `close` has been and gone.
    if (outgoing.destroyed) done();
    else outgoing.once("close", done);
    return;
  }
  const body = c.res.body;
  if (!body) {
    done();
    return;
  }
  // `cancel` (the client went away) is a Transformer hook newer than the typings have.
  const transformer = { flush: done, cancel: done } as ConstructorParameters<
    typeof TransformStream<Uint8Array, Uint8Array>
  >[0];
  const tap = new TransformStream<Uint8Array, Uint8Array>(transformer);
  c.res = new Response(body.pipeThrough(tap), c.res);
};

/** Tells `gone` once the client went away; returns how to stop listening. */
export type ClientWatch = (gone: () => void) => () => void;

const NOTHING = (): void => undefined;

/** The client is gone when `signal` aborts (a background turn's own cancel, or a request's signal). */
export const watchSignal =
  (signal: AbortSignal): ClientWatch =>
  (gone) => {
    if (signal.aborted) {
      gone();
      return NOTHING;
    }
    signal.addEventListener("abort", gone, { once: true });
    return () => signal.removeEventListener("abort", gone);
  };

/**
 * The client of this request going away. Under a Node server its response's `close` before the
 * answer was written tells, as node-server itself learns it: reading `c.req.raw.signal` there
 * would make node-server create an AbortController of its own for every request, a second one
 * chained in front of the session's. Elsewhere the request's signal tells.
 */
export const watchClient = (c: Context): ClientWatch => {
  const outgoing = nodeOutgoing(c);
  if (outgoing === undefined) return watchSignal(c.req.raw.signal);
  return (gone) => {
    if (outgoing.destroyed) {
      gone();
      return NOTHING;
    }
    const closed = () => {
      if (!outgoing.writableFinished) gone();
    };
    outgoing.once("close", closed);
    return () => outgoing.removeListener("close", closed);
  };
};
