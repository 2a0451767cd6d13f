/**
 * The limit for a Node gateway in the peer benchmark: `node:http` in, undici out, the same bytes
 * back, no parsing. Whatever a real gateway spends above this is its own work. Plain Node process;
 * `UPSTREAM` names the upstream's origin. Prints `{"port":N}` on stdout once listening.
 */
import { createServer } from "node:http";
import { pipeline } from "node:stream/promises";
import { Agent, request } from "undici";

const upstream = process.env.UPSTREAM ?? "";
// As many sockets as the bench drives connections; keep-alive as a gateway would.
const dispatcher = new Agent({ connections: 512, keepAliveTimeout: 60_000 });

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the one thing a forwarder must not copy. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "content-length"]);

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === "string" && !HOP.has(name)) headers[name] = value;
  request(`${upstream}${req.url ?? "/"}`, {
    method: (req.method ?? "GET") as "GET",
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? null : req,
    dispatcher,
  })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && !HOP.has(name)) out[name] = value;
      res.writeHead(answer.statusCode, out);
      await pipeline(answer.body, res);
    })
    .catch((e: unknown) => {
      if (res.headersSent) res.destroy();
      else
        res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: String(e) }));
    });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
