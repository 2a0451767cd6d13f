import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AppServerStartError, createCodexBackend } from "../src/index.js";
import { codexErrorLine } from "../src/transport/app-server-process.js";
import { realEnv } from "./helpers.js";

/** A backend whose private directory goes in a temp dir of its own (os.tmpdir() reads TMPDIR). */
const backendIn = (temp: string, options: Parameters<typeof createCodexBackend>[0]) => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  try {
    return createCodexBackend(options);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
};

describe("a codex that cannot start", () => {
  it("fails the warm-up at once with codex's own reason, and close() leaves nothing behind", async () => {
    const home = join(tmpdir(), "no-such-codex-home");
    const temp = mkdtempSync(join(tmpdir(), "start-failure-"));
    const backend = backendIn(temp, { env: realEnv(home), restartBackoffMs: { initial: 50, max: 100 } });
    const started = Date.now();
    const failure = await backend.warmup().catch((e: unknown) => e);
    // Once, not after the start timeout (30 s) while the pool keeps restarting it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(AppServerStartError);
    expect((failure as AppServerStartError).codexSays).toBe(
      `CODEX_HOME points to "${home}", but that path does not exist`,
    );
    expect((failure as Error).message).toMatch(/^codex app-server exited at start \(code 1\): CODEX_HOME/);
    expect(readdirSync(temp)).toEqual([expect.stringMatching(/^codex-backend-/)]);
    await backend.close();
    expect(readdirSync(temp)).toEqual([]);
    rmSync(temp, { recursive: true });
  });

  it.each([
    [["WARNING: proceeding", "Error: the reason", "", "Stack backtrace:", "   0: <unknown>"], "the reason"],
    [
      ["2026-12-02T00:24:05Z ERROR codex_app_server: Invalid configuration; using defaults."],
      "Invalid configuration; using defaults.",
    ],
    [["something went wrong", "   1: <unknown>"], "something went wrong"],
    [[], undefined],
  ])("reads codex's reason from its stderr (%j)", (lines, reason) => {
    expect(codexErrorLine(lines)).toBe(reason);
  });
});
