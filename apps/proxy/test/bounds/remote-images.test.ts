import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { postJson } from "./support.js";

/** An image server on loopback: `/<name>.png?kb=N&ms=D` answers N KiB after D ms; it counts hits and concurrency. */
const startImages = async () => {
  const hits: string[] = [];
  let active = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    active++;
    peak = Math.max(peak, active);
    const url = new URL(req.url ?? "/", "http://x");
    const body = Buffer.alloc(Number(url.searchParams.get("kb") ?? "1") * 1024, 7);
    setTimeout(
      () => {
        res.writeHead(200, { "content-type": "image/png" }).end(body);
        active--;
      },
      Number(url.searchParams.get("ms") ?? "0"),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits,
    peak: () => peak,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const withImages = (urls: ReadonlyArray<string>) => ({
  model: "m",
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "look" },
        ...urls.map((url) => ({ type: "image_url", image_url: { url } })),
      ],
    },
  ],
});

describe("remote images are bounded per request and per process (real gateway, real image server)", {
  timeout: 60_000,
}, () => {
  let images: Awaited<ReturnType<typeof startImages>>;
  const open: ReliabilityGateway[] = [];
  beforeAll(async () => {
    images = await startImages();
  });
  afterEach(async () => {
    for (const g of open.splice(0)) await g.close();
    images.hits.length = 0;
  });
  afterAll(() => images?.close());
  const start = async (env: Record<string, string> = {}) => {
    const backend = createScriptedBackend(() => ({ chunks: ["ok"] }));
    const g = await gatewayOver(backend, { PROXY_IMAGE_FETCH_ALLOW: "127.0.0.1", ...env });
    open.push(g);
    return { g, backend };
  };

  it("the same URL 20 times is fetched once (the issue's request fetched it 40 times)", async () => {
    const { g, backend } = await start();
    const url = images.url("/same.png?kb=512");
    const res = await postJson(`${g.url}/v1/chat/completions`, withImages(Array(20).fill(url)));
    expect(res.status).toBe(200);
    expect(images.hits).toEqual(["/same.png?kb=512"]);
    const parts = backend.requests[0]?.input.filter((p) => p.type === "image") ?? [];
    expect(parts).toHaveLength(20);
    expect(parts.every((p) => p.type === "image" && p.url.startsWith("data:image/png;base64,"))).toBe(true);
  });

  it("more remote images than PROXY_IMAGE_FETCH_MAX_PER_REQUEST is a 400 naming the first one over, nothing fetched", async () => {
    const { g } = await start({ PROXY_IMAGE_FETCH_MAX_PER_REQUEST: "3" });
    const res = await postJson(
      `${g.url}/v1/chat/completions`,
      withImages([1, 2, 3, 4].map((i) => images.url(`/n${i}.png`))),
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe("messages[0].content[4].image_url");
    expect(error.message).toContain("at most 3 remote images");
    expect(images.hits).toEqual([]);
  });

  it("the request's images together past PROXY_IMAGE_FETCH_MAX_TOTAL_BYTES: a 400 naming the image that crosses it", async () => {
    const { g } = await start({ PROXY_IMAGE_FETCH_MAX_TOTAL_BYTES: String(1024 * 1024) });
    const urls = [1, 2, 3].map((i) => images.url(`/t${i}.png?kb=400`));
    const res = await postJson(`${g.url}/v1/chat/completions`, withImages(urls));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe("messages[0].content[3].image_url");
    expect(error.message).toContain(`together are larger than ${1024 * 1024} bytes`);
    // A repeated URL counts each time it appears: 3 × the same 400 KiB is over 1 MiB too.
    const repeated = await postJson(`${g.url}/v1/chat/completions`, withImages(Array(3).fill(urls[0])));
    expect(repeated.status).toBe(400);
  });

  it("fetches in flight across requests stay within PROXY_IMAGE_FETCH_MAX_IN_FLIGHT", async () => {
    const { g } = await start({ PROXY_IMAGE_FETCH_MAX_IN_FLIGHT: "2" });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        postJson(`${g.url}/v1/chat/completions`, withImages([images.url(`/slow${i}.png?ms=150`)])),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(images.hits).toHaveLength(6);
    expect(images.peak()).toBe(2);
  });
});
