import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { GatewayError } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReliabilityGateway } from "../reliability/support.js";
import { waitUntil } from "../reliability/support.js";
import {
  ADMIN,
  adminJson,
  CLIENT_KEY,
  chatAs,
  inputText,
  inspectorGateway,
  openWatcher,
  type Row,
} from "./support.js";

const MB = 1024 * 1024;
const MAX_BYTES = 4 * MB;

interface Overview {
  inspector: {
    requests: number;
    refused: number;
    bytes: number;
    maxBytes: number;
    live: { watchers: number; queuedBytes: number; maxQueuedBytes: number; maxWatchers: number };
  };
}

describe("the inspector's memory bound counts everything it keeps (at the wire)", {
  timeout: 120_000,
}, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    // The model provider refuses each prompt by quoting it whole, as upstream 400s do.
    g = await inspectorGateway(
      (request) => {
        const text = inputText(request);
        return text.startsWith("fail")
          ? { chunks: [], startError: new GatewayError("backend_error", `The provider refused: ${text}`) }
          : { chunks: ["ok"] };
      },
      { PROXY_INSPECTOR_MAX_BYTES: String(MAX_BYTES), PROXY_INSPECTOR_MAX_REQUESTS: "50" },
    );
  });
  afterAll(() => g?.close());

  it("cuts a failed turn's huge error and error body, counts them, and sends watchers small rows", async () => {
    const watcher = await openWatcher(g.url);
    expect(watcher.status).toBe(200);
    const prompt = `fail ${"x".repeat(MB)}`;
    for (let i = 0; i < 6; i++) {
      const res = await chatAs(g.url, CLIENT_KEY, { messages: [{ role: "user", content: prompt }] });
      expect(res.status).toBe(502);
      expect((await res.text()).length).toBeGreaterThan(MB);
      const sse = await chatAs(g.url, CLIENT_KEY, {
        stream: true,
        messages: [{ role: "user", content: prompt }],
      });
      await sse.text();
    }
    const overview = await adminJson<Overview>(g.url, "/ui/api/overview");
    expect(overview.inspector.requests).toBe(12);
    // Counted: twelve records with their cut errors (not the 0 bytes of "recorded text" alone) …
    expect(overview.inspector.bytes).toBeGreaterThan(12 * 4_000);
    // … and well under what the errors were whole (12 × 2 × 1 MiB).
    expect(overview.inspector.bytes).toBeLessThan(MB);

    const list = await fetch(`${g.url}/ui/api/requests`, { headers: ADMIN });
    const text = await list.text();
    expect(text.length).toBeLessThan(200_000);
    const rows = (JSON.parse(text) as { requests: Row[] }).requests;
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row.error.length).toBeLessThanOrEqual(2_100);
      expect(row.error).toMatch(/… \[\d+ more chars\]$/);
    }
    const detail = await adminJson<{ errorBody: { error: { message: string } } }>(
      g.url,
      `/ui/api/requests/${rows[0]?.seq}`,
    );
    expect(detail.errorBody.error.message).toMatch(/^The provider refused: fail x+… \[\d+ more chars\]$/);
    expect(detail.errorBody.error.message.length).toBeLessThan(4_100);

    // Every live event is one cut row: nothing near the megabyte the error was.
    const frames = watcher
      .body()
      .split("\n\n")
      .filter((f) => f.startsWith("event:"));
    expect(frames).toHaveLength(24);
    for (const frame of frames) expect(frame.length).toBeLessThan(8_000);
    watcher.close();
  });

  it("keeps a refused request's huge fields cut too (a 4.5 MB model name, a 1 MB tool name)", async () => {
    const before = (await adminJson<Overview>(g.url, "/ui/api/overview")).inspector.bytes;
    const huge = [
      { model: "m".repeat(4_500_000), messages: [{ role: "user", content: "hi" }] },
      {
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "t", parameters: { type: "object" } } }],
        tool_choice: { type: "function", function: { name: "n".repeat(1_000_000) } },
      },
    ];
    for (const body of huge) {
      const res = await chatAs(g.url, CLIENT_KEY, body);
      expect(res.status).toBe(400);
      await res.text();
    }
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests?limit=2");
    for (const row of requests) {
      expect(row.status).toBe(400);
      const detail = await (await fetch(`${g.url}/ui/api/requests/${row.seq}`, { headers: ADMIN })).text();
      expect(detail.length).toBeLessThan(20_000);
    }
    const after = (await adminJson<Overview>(g.url, "/ui/api/overview")).inspector.bytes;
    expect(after - before).toBeLessThan(20_000);
  });

  it("pages the list: at most `limit` rows, and `next` for the older ones", async () => {
    const first = await adminJson<{ requests: Row[]; next: number | null }>(
      g.url,
      "/ui/api/requests?limit=5",
    );
    expect(first.requests).toHaveLength(5);
    expect(first.next).toBe(first.requests[4]?.seq);
    const rest = await adminJson<{ requests: Row[]; next: number | null }>(
      g.url,
      `/ui/api/requests?limit=500&before=${first.next}`,
    );
    expect(rest.requests).toHaveLength(9);
    expect(rest.next).toBeNull();
    expect(Math.max(...rest.requests.map((r) => r.seq))).toBeLessThan(first.next ?? 0);
  });

  it("bounds the live watchers by count, and frees each one's place when it closes", async () => {
    const watchers = await Promise.all(Array.from({ length: 16 }, () => openWatcher(g.url)));
    expect(watchers.every((w) => w.status === 200)).toBe(true);
    const refused = await fetch(`${g.url}/ui/api/stream`, { headers: ADMIN });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: {
        message: "The inspector already has 16 live watchers (open pages); close one and reload.",
        code: "too_many_watchers",
      },
    });
    for (const w of watchers) w.close();
    await waitUntil(
      async () => (await adminJson<Overview>(g.url, "/ui/api/overview")).inspector.live.watchers === 0,
      "the watchers to be gone",
    );
    const again = await openWatcher(g.url);
    expect(again.status).toBe(200);
    again.close();
  });

  it("disconnects a watcher that stops reading once its queue passes its bytes", async () => {
    // A reader with a tiny receive buffer that reads nothing until told (so kernel buffers stay small).
    const stalled = spawn("python3", ["-c", STALLED_READER, new URL(g.url).port, ADMIN.authorization], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    stalled.stdout.on("data", (d) => {
      out += d;
    });
    await waitUntil(() => out.includes("connected"), "the stalled reader to connect");
    const reading = await openWatcher(g.url);
    await waitUntil(
      async () => (await adminJson<Overview>(g.url, "/ui/api/overview")).inspector.live.watchers === 2,
      "both watchers",
    );
    // Rows of ~2 KiB each (a cut error), until the stalled watcher's socket and queue are full.
    const prompt = `fail ${"y".repeat(3_000)}`;
    let peak = 0;
    let watchers = 2;
    for (let i = 0; i < 300 && watchers === 2; i++) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          chatAs(g.url, CLIENT_KEY, { messages: [{ role: "user", content: prompt }] }).then((r) => r.text()),
        ),
      );
      const live = (await adminJson<Overview>(g.url, "/ui/api/overview")).inspector.live;
      peak = Math.max(peak, live.queuedBytes);
      watchers = live.watchers;
    }
    expect(peak).toBeLessThanOrEqual(256 * 1024);
    // The stalled one was dropped by the gateway; the one that reads is still there.
    expect(watchers).toBe(1);
    stalled.stdin.end("read\n");
    await waitUntil(() => out.includes("closed"), "the stalled reader to see its end");
    expect(reading.res.destroyed).toBe(false);
    expect(reading.body()).toContain("event: done");
    reading.close();
  });
});

/** Connects with a 4 KiB receive buffer, asks for the live events, reads only once stdin says so. */
const STALLED_READER = `
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.sendall(("GET /ui/api/stream HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: " + sys.argv[2] + "\\r\\n\\r\\n").encode())
print("connected", flush=True)
sys.stdin.readline()
while s.recv(65536):
    pass
print("closed", flush=True)
`;

describe("unauthenticated requests cannot flush the inspector's records", { timeout: 60_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(() => ({ chunks: ["ok"] }), { PROXY_INSPECTOR_MAX_REQUESTS: "20" });
  });
  afterAll(() => g?.close());

  it("keeps refused requests apart, in a ring of their own", async () => {
    for (let i = 0; i < 5; i++)
      expect(
        (
          await chatAs(
            g.url,
            CLIENT_KEY,
            { messages: [{ role: "user", content: "hi" }] },
            { "x-request-id": `real-${i}` },
          )
        ).status,
      ).toBe(200);
    for (let i = 0; i < 120; i++) {
      const res = await chatAs(
        g.url,
        "sk-wrong-0123456789",
        { messages: [] },
        { "x-request-id": `flood-${i}` },
      );
      expect(res.status).toBe(401);
      await res.text();
    }
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests?limit=500");
    expect(requests.filter((r) => r.requestId.startsWith("real-")).map((r) => r.requestId)).toEqual([
      "real-4",
      "real-3",
      "real-2",
      "real-1",
      "real-0",
    ]);
    // The newest refused ones are kept too (what was refused and why), bounded apart.
    const refused = requests.filter((r) => r.requestId.startsWith("flood-"));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(20);
    expect(refused[0]).toMatchObject({ requestId: "flood-119", status: 401 });
  });
});

describe("the inspector's login reads a small body only", { timeout: 30_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(() => ({ chunks: ["ok"] }));
  });
  afterAll(() => g?.close());

  /** A login post whose chunked body never ends: the answer must come without it. */
  const endlessLogin = (headers: Record<string, string>) =>
    new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${g.url}/ui/login`,
        { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers } },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", () => {});
      const chunk = `key=${"k".repeat(16 * 1024)}`;
      req.write(chunk);
      const more = setInterval(() => (req.destroyed ? clearInterval(more) : req.write("kkkk")), 50);
      req.on("close", () => clearInterval(more));
      setTimeout(() => {
        clearInterval(more);
        req.destroy();
      }, 10_000).unref();
    });

  it("refuses a chunked body past 8 KiB with 413 before it ends", async () => {
    const started = Date.now();
    const res = await endlessLogin({ "transfer-encoding": "chunked" });
    expect(res.status).toBe(413);
    expect(res.body).toBe("The login form is larger than 8192 bytes.");
    expect(res.connection).toBe("close");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses a declared length past 8 KiB unread, and still signs in with a normal form", async () => {
    const big = await fetch(`${g.url}/ui/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `key=${"k".repeat(9_000)}`,
    });
    expect(big.status).toBe(413);
    const ok = await fetch(`${g.url}/ui/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "key=admin-0123456789abcdef",
      redirect: "manual",
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("set-cookie")).toMatch(/^proxy_inspector=/);
  });
});
