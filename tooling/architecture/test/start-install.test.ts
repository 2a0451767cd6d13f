import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bootstrap = new URL("../../bootstrap/installed.mjs", import.meta.url).href;

/** What the tests and the bench drive the gateway with: `npm test` needs them, `npm start` does not. */
const TEST_AND_BENCH_ONLY = [
  "@anthropic-ai/claude-code",
  "@google/gemini-cli",
  "@portkey-ai/gateway",
  "playwright-core",
];

interface Listed {
  readonly name: string;
  readonly dependencies?: Record<string, unknown>;
  readonly devDependencies?: Record<string, unknown>;
  readonly optionalDependencies?: Record<string, unknown>;
}

describe("what npm start installs", { timeout: 60_000 }, () => {
  it("is the gateway's packages without the test clients or the bench; npm test installs everything", async () => {
    const { installScope } = (await import(bootstrap)) as {
      installScope: (script: string) => { name: string; filters: string[] };
    };
    const start = installScope("gateway");
    expect(installScope("check").filters).toEqual([]);
    // The projects (and their own dependencies) `pnpm install` with the start's filters brings.
    const listed = JSON.parse(
      execFileSync("pnpm", ["ls", "-r", ...start.filters, "--json", "--depth", "0"], {
        cwd: root,
        encoding: "utf8",
      }),
    ) as Listed[];
    const projects = listed.map((p) => p.name);
    expect(projects).toEqual(expect.arrayContaining(["@proxy/gateway", "@proxy/core", "codex-tool-gateway"]));
    expect(projects).not.toContain("@proxy/gateway-tests");
    expect(projects).not.toContain("@proxy/bench");
    const brought = listed.flatMap((p) =>
      [p.dependencies, p.devDependencies, p.optionalDependencies].flatMap((d) => Object.keys(d ?? {})),
    );
    for (const name of TEST_AND_BENCH_ONLY) expect(brought, name).not.toContain(name);
  });
});
