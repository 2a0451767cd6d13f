import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CodexHome,
  makeCodexHome,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_BIN, spawnGateway } from "../test/support/spawn-gateway.js";
import { processesWithEnv, serverEnv } from "./support.js";

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The built bin run to its end, as the README runs it, with its temp files in a directory of its own. */
const runBin = (env: Record<string, string>, args: ReadonlyArray<string> = []): Promise<Run> => {
  const started = Date.now();
  const child = spawn(process.execPath, [BUILT_BIN, ...args], {
    env: { ...serverEnv(), PORT: "0", LOG_LEVEL: "info", PROXY_STORE: "memory", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString();
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    }),
  );
};

/** A listening socket that accepts and never answers (a server that is not PostgreSQL, a stuck one). */
const silentServer = (): Promise<{ server: Server; port: number }> =>
  new Promise((resolve) => {
    const server = createServer(() => {});
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ server, port: typeof address === "object" && address ? address.port : 0 });
    });
  });

/** A loopback port nothing listens on. */
const closedPort = async (): Promise<number> => {
  const { server, port } = await silentServer();
  await new Promise((r) => server.close(r));
  return port;
};

describe.runIf(process.platform === "linux")(
  "a start-up mistake: one line, a non-zero exit, nothing left",
  () => {
    let provider: ScriptedModelProvider;
    let home: CodexHome;
    let postgres: PostgresServer;
    let temp: string;

    beforeAll(async () => {
      provider = await startScriptedModelProvider({ text: "unused" });
      home = await makeCodexHome(provider.url);
      postgres = await startPostgresServer();
    }, 120_000);

    afterAll(async () => {
      await postgres?.stop();
      await provider?.close();
      await home?.cleanup();
    });

    /**
     * Runs the bin with its own TMPDIR (where codex's private directory goes) and CODEX_HOME (which
     * every codex process it starts carries), then checks the run left neither behind.
     */
    const mistake = async (env: Record<string, string>, args: ReadonlyArray<string> = []) => {
      temp = mkdtempSync(join(tmpdir(), "startup-mistake-"));
      const codexHome = env.CODEX_HOME ?? home.path;
      const run = await runBin({ CODEX_HOME: codexHome, TMPDIR: temp, ...env }, args);
      const left = readdirSync(temp);
      rmSync(temp, { recursive: true, force: true });
      expect(left, "temp files left behind").toEqual([]);
      expect(processesWithEnv("CODEX_HOME", codexHome), "codex processes left behind").toEqual([]);
      // No stack trace anywhere (printed, or in a JSON log line), no source line of the bundle.
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at |bundle-\w+\.js:\d+|"stack"/);
      return run;
    };

    /** Exactly one line on stderr, matching `line`. */
    const oneLine = (run: Run, line: RegExp) => {
      expect(run.stderr.trimEnd().split("\n"), run.stderr).toEqual([expect.stringMatching(line)]);
    };

    it("a CODEX_HOME that does not exist: codex's own reason, at once", async () => {
      const missing = join(tmpdir(), `no-such-codex-home-${process.pid}`);
      // The port is taken first: a request sent while codex fails to start waits, and is dropped.
      const port = await closedPort();
      const running = mistake({ CODEX_HOME: missing, PORT: String(port) });
      let done = false;
      void running.finally(() => {
        done = true;
      });
      const held = (async () => {
        while (!done) {
          const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch((e: Error) => e);
          const refused =
            answer instanceof Error && (answer.cause as { code?: string })?.code === "ECONNREFUSED";
          if (!refused) return answer;
          await new Promise((r) => setTimeout(r, 10));
        }
        return undefined;
      })();
      const run = await running;
      expect(await held).toBeInstanceOf(Error);
      expect(run.code).toBe(1);
      oneLine(
        run,
        new RegExp(
          `^codex-tool-gateway: codex could not start: CODEX_HOME points to "${missing}", but that path does not exist\\. Set CODEX_HOME to`,
        ),
      );
      expect(run.ms).toBeLessThan(10_000);
    });

    it("a codex that fails at start: its own stderr, kept on the one line", async () => {
      const dir = mkdtempSync(join(tmpdir(), "broken-codex-"));
      const bin = join(dir, "codex");
      writeFileSync(
        bin,
        '#!/bin/sh\necho "codex: this build cannot run here" >&2\necho "(second line)" >&2\nexit 3\n',
        {
          mode: 0o755,
        },
      );
      try {
        const run = await mistake({ CODEX_BIN: bin });
        expect(run.code).toBe(1);
        oneLine(
          run,
          new RegExp(
            `^codex-tool-gateway: CODEX_BIN: codex could not be started \\(${bin}\\): .*; codex: this build cannot run here; \\(second line\\): point CODEX_BIN at a codex binary, or unset it to use the pinned @openai/codex\\.$`,
          ),
        );
        expect(run.ms).toBeLessThan(10_000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("the port in use: found before codex or the store start", async () => {
      const { server, port } = await silentServer();
      try {
        const run = await mistake({ PORT: String(port) });
        expect(run.code).toBe(1);
        oneLine(
          run,
          new RegExp(
            `^codex-tool-gateway: PORT: 127\\.0\\.0\\.1:${port} is already in use .*PORT or --port\\.$`,
          ),
        );
        // Nothing was started: no log line of codex or the store.
        expect(run.stdout).toBe("");
        expect(run.ms).toBeLessThan(5_000);
      } finally {
        server.close();
      }
    });

    it("PostgreSQL that is not running: host:port named, the password not", async () => {
      const port = await closedPort();
      const run = await mistake({ PROXY_STORE: `postgres://gateway:s3cret-pw@127.0.0.1:${port}/gateway` });
      expect(run.code).toBe(1);
      oneLine(
        run,
        new RegExp(
          `^codex-tool-gateway: PROXY_STORE: PostgreSQL at 127\\.0\\.0\\.1:${port} refused the connection`,
        ),
      );
      expect(`${run.stdout}${run.stderr}`).not.toContain("s3cret-pw");
      expect(run.ms).toBeLessThan(10_000);
    });

    it("PostgreSQL that never answers: given up on, not waited for forever", async () => {
      const { server, port } = await silentServer();
      try {
        const run = await mistake({ PROXY_STORE: `postgres://gateway:s3cret-pw@127.0.0.1:${port}/gateway` });
        expect(run.code).toBe(1);
        oneLine(
          run,
          new RegExp(
            `^codex-tool-gateway: PROXY_STORE: PostgreSQL at 127\\.0\\.0\\.1:${port} did not answer`,
          ),
        );
        expect(run.ms).toBeLessThan(20_000);
      } finally {
        server.close();
      }
    }, 60_000);

    it.each([
      ["a role it does not know", "nobody", "postgres", /refused the login \(role "nobody" does not exist\)/],
      ["a database it does not have", "postgres", "nope", /database "nope" does not exist: create it/],
    ])("PostgreSQL that refuses (%s)", async (_what, user, database, said) => {
      const port = new URL(postgres.url).port;
      const run = await mistake({
        PROXY_STORE: `postgres://${user}:pw-${user}@127.0.0.1:${port}/${database}`,
      });
      expect(run.code).toBe(1);
      oneLine(run, said);
      expect(run.stderr).toContain(`PROXY_STORE: PostgreSQL at 127.0.0.1:${port}`);
      expect(run.stderr).not.toContain(`pw-${user}`);
    });

    it("a malformed OTEL_EXPORTER_OTLP_HEADERS: named, its value (a secret) not repeated", async () => {
      const run = await mistake({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%zzsecret",
      });
      expect(run.code).toBe(2);
      oneLine(run, /^codex-tool-gateway: Invalid configuration value for OTEL_EXPORTER_OTLP_HEADERS: .*%25/);
      expect(run.stderr).not.toContain("zzsecret");
      expect(run.stdout).toBe("");
    });

    it.each([
      [
        "missing",
        undefined,
        /PROXY_CONFIG_FILE: cannot read the config file .*\(no such file\): fix the path, or unset PROXY_CONFIG_FILE\.$/,
      ],
      [
        "not JSON",
        '{"port": 1,}',
        /PROXY_CONFIG_FILE: the config file .* is not valid JSON \(.*line 1 column 12\)\): fix it/,
      ],
      ["not an object", "[1]", /PROXY_CONFIG_FILE: the config file .* must hold one JSON object/],
      [
        "with a misspelled key",
        '{"maxInflight": 4}',
        /unknown key 'maxInflight' \(did you mean 'maxInFlight'\?\)/,
      ],
    ])("a config file %s", async (_what, content, line) => {
      const dir = mkdtempSync(join(tmpdir(), "gateway-config-"));
      const file = join(dir, "gateway.json");
      if (content !== undefined) writeFileSync(file, content);
      try {
        const run = await mistake({ PROXY_CONFIG_FILE: file });
        expect(run.code).toBe(2);
        oneLine(run, line);
        expect(run.stdout).toBe("");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a misspelled flag: refused, the flag meant named", async () => {
      const run = await mistake({}, ["--max-inflight", "4"]);
      expect(run.code).toBe(2);
      oneLine(
        run,
        /^codex-tool-gateway: unknown option --max-inflight \(did you mean --max-in-flight\?\); 'codex-tool-gateway --help' lists the options\.$/,
      );
    });

    it("a misspelled PROXY_* variable: the gateway starts and warns, naming the setting meant", async () => {
      const gateway = await spawnGateway(
        { ...serverEnv(), CODEX_HOME: home.path, PROXY_STORE: "memory", PROXY_TOOLMODE: "prompt" },
        { command: [process.execPath, BUILT_BIN], inheritEnv: false },
      );
      try {
        expect(gateway.lines.filter((l) => l.setting === "PROXY_TOOLMODE")).toEqual([
          expect.objectContaining({
            level: 40,
            meant: "PROXY_TOOL_MODE",
            msg: "PROXY_TOOLMODE is not a setting of the gateway and is ignored: did you mean PROXY_TOOL_MODE?",
          }),
        ]);
      } finally {
        gateway.child.kill("SIGTERM");
        expect(await gateway.exited).toBe(0);
      }
    });

    it("a codex config.toml that is not TOML: one warning naming the file, where and what it means, no stack", async () => {
      const broken = await makeCodexHome(provider.url);
      writeFileSync(join(broken.path, "config.toml"), "model = [unclosed\n");
      const gateway = await spawnGateway(
        { ...serverEnv(), CODEX_HOME: broken.path, PROXY_STORE: "memory" },
        { command: [process.execPath, BUILT_BIN], inheritEnv: false },
      );
      try {
        const path = join(broken.path, "config.toml");
        expect(gateway.lines.filter((l) => l.path === path)).toEqual([
          {
            level: 40,
            time: expect.any(Number),
            service: "proxy-gateway",
            component: "codex",
            path,
            detail: "Invalid TOML document: invalid value (line 1, column 10)",
            msg: `codex: ${path} is not valid TOML: codex ignores all of it and runs on its defaults (no model provider or setting of it applies); fix the file`,
          },
        ]);
        // codex says the same in its own words (it goes on with its defaults, it does not exit).
        expect(
          gateway.lines.some((l) => /Invalid configuration; using defaults/.test(String(l.stderr))),
        ).toBe(true);
        expect(JSON.stringify(gateway.lines)).not.toMatch(/"stack"|\\n\s+at /);
      } finally {
        gateway.child.kill("SIGTERM");
        expect(await gateway.exited).toBe(0);
        await broken.cleanup();
      }
    });
  },
);
