import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

const GEMINI_JS = join(
  dirname(createRequire(import.meta.url).resolve("@google/gemini-cli/package.json")),
  "bundle",
  "gemini.js",
);

/**
 * The Gemini CLI (0.61, non-interactive, offline, throwaway HOME and project directory) against the
 * gateway over the real codex: the scripted model asks for the CLI's own `write_file` tool, the CLI
 * runs it on its side, sends the functionResponse back, and the model finishes.
 */
describe("end to end: Gemini CLI → gateway → real codex app-server → scripted model", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let work: string;
  let marker: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "gemini-cli-e2e-"));
    marker = join(work, "proj", "marker.txt");
    const model = (request: RecordedRequest) => {
      const input = lastUserText(request);
      if (/\[function_call_output call_id=\S+ output=/.test(input))
        return { chunks: ["Done: ", "marker.txt holds hi."] };
      if (/marker/.test(input))
        return {
          chunks: ["Writing it. ", toolCallText("write_file", { file_path: marker, content: "hi\n" })],
        };
      return { text: "Nothing to do." };
    };
    e2e = await startE2E(model, { PROXY_API_KEYS: "gemini-cli-key" });
    await mkdir(join(work, "home", ".gemini"), { recursive: true });
    await mkdir(join(work, "proj"));
    await mkdir(join(work, "tmp"));
    await writeFile(
      join(work, "home", ".gemini", "settings.json"),
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    await rm(work, { recursive: true, force: true });
  });

  it("gemini -p --yolo completes a task with its own write_file tool", async () => {
    const { stdout, stderr, code } = await new Promise<{
      stdout: string;
      stderr: string;
      code: number | null;
    }>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          GEMINI_JS,
          "-p",
          "Create marker.txt containing hi",
          "--yolo",
          "-m",
          "gemini-2.5-pro",
          "--output-format",
          "json",
        ],
        {
          cwd: join(work, "proj"),
          env: {
            PATH: process.env.PATH ?? "",
            HOME: join(work, "home"),
            TERM: "dumb",
            LANG: "C.UTF-8",
            TMPDIR: join(work, "tmp"),
            GEMINI_API_KEY: "gemini-cli-key",
            GOOGLE_GEMINI_BASE_URL: e2e.url,
            GEMINI_CLI_TRUST_WORKSPACE: "true",
          },
          timeout: 90_000,
        },
        (error, out, err) => resolve({ stdout: out, stderr: err, code: error ? (error.code as number) : 0 }),
      );
      child.stdin?.end();
    });
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    expect(await readFile(marker, "utf8")).toBe("hi\n");
    const result = JSON.parse(stdout) as { response: string };
    expect(result.response).toBe("Done: marker.txt holds hi.");
    // One model turn for the call, one for the answer: no re-requests (every stream ended with a finishReason).
    expect(e2e.provider.requests).toHaveLength(2);
    // The CLI echoed the gateway's call id back with the tool's output.
    const last = lastUserText(e2e.provider.requests.at(-1)!);
    expect(last).toMatch(/\[function_call_output call_id=call_\w+ output=/);
  });
});
