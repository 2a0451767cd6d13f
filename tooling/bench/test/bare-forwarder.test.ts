import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PeerProcess, startBare, startUpstream } from "../src/peer/peers.js";

// The peer bench's limit for a Node gateway must be a faithful one: the same bytes as the upstream.
let upstream: PeerProcess;
let bare: PeerProcess;
beforeAll(async () => {
  upstream = await startUpstream();
  bare = await startBare(upstream.url);
});
afterAll(async () => {
  await bare?.close();
  await upstream?.close();
});

const post = async (base: string, body: object) => {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
};

describe("the bare forwarder", () => {
  it.each([false, true])("answers exactly what the upstream answers (stream: %s)", async (stream) => {
    const body = { model: "fake-d50", stream, messages: [{ role: "user", content: "hi" }] };
    const [direct, forwarded] = await Promise.all([post(upstream.url, body), post(bare.url, body)]);
    expect(forwarded.status).toBe(200);
    expect(forwarded.type).toBe(direct.type);
    // `created` is the upstream's clock; everything else is byte for byte.
    const clock = (t: string) => t.replace(/"created":\d+/g, '"created":0');
    expect(clock(forwarded.text)).toBe(clock(direct.text));
    expect(forwarded.text).toContain("w49 ");
  });
});
