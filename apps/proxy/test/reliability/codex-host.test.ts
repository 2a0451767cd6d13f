import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  hasProcfs,
  type RecordedRequest,
  reapedChildFaults,
  startEgressTrap,
  watchProcessTree,
} from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, chat, gatewayOverCodex } from "./support.js";

/** Secrets a gateway host typically has in its environment; none may reach a file. */
const SECRETS = {
  PROXY_API_KEYS: "sk-gateway-key-6f1d2c",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0b9e77",
  GITHUB_TOKEN: "ghp-token-41aa90",
  OPENAI_API_KEY: "sk-openai-key-93c2de",
};

/** Every regular file under `dir` whose content contains one of `needles`. */
const filesContaining = (dir: string, needles: ReadonlyArray<string>): string[] => {
  const hits: string[] = [];
  const walk = (d: string) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(d, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat?.isFile() && stat.size < 64 * 1024 * 1024) {
        let content = "";
        try {
          content = readFileSync(path).toString("latin1");
        } catch {
          continue; // removed since the listing (another test's backend shutting down)
        }
        if (needles.some((n) => content.includes(n))) hits.push(path);
      }
    }
  };
  walk(dir);
  return hits;
};

/** The codex backend's private directories (sealed catalog, empty cwd) created since `since`. */
const backendDirs = (since: number) =>
  readdirSync(tmpdir())
    .filter((n) => n.startsWith("codex-backend-"))
    .map((n) => join(tmpdir(), n))
    .filter((p) => (statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= since - 1000);

const script = (r: RecordedRequest) =>
  JSON.stringify(r.body.input).includes("slowly")
    ? { chunks: Array.from({ length: 12 }, (_, i) => `w${i} `), delayMs: 250 }
    : { chunks: ["all ", "quiet"], delayMs: 20 };

describe("the codex child on the gateway host (real gateway + real codex)", { timeout: 60_000 }, () => {
  let g: CodexGateway;
  let trap: Awaited<ReturnType<typeof startEgressTrap>>;
  let pid: number;
  let watch: ReturnType<typeof watchProcessTree> | undefined;
  let started: number;
  beforeAll(async () => {
    started = Date.now();
    trap = await startEgressTrap();
    g = await gatewayOverCodex(script, {
      config: {
        PROXY_API_KEYS: SECRETS.PROXY_API_KEYS,
        PROXY_CODEX_PASS_ENV:
          "HTTPS_PROXY,HTTP_PROXY,ALL_PROXY,NO_PROXY,https_proxy,http_proxy,all_proxy,no_proxy",
      },
      // The gateway's environment: secrets, and proxy variables that send any egress to the trap.
      childEnv: { ...SECRETS, ...trap.env() },
    });
    const ready = g.logs.find((l) => l.msg === "codex app-server ready");
    pid = Number(ready?.pid);
    if (hasProcfs()) watch = watchProcessTree(pid);
    // Startup probes and plugin sync run in the background after the handshake: give them time.
    await new Promise((r) => setTimeout(r, 1500));
  });
  afterAll(async () => {
    watch?.stop();
    await g?.close();
    await trap?.close();
  });

  const ask = (content: string) =>
    chat(g.url, content, { headers: { authorization: `Bearer ${SECRETS.PROXY_API_KEYS}` } });

  it("runs turns without executing anything, and reaches nothing but its model provider", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await ask(`turn ${i}`);
      expect(res.status).toBe(200);
      expect(
        ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message
          .content,
      ).toBe("all quiet");
    }
    expect(trap.hits).toEqual([]);
    if (!hasProcfs()) return;
    const report = watch?.stop();
    watch = undefined;
    expect(report?.processes).toEqual([]);
    expect(reapedChildFaults(pid)).toBe(0);
    const provider = new URL(g.provider.url);
    expect(pid).toBeGreaterThan(0);
    expect(report?.remotes.length).toBeGreaterThan(0);
    for (const remote of report?.remotes ?? [])
      expect(remote).toBe(`tcp ${provider.hostname}:${provider.port}`);
  });

  it("leaves no key string on disk: CODEX_HOME and the backend's directory hold none of the secrets", async () => {
    const dirs = [g.home.path, ...backendDirs(started)];
    expect(dirs.length).toBeGreaterThan(1);
    // The scan can see: config.toml is found by its content.
    expect(filesContaining(dirs[0] as string, ["model_provider"])).not.toEqual([]);
    // Scanned mid-turn and after it, while codex still runs: what a crash would leave behind.
    const turn = ask("answer slowly");
    await new Promise((r) => setTimeout(r, 2000));
    for (const dir of dirs) expect(filesContaining(dir, Object.values(SECRETS))).toEqual([]);
    expect((await turn).status).toBe(200);
    for (const dir of dirs) expect(filesContaining(dir, Object.values(SECRETS))).toEqual([]);
  });

  it("an upstream 401 reaches the client without the provider's URL", async () => {
    g.provider.script({ fail: { status: 401, body: { error: { message: "bad key for this tenant" } } } });
    const res = await ask("who am i");
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(body.error.message).toMatch(/401|unauthori/i);
    expect(body.error.message).not.toMatch(/https?:\/\/|127\.0\.0\.1|\/v1\/responses/);
    g.provider.script(() => ({ chunks: ["all ", "quiet"] }));
  });
});
