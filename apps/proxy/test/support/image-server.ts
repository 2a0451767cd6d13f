import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { crc32, deflateSync } from "node:zlib";

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const pngChunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A real photo-sized PNG: `side`×`side` RGB pixels of noise, which no compressor shrinks (a side
 * of 1300 is a 5 MB file; codex decodes it and sends it to the model as it is).
 */
export const noisePng = (side: number): Buffer => {
  const row = side * 3 + 1;
  const pixels = Buffer.alloc(row * side);
  for (let y = 0; y < side; y++) randomBytes(side * 3).copy(pixels, y * row + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(pixels, { level: 1 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
};

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
