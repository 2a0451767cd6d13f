import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

export interface ImageServer {
  readonly url: (path: string) => string;
  /** The paths asked for, in order. */
  readonly hits: string[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback with the routes an image fetch can meet (an image, a page that is
 * not one, a large one, a 404, redirects to an image, to a private address and in a loop, and one
 * that never answers); `more` adds routes (a test's own large photo, say).
 */
export const startImageServer = async (
  more: Readonly<Record<string, (res: ServerResponse) => void>> = {},
): Promise<ImageServer> => {
  const hits: string[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    "/cat.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(PNG),
    "/page.html": (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html></html>"),
    "/big.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(4096)),
    "/missing.png": (res) => res.writeHead(404).end(),
    "/to-cat": (res) => res.writeHead(302, { location: "/cat.png" }).end(),
    "/to-private": (res) => res.writeHead(302, { location: "http://10.1.2.3/cat.png" }).end(),
    "/loop": (res) => res.writeHead(302, { location: "/loop" }).end(),
    "/slow.png": () => undefined,
    ...more,
  };
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    (routes[req.url ?? ""] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
