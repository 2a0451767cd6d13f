import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageFetcher } from "../src/index.js";
import { PNG, startImageServer } from "../src/testing/index.js";

const signal = new AbortController().signal;
const fetcher = (allow: string[], more: Partial<Parameters<typeof createImageFetcher>[0]> = {}) =>
  createImageFetcher({
    allow,
    maxBytes: 20 * 1024 * 1024,
    timeoutMs: 2_000,
    maxRedirects: 3,
    maxPerRequest: 20,
    maxTotalBytes: 32 * 1024 * 1024,
    maxInFlight: 8,
    ...more,
  });

describe("remote image fetcher (real HTTP server on loopback)", () => {
  let server: Awaited<ReturnType<typeof startImageServer>>;
  beforeAll(async () => {
    server = await startImageServer();
  });
  afterAll(() => server.close());

  it("fetches an allowed image, following a redirect, as base64 with its media type", async () => {
    const image = await fetcher(["127.0.0.1"]).fetchImage(server.url("/to-cat"), { signal });
    expect(image).toEqual({ mediaType: "image/png", base64: PNG.toString("base64") });
  });

  it.each([["127.0.0.0/8"], ["localhost"]])(
    "the allow-list takes CIDRs and host names (%s)",
    async (entry) => {
      const url =
        entry === "localhost"
          ? server.url("/cat.png").replace("127.0.0.1", "localhost")
          : server.url("/cat.png");
      await expect(fetcher([entry]).fetchImage(url, { signal })).resolves.toMatchObject({
        mediaType: "image/png",
      });
    },
  );

  it.each([
    ["loopback without the allow-list", [], "/cat.png", /not public/],
    ["a redirect to a private address", ["127.0.0.1"], "/to-private", /not public/],
    ["a redirect loop", ["127.0.0.1"], "/loop", /more than 3 redirects/],
    ["a page that is not an image", ["127.0.0.1"], "/page.html", /not an image \(content-type text\/html\)/],
    ["a 404", ["127.0.0.1"], "/missing.png", /answered 404/],
  ])("refuses %s", async (_, allow, path, reason) => {
    await expect(fetcher(allow).fetchImage(server.url(path), { signal })).rejects.toThrow(reason);
  });

  it("refuses private, link-local and metadata addresses before connecting", async () => {
    for (const url of [
      "http://10.0.0.1/x.png",
      "http://192.168.1.1/x.png",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/x.png",
      "http://[::ffff:127.0.0.1]/x.png",
      "http://0.0.0.0/x.png",
    ])
      await expect(fetcher([]).fetchImage(url, { signal })).rejects.toThrow(/not public/);
  });

  it("refuses other schemes", async () => {
    await expect(fetcher([]).fetchImage("file:///etc/passwd", { signal })).rejects.toThrow(
      /only http and https/,
    );
  });

  it("caps the size and the time", async () => {
    await expect(
      fetcher(["127.0.0.1"], { maxBytes: 1024 }).fetchImage(server.url("/big.png"), { signal }),
    ).rejects.toThrow(/larger than 1024 bytes/);
    const started = Date.now();
    await expect(
      fetcher(["127.0.0.1"], { timeoutMs: 300 }).fetchImage(server.url("/slow.png"), { signal }),
    ).rejects.toThrow(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
