import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

// codex exec is the client here (it runs the tool on ITS side, in its own temp dir); the gateway's
// backend is a second, sealed codex app-server talking to the scripted model.
const CODEX_JS = createRequire(import.meta.url).resolve("@openai/codex/bin/codex.js");

const model = (request: RecordedRequest) =>
  /\[function_call_output call_id="call_\w+" output="[^\]]*Process exited with code 0/.test(
    lastUserText(request),
  )
    ? { chunks: ["Marker ", "written."] }
    : { chunks: ["Creating it. ", toolCallText("exec_command", { cmd: "echo from-gateway > marker.txt" })] };

describe("codex exec → gateway /v1/responses → real codex app-server", { timeout: 180_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  const dirs: string[] = [];
  beforeAll(async () => {
    e2e = await startE2E(model);
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("executes the call the gateway parsed, feeds the output back and prints the final answer", async () => {
    const home = await mkdtemp(join(tmpdir(), "exec-home-"));
    const work = await mkdtemp(join(tmpdir(), "exec-work-"));
    dirs.push(home, work);
    const config = [
      'model = "fake-model"',
      'model_provider = "gateway"',
      "[model_providers.gateway]",
      'name = "gateway"',
      `base_url = "${e2e.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "PROXY_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
    ];
    await writeFile(join(home, "config.toml"), `${config.join("\n")}\n`);
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          CODEX_JS,
          "exec",
          "--skip-git-repo-check",
          "--ephemeral",
          "-s",
          "workspace-write",
          "create the marker file",
        ],
        {
          cwd: work,
          env: { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: home, PROXY_KEY: "sk-exec" },
          timeout: 150_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Marker written.");
    expect(await readFile(join(work, "marker.txt"), "utf8")).toBe("from-gateway\n");
    const followUp = e2e.provider.requests.at(-1)!;
    expect(lastUserText(followUp)).toMatch(/\[function_call_output call_id="call_\w+" output="/);
  });
});
