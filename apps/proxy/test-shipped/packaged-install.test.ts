import { execFileSync, spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CodexHome,
  makeCodexHome,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedGateway, spawnGateway } from "../test/support/spawn-gateway.js";
import { serverEnv, stillRunningAfter } from "./support.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
const PACKAGE_SCRIPT = fileURLToPath(new URL("../scripts/package.mjs", import.meta.url));

/** Where module resolution could reach into a checkout: hidden by an empty tmpfs when the OS allows it. */
const HIDDEN = ["node_modules", "apps", "packages", "tooling"].map((d) => join(root, d));
const canHideRepo =
  process.platform === "linux" &&
  spawnSync("unshare", ["--user", "--map-root-user", "--mount", "true"], { stdio: "ignore" }).status === 0;

/** `command` run with the repository's code out of reach (a private mount namespace over it). */
const outsideRepo = (command: ReadonlyArray<string>): string[] =>
  canHideRepo
    ? [
        "unshare",
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        'for d in $HIDE; do mount -t tmpfs tmpfs "$d" || exit 97; done; exec "$@"',
        "sh",
        ...command,
      ]
    : [...command];

/** Every symlink under `dir` (npm links bins; a link into the checkout would mean the repo is used). */
const symlinksUnder = (dir: string): Array<[string, string]> => {
  const out: Array<[string, string]> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) out.push([path, resolve(dir, readlinkSync(path))]);
    else if (entry.isDirectory()) out.push(...symlinksUnder(path));
  }
  return out;
};

describe("the packed gateway, installed with npm in an empty directory outside the repository", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let gateway: SpawnedGateway | undefined;

  beforeAll(async () => {
    const tarball = execFileSync(process.execPath, [PACKAGE_SCRIPT], { encoding: "utf8" })
      .trim()
      .split("\n")
      .at(-1)!;
    expect(tarball).toBe(join(root, "artifacts", `codex-tool-gateway-${VERSION}.tgz`));
    dir = await mkdtemp(join(tmpdir(), "gateway-install-"));
    execFileSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball],
      {
        cwd: dir,
        env: serverEnv(),
        stdio: ["ignore", "ignore", "inherit"],
        timeout: 540_000,
      },
    );
    provider = await startScriptedModelProvider({ chunks: ["Hello from ", "the installed gateway."] });
    home = await makeCodexHome(provider.url);
    env = { ...serverEnv(), HIDE: HIDDEN.join(" "), CODEX_HOME: home.path };
  }, 600_000);

  afterAll(async () => {
    if (gateway?.child.pid && gateway.child.exitCode === null) {
      try {
        process.kill(-gateway.child.pid, "SIGKILL");
      } catch {
        // its group has already gone
      }
    }
    await provider?.close();
    await home?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("installs without a link into the checkout", () => {
    expect(lstatSync(join(dir, "node_modules", "codex-tool-gateway")).isSymbolicLink()).toBe(false);
    const intoRepo = symlinksUnder(join(dir, "node_modules")).filter(([, target]) => target.startsWith(root));
    expect(intoRepo).toEqual([]);
  });

  it.runIf(canHideRepo)("what runs there cannot see the checkout's code", () => {
    const [file, ...args] = outsideRepo(["ls", "-A", ...HIDDEN]);
    const ls = spawnSync(file as string, args, { env, encoding: "utf8" });
    expect([ls.status, ls.stdout.split("\n").filter((l) => l !== "" && !l.endsWith(":"))]).toEqual([0, []]);
  });

  it("npx codex-tool-gateway --version and --help", () => {
    const run = (flag: string) => {
      const [file, ...args] = outsideRepo(["npx", "--no-install", "codex-tool-gateway", flag]);
      return spawnSync(file as string, args, { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    };
    const version = run("--version");
    expect([version.status, version.stdout.trim()], version.stderr).toEqual([0, VERSION]);
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: codex-tool-gateway");
  });

  it("`npx codex login` there (the command the not-logged-in error names) is the pinned codex", async () => {
    const codexVersion = (
      JSON.parse(readFileSync(join(dir, "node_modules", "@openai", "codex", "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    const empty = await mkdtemp(join(tmpdir(), "codex-login-home-"));
    try {
      const run = (...codexArgs: string[]) => {
        const [file, ...args] = outsideRepo(["npx", "--no-install", "codex", ...codexArgs]);
        return spawnSync(file as string, args, {
          cwd: dir,
          env: { ...env, CODEX_HOME: empty },
          encoding: "utf8",
          timeout: 60_000,
        });
      };
      const version = run("--version");
      expect([version.status, version.stdout.trim()], version.stderr).toEqual([
        0,
        `codex-cli ${codexVersion}`,
      ]);
      // `login status` is the `login` subcommand without changing anything: nobody is logged in here.
      const status = run("login", "status");
      expect(`${status.stdout}${status.stderr}`).toContain("Not logged in");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("npx codex-tool-gateway serves /healthz, the inspector page and a real turn through its own codex", async () => {
    gateway = await spawnGateway(
      { ...(env as Record<string, string>), PROXY_INSPECTOR: "true" },
      {
        command: outsideRepo(["npx", "--no-install", "codex-tool-gateway"]),
        cwd: dir,
        detached: true,
        inheritEnv: false,
      },
    );
    // The codex it runs is the one npm installed beside it.
    const catalog = gateway.lines.find((l) => l.msg === "codex: sealed model catalog written");
    expect(String(catalog?.command)).toMatch(new RegExp(`^${dir}/node_modules/`));
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // The inspector's page, a folder of its own in the package, is there too.
    const page = await fetch(`${gateway.url}/ui`);
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe("Hello from the installed gateway.");
    expect(provider.requests).toHaveLength(1);
    // Stopped as a terminal stops it: the whole group gets the signal, the gateway drains and exits.
    const output = new Promise((resolve) => gateway?.child.stdout?.once("close", resolve));
    process.kill(-(gateway.child.pid as number), "SIGTERM");
    await output; // closed once the gateway itself has exited (npx may exit before it)
    expect(gateway.lines.map((l) => l.msg)).toContain("stopped");
    // The default SQLite store lives in the working directory's ./data.
    expect(readdirSync(join(dir, "data"))).toContain("gateway.sqlite");
  });

  it("npx codex-tool-gateway stops cleanly on SIGTERM to npx's own pid: drained, codex gone, the port free", async () => {
    gateway = await spawnGateway(env as Record<string, string>, {
      command: outsideRepo(["npx", "--no-install", "codex-tool-gateway"]),
      cwd: dir,
      // Its own group, as a supervisor starts it: the signal goes to npx's pid alone.
      detached: true,
      inheritEnv: false,
    });
    const npx = gateway.child.pid as number;
    const codex = gateway.lines.filter((l) => l.msg === "codex app-server ready").map((l) => Number(l.pid));
    expect(codex.length).toBeGreaterThan(0);
    const output = new Promise((resolve) => gateway?.child.stdout?.once("close", resolve));
    process.kill(npx, "SIGTERM");
    await output; // the gateway's stdout closes once the gateway itself has exited
    await gateway.exited; // and npx is gone too
    expect(gateway.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(["shutting down: no new connections", "stopped"]),
    );
    expect(await stillRunningAfter(codex, 10_000)).toEqual([]);
    const port = Number(new URL(gateway.url).port);
    await expect(fetch(gateway.url)).rejects.toThrow();
    // Nothing holds the port any more.
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once("error", reject);
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
    });
  });

  it("npx codex-tool-gateway stops on Ctrl-C (SIGINT to the terminal's group), as the README says", async () => {
    gateway = await spawnGateway(env as Record<string, string>, {
      command: outsideRepo(["npx", "--no-install", "codex-tool-gateway"]),
      cwd: dir,
      detached: true,
      inheritEnv: false,
    });
    const codex = gateway.lines.filter((l) => l.msg === "codex app-server ready").map((l) => Number(l.pid));
    expect(codex.length).toBeGreaterThan(0);
    const output = new Promise((resolve) => gateway?.child.stdout?.once("close", resolve));
    // What a terminal does on Ctrl-C: every process of the foreground group gets SIGINT.
    process.kill(-(gateway.child.pid as number), "SIGINT");
    await output;
    await gateway.exited;
    expect(gateway.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(["shutting down: no new connections", "stopped"]),
    );
    expect(gateway.lines.find((l) => l.msg === "shutting down: no new connections")?.reason).toBe("SIGINT");
    expect(await stillRunningAfter(codex, 10_000)).toEqual([]);
  });

  it("ships source maps that name no directory of the machine that built it", () => {
    const pkg = join(dir, "node_modules", "codex-tool-gateway");
    const files = readdirSync(pkg, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const builder = [root, "codex-tool-gateway-package-"];
    const naming = files
      .map((f) => join(f.parentPath, f.name))
      .filter((path) => builder.some((p) => readFileSync(path, "latin1").includes(p)));
    expect(naming.map((p) => relative(pkg, p))).toEqual([]);
    const maps = files.filter((f) => f.name.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(map.parentPath, map.name), "utf8")) as {
        sources: string[];
      };
      for (const source of sources) {
        expect(source, map.name).not.toMatch(/^\//);
        // Relative to dist/, a source stays inside the package.
        expect(relative(pkg, resolve(map.parentPath, source)), `${map.name}: ${source}`).not.toMatch(/^\.\./);
      }
    }
  });
});
