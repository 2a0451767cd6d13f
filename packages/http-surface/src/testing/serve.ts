import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export interface Served {
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A Hono app on a real HTTP server on an ephemeral loopback port. */
export const serveApp = async (app: Hono): Promise<Served> => {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};

export interface PausedClient {
  destroy(): void;
}

/**
 * Sends one POST over a raw socket and never reads the answer: the kernel buffers fill and the
 * server sees a client that stopped reading.
 */
export const postAndNeverRead = (port: number, path: string, body: unknown): PausedClient => {
  const payload = JSON.stringify(body);
  const socket = connect({ host: "127.0.0.1", port });
  socket.on("error", () => undefined); // the server resets it; a paused socket has nothing to say
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  socket.pause();
  return { destroy: () => socket.destroy() };
};
