import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexExec } from "./codex-exec-client.js";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

// codex exec is the client here (it runs the tool on ITS side, in its own temp dir); the gateway's
// backend is a second, sealed codex app-server talking to the scripted model.

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
    const work = await mkdtemp(join(tmpdir(), "exec-work-"));
    dirs.push(work);
    const run = await runCodexExec(e2e.url, work, dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Marker written.");
    expect(await readFile(join(work, "marker.txt"), "utf8")).toBe("from-gateway\n");
    const followUp = e2e.provider.requests.at(-1)!;
    expect(lastUserText(followUp)).toMatch(/\[function_call_output call_id="call_\w+" output="/);
  });
});

describe("codex exec → gateway → real codex app-server, native tool mode", { timeout: 180_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  const dirs: string[] = [];
  // codex exec offers its own `exec_command`, a name the gateway's codex reserves: the model sees
  // it renamed, and codex exec gets its own name back.
  const nativeModel = (request: RecordedRequest) => {
    const input = (request.body.input ?? []) as Array<{ type?: string; output?: unknown }>;
    const outputs = input.filter((i) => i.type === "function_call_output");
    if (outputs.some((o) => String(o.output).includes("Process exited with code 0")))
      return { chunks: ["Native ", "marker written."] };
    const names = ((request.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
    const exec = names.find((n) => n?.startsWith("exec_command")) ?? "missing";
    return {
      items: [
        {
          type: "function_call",
          id: "fc_native_exec",
          call_id: "call_native_exec",
          name: exec,
          arguments: JSON.stringify({ cmd: "echo from-native > marker.txt" }),
        },
      ],
    };
  };
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "native" });
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("runs the model's native call under codex exec's own tool name and feeds the output back natively", async () => {
    const work = await mkdtemp(join(tmpdir(), "exec-work-"));
    dirs.push(work);
    const run = await runCodexExec(e2e.url, work, dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Native marker written.");
    expect(await readFile(join(work, "marker.txt"), "utf8")).toBe("from-native\n");
    const first = e2e.provider.requests[0] as RecordedRequest;
    const offered = ((first.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
    expect(offered).toContain("exec_command_1");
    expect(offered).not.toContain("exec_command");
    const followUp = e2e.provider.requests.at(-1) as RecordedRequest;
    const items = (followUp.body.input ?? []) as Array<{ type?: string; name?: string; call_id?: string }>;
    expect(items.find((i) => i.type === "function_call")).toMatchObject({
      name: "exec_command_1",
      call_id: "call_native_exec",
    });
    expect(items.at(-1)).toMatchObject({ type: "function_call_output", call_id: "call_native_exec" });
  });
});
