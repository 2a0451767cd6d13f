/** A loopback image server for `abuse-main.ts`: every path answers a 5 MB PNG-typed body. Prints its URL. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const image = Buffer.alloc(5 * 1024 * 1024, 7);
const server = createServer((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(image));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
