import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { noisePng } from "@proxy/adapter-codex-appserver/testing";

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** A 5 MB photo (see `noisePng`), made once. */
let photo: Buffer | undefined;
export const PHOTO = (): Buffer => {
  photo ??= noisePng(1300);
  return photo;
};

/** A real HTTP server on loopback with the routes an image fetch can meet. */
export const startImageServer = async () => {
  const hits: string[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    "/cat.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(PNG),
    "/page.html": (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html></html>"),
    "/big.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(4096)),
    "/photo.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(PHOTO()),
    "/missing.png": (res) => res.writeHead(404).end(),
    "/to-cat": (res) => res.writeHead(302, { location: "/cat.png" }).end(),
    "/to-private": (res) => res.writeHead(302, { location: "http://10.1.2.3/cat.png" }).end(),
    "/loop": (res) => res.writeHead(302, { location: "/loop" }).end(),
    "/slow.png": () => undefined,
  };
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    (routes[req.url ?? ""] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
