import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";

/** `GET path` over a fresh connection; resolves with the status once the body is read. */
const get = (url: string, path: string, requestId: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { "x-request-id": requestId }, agent: false }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
    req.end();
  });

describe("access log (gateway process, stdout a pipe)", { timeout: 60_000 }, () => {
  let gateway: SpawnedGateway | undefined;
  afterEach(() => {
    gateway?.child.kill("SIGKILL");
  });

  it("loses no line when SIGTERM comes while lines are still queued for a reader that stalled", async () => {
    gateway = await spawnGateway({
      // A route that is never called: the gateway starts without codex.
      PROXY_MODELS: JSON.stringify([
        { id: "m", backend: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" },
      ]),
    });
    const { child, url, lines } = gateway;
    // The reader stops: the pipe fills (64 KiB), later lines wait in the gateway's log buffer.
    child.stdout?.pause();
    const count = 400;
    const statuses: number[] = [];
    for (let start = 0; start < count; start += 50)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, (_, i) => get(url, "/healthz", `log-${start + i}`)),
        )),
      );
    expect(statuses.every((s) => s === 200)).toBe(true);
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    child.stdout?.resume();
    expect(await gateway.exited).toBe(0);
    // The last chunk of stdout may arrive after `exit`.
    await new Promise((r) => setTimeout(r, 100));
    const logged = new Set(
      lines.filter((l) => l.msg === "request" && l.route === "/healthz").map((l) => l.requestId),
    );
    expect(logged.size).toBe(count);
    for (let i = 0; i < count; i++) expect(logged.has(`log-${i}`)).toBe(true);
    expect(lines.at(-1)?.msg).toBe("stopped");
  });
});
