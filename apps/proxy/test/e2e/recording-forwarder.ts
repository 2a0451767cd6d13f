import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ForwardedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/**
 * A loopback HTTP forwarder in front of the gateway that records what a client sends (method, path,
 * JSON body) and relays the gateway's answer byte for byte, streams included: how the tests capture
 * and pin a client's real requests.
 */
export const startRecordingForwarder = async (target: string) => {
  const requests: ForwardedRequest[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", async () => {
      const raw = Buffer.concat(parts);
      let body: Record<string, unknown> = {};
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>) : {};
      } catch {
        // not JSON: recorded empty
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", body });
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "content-length") headers.set(k, v);
      try {
        const upstream = await fetch(`${target}${req.url ?? ""}`, {
          method: req.method ?? "GET",
          headers,
          ...(req.method === "GET" || req.method === "HEAD" ? {} : { body: raw }),
        });
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== "content-encoding" && k !== "content-length" && k !== "transfer-encoding") out[k] = v;
        });
        res.writeHead(upstream.status, out);
        if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
        res.end();
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
