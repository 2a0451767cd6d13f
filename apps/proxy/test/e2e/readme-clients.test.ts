import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";
import { fn, toolsOf, trailingOutputs } from "./native-support.js";

const README = await readFile(new URL("../../../../README.md", import.meta.url), "utf8");
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** The first ```sh block after `marker` in the README, as written there. */
const readmeBlock = (marker: string): string => {
  const at = README.indexOf(marker);
  expect(at, `README has no ${marker}`).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(at))?.[1];
  expect(block, `no sh block after ${marker}`).toBeDefined();
  return block as string;
};

const NOTE = "hello-from-the-note";
const ASK = "What does note.txt say?";
const KEY = "sk-your-gateway-key";

/**
 * The default (native) tool mode's model behind codex: it reads note.txt with whichever tool the
 * client offers (Claude Code's Bash, the Gemini CLI's read_file, codex exec's exec_command), then
 * says what the tool returned.
 */
const model =
  (project: string) =>
  (r: RecordedRequest): ScriptedResponse => {
    const outputs = trailingOutputs(r).join(" ");
    if (outputs !== "") return { chunks: ["The note says: ", outputs.includes(NOTE) ? NOTE : "(nothing)"] };
    const tools = toolsOf(r) as Array<{ name?: string; parameters?: { required?: string[] } }>;
    const named = (p: (name: string) => boolean) => tools.find((t) => t.name && p(t.name));
    const id = `call_readme_${r.index}`;
    const bash = named((n) => n === "Bash");
    if (bash) return { items: [fn(id, "Bash", { command: "cat note.txt", description: "Read the note" })] };
    const read = named((n) => n === "read_file");
    if (read)
      return {
        items: [
          fn(id, "read_file", { [read.parameters?.required?.[0] ?? "file_path"]: join(project, "note.txt") }),
        ],
      };
    const exec = named((n) => n.startsWith("exec_command"));
    if (exec) return { items: [fn(id, exec.name as string, { cmd: "cat note.txt" })] };
    return { text: `No tool to read the note with: ${tools.map((t) => t.name).join(", ")}` };
  };

/** `claude`, `gemini` and `codex` as the README calls them: the npm packages the tests install. */
const binDir = async (dir: string) => {
  await mkdir(dir, { recursive: true });
  await symlink(join(packageDir("@anthropic-ai/claude-code"), "bin", "claude.exe"), join(dir, "claude"));
  const node = (name: string, script: string) =>
    writeFile(join(dir, name), `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`).then(() =>
      chmod(join(dir, name), 0o755),
    );
  await node("gemini", join(packageDir("@google/gemini-cli"), "bundle", "gemini.js"));
  await node("codex", require.resolve("@openai/codex/bin/codex.js"));
  return dir;
};

describe("the README's client lines, run as they are written (the port and the prompt aside)", {
  timeout: 180_000,
}, () => {
  let work: string;
  let project: string;
  let bin: string;
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let keyed: Awaited<ReturnType<typeof startE2E>>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "readme-clients-"));
    project = join(work, "project");
    await mkdir(project);
    await writeFile(join(project, "note.txt"), `${NOTE}\n`);
    bin = await binDir(join(work, "bin"));
    // The gateway as `npm start` runs it: the default tool mode; and one with a key.
    e2e = await startE2E(model(project), { PROXY_TOOL_MODE: "auto" });
    keyed = await startE2E(model(project), { PROXY_TOOL_MODE: "auto", PROXY_API_KEYS: KEY });
  }, 120_000);
  afterAll(async () => {
    await e2e?.close();
    await keyed?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Runs a README block with `sh` in the project directory, under a throwaway HOME. */
  const run = async (block: string, url: string, home: string) => {
    await mkdir(join(home, "tmp"), { recursive: true });
    const script = block.replaceAll("http://127.0.0.1:8787", url).replaceAll('"…"', `"${ASK}"`);
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        "sh",
        ["-c", script],
        {
          cwd: project,
          env: {
            PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
            HOME: home,
            TERM: "dumb",
            LANG: "C.UTF-8",
            TMPDIR: join(home, "tmp"),
            // Offline hygiene only: no telemetry, update checks or retries.
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_TELEMETRY: "1",
            DISABLE_AUTOUPDATER: "1",
            DISABLE_ERROR_REPORTING: "1",
            CLAUDE_CODE_MAX_RETRIES: "0",
          },
          timeout: 150_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  };

  it("Claude Code", async () => {
    const home = join(work, "home-claude");
    const out = await run(readmeBlock("**Claude Code / the Anthropic SDK**"), e2e.url, home);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`The note says: ${NOTE}`);
  });

  it("the Gemini CLI, with the settings.json the README names", async () => {
    const home = join(work, "home-gemini");
    const settings = /`(\{"security":[^`]*\})` in\s+`~\/\.gemini\/settings\.json`/.exec(README)?.[1];
    expect(settings).toBeDefined();
    await mkdir(join(home, ".gemini"), { recursive: true });
    // The README's settings, plus offline hygiene (no telemetry, no update check, one attempt).
    const hygiene = {
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
    };
    await writeFile(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({ ...JSON.parse(settings as string), ...hygiene }),
    );
    const out = await run(readmeBlock("**Google Gen AI SDK / Gemini CLI**"), e2e.url, home);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`The note says: ${NOTE}`);
  });

  it("codex exec, against a gateway without keys", async () => {
    const out = await run(readmeBlock("**codex exec**"), e2e.url, join(work, "home-codex"));
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`The note says: ${NOTE}`);
  });

  it("codex exec, against a gateway with a key: the same config plus env_key", async () => {
    // The config the first block writes (up to its EOF), then the keyed block.
    const plain = readmeBlock("**codex exec**");
    const config = plain.slice(0, plain.indexOf("\nEOF\n") + "\nEOF\n".length);
    const before = keyed.provider.requests.length;
    const out = await run(
      config + readmeBlock("With gateway keys, codex sends"),
      keyed.url,
      join(work, "home-keyed"),
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`The note says: ${NOTE}`);
    expect(keyed.provider.requests.length).toBeGreaterThan(before);
  });
});
