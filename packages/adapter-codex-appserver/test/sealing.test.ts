import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  resolveCodexCommand,
  SEALED_APP_SERVER_CONFIG,
  sealCatalog,
  sealedEnvironment,
  sealedThreadConfig,
} from "../src/index.js";
import { silentLogger } from "../src/logger.js";
import {
  hasProcfs,
  type ProcessTreeReport,
  type RecordedRequest,
  reapedChildFaults,
  type ScriptedResponse,
  watchProcessTree,
} from "../src/testing/index.js";
import { startAppServer } from "../src/transport/app-server-process.js";
import {
  collect,
  lastUserText,
  type RealHarness,
  realEnv,
  request,
  startRealHarness,
  textOf,
} from "./helpers.js";

const patch = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+pwned\n*** End Patch\n`;

/** A model that tries every way codex 0.169 has to touch the host, each aimed at its own marker file. */
const attack = (dir: string): ScriptedResponse => ({
  items: [
    fn("call_exec", "exec_command", { cmd: `touch ${join(dir, "exec_command")}` }),
    fn("call_shell", "shell", { command: ["touch", join(dir, "shell")] }),
    fn("call_shell_command", "shell_command", { command: `touch ${join(dir, "shell_command")}` }),
    fn("call_patch_fn", "apply_patch", { input: patch(join(dir, "apply_patch_function")) }),
    {
      type: "custom_tool_call",
      id: "ctc_exec",
      call_id: "call_code_mode",
      name: "exec",
      input: [
        `await tools.exec_command({ cmd: "touch ${join(dir, "code_mode_exec")}" });`,
        `await tools.apply_patch(${JSON.stringify(patch(join(dir, "code_mode_patch")))});`,
      ].join("\n"),
    },
    {
      type: "custom_tool_call",
      id: "ctc_patch",
      call_id: "call_patch_custom",
      name: "apply_patch",
      input: patch(join(dir, "apply_patch_custom")),
    },
  ],
});
const fn = (callId: string, name: string, args: object) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});
const CALL_IDS = [
  "call_exec",
  "call_shell",
  "call_shell_command",
  "call_patch_fn",
  "call_code_mode",
  "call_patch_custom",
];

type Item = { type?: string; call_id?: string; output?: unknown };
const toolOutputs = (r: RecordedRequest) =>
  ((r.body.input ?? []) as Item[]).filter(
    (i) => i.type === "function_call_output" || i.type === "custom_tool_call_output",
  );

/** The app-server processes this test process started (children whose command line says so). */
const appServerPids = (): number[] =>
  readdirSync(`/proc/${process.pid}/task`)
    .flatMap((t) => readFileSync(`/proc/${process.pid}/task/${t}/children`, "utf8").split(" "))
    .filter(Boolean)
    .map(Number)
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("app-server"));

let h: RealHarness;
let markers: string;
let appServer: number | undefined;
let watch: ReturnType<typeof watchProcessTree> | undefined;
beforeAll(async () => {
  markers = mkdtempSync(join(tmpdir(), "seal-markers-"));
  h = await startRealHarness();
  if (hasProcfs()) {
    appServer = appServerPids()[0];
    watch = appServer === undefined ? undefined : watchProcessTree(appServer);
  }
  // First sampling step: the attack. Once codex has answered the calls: a plain text reply.
  h.provider.script((r) => (toolOutputs(r).length > 0 ? { text: "nothing happened" } : attack(markers)));
}, 60_000);
afterAll(async () => {
  watch?.stop();
  await h?.close();
  rmSync(markers, { recursive: true, force: true });
});

describe("sealing: a model cannot run anything on the gateway host", () => {
  for (const model of ["scripted-model", "gpt-6.1-sol", "gpt-5.5"]) {
    it(`every tool call is refused and no marker appears (${model})`, async () => {
      const before = h.provider.requests.length;
      const events = await collect(
        h.backend.stream(request({ model }), { signal: new AbortController().signal }),
      );
      expect(textOf(events)).toBe("nothing happened");
      const followUps = h.provider.requests.slice(before).filter((r) => toolOutputs(r).length > 0);
      expect(followUps).toHaveLength(1);
      const outputs = toolOutputs(followUps[0] as RecordedRequest);
      expect(outputs.map((o) => o.call_id).sort()).toEqual([...CALL_IDS].sort());
      for (const o of outputs) expect(String(o.output)).toMatch(/^unsupported (custom tool )?call: /);
      expect(readdirSync(markers)).toEqual([]);
    });
  }

  it("native mode: with client tools on the thread (one named exec_command), every built-in call is still refused", async () => {
    const before = h.provider.requests.length;
    const clientTool = (name: string) => ({ name, parameters: { type: "object" }, strict: false });
    const tools = {
      tools: [clientTool("exec_command"), clientTool("get_weather")],
      choice: { type: "auto" } as const,
      parallel: true,
    };
    const events = await collect(
      h.backend.stream(request({ tools }), { signal: new AbortController().signal }),
    );
    expect(textOf(events)).toBe("nothing happened");
    // Built-in names are not the client's tools: codex answers them itself, nothing reaches the client.
    expect(events.filter((e) => e.type === "tool-call-end")).toEqual([]);
    const first = h.provider.requests[before] as RecordedRequest;
    expect(((first.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name)).toEqual([
      "exec_command_1",
      "get_weather",
    ]);
    const followUp = h.provider.requests.slice(before).find((r) => toolOutputs(r).length > 0);
    const outputs = toolOutputs(followUp as RecordedRequest);
    expect(outputs.map((o) => o.call_id).sort()).toEqual([...CALL_IDS].sort());
    for (const o of outputs) expect(String(o.output)).toMatch(/^unsupported (custom tool )?call: /);
    expect(readdirSync(markers)).toEqual([]);
  });

  it("a continued thread stays sealed, and one where codex answered calls itself is not continued", async () => {
    const before = h.provider.requests.length;
    h.provider.script((r) =>
      toolOutputs(r).length > 0
        ? { text: "nothing happened" }
        : lastUserText(r.body) === "attack"
          ? attack(markers)
          : { text: "hello" },
    );
    try {
      const run = (req: Parameters<typeof request>[0]) =>
        collect(
          h.backend.stream(request({ partition: "seal", ...req }), { signal: new AbortController().signal }),
        );
      const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });
      const said = (text: string) => ({
        role: "assistant" as const,
        content: [{ type: "text" as const, text }],
      });
      await run({ input: [{ type: "text", text: "hi" }] });
      const attacked = await run({
        history: [user("hi"), said("hello")],
        input: [{ type: "text", text: "attack" }],
      });
      expect(textOf(attacked)).toBe("nothing happened");
      await run({
        history: [user("hi"), said("hello"), user("attack"), said("nothing happened")],
        input: [{ type: "text", text: "again" }],
      });
      const sent = h.provider.requests.slice(before);
      const keys = sent.map((r) => r.body.prompt_cache_key);
      // hi → attack (two upstream requests: the calls, then codex's refusals) on one thread…
      expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
      for (const o of toolOutputs(sent[2] as RecordedRequest))
        expect(String(o.output)).toMatch(/^unsupported (custom tool )?call: /);
      // …and the refusals the client never saw are not continued: "again" starts a fresh thread.
      expect(keys[3]).not.toBe(keys[0]);
      expect(readdirSync(markers)).toEqual([]);
    } finally {
      h.provider.script((r) => (toolOutputs(r).length > 0 ? { text: "nothing happened" } : attack(markers)));
    }
  });

  it.runIf(hasProcfs())(
    "the sealed app-server ran no process (startup and every turn) and connected only to its provider",
    () => {
      expect(appServer).toBeDefined();
      const report = watch?.stop() as ProcessTreeReport;
      watch = undefined;
      expect(h.provider.requests.length).toBeGreaterThanOrEqual(6);
      expect(report.processes).toEqual([]);
      expect(reapedChildFaults(appServer as number)).toBe(0);
      const provider = new URL(h.provider.url);
      expect(report.remotes.length).toBeGreaterThan(0);
      for (const remote of report.remotes) expect(remote).toBe(`tcp ${provider.hostname}:${provider.port}`);
    },
  );

  it("control: the same scripted attack does write a marker when codex is not sealed", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "unsealed-"));
    const proc = await startAppServer({
      command: resolveCodexCommand(undefined, realEnv(h.home.path)),
      args: ["app-server"],
      env: realEnv(h.home.path),
      logger: silentLogger,
      clientName: "seal-control",
      clientVersion: "0",
      startTimeoutMs: 30_000,
    });
    try {
      h.provider.script((r) => (toolOutputs(r).length > 0 ? { text: "ran" } : attack(cwd)));
      // Default config (tools on) and a sandbox that may write only inside `cwd`.
      const thread = await proc.connection.request<{ thread: { id: string } }>("thread/start", {
        model: "scripted-model",
        cwd,
        sandbox: "workspace-write",
        approvalPolicy: "never",
        ephemeral: true,
      });
      const completed = new Promise<void>((resolve) =>
        proc.subscribe(thread.thread.id, (method) => method === "turn/completed" && resolve()),
      );
      await proc.connection.request("turn/start", {
        threadId: thread.thread.id,
        input: [{ type: "text", text: "go" }],
      });
      await completed;
      expect(existsSync(join(cwd, "exec_command"))).toBe(true);
      // The process counter above sees an unsealed codex's executions (its startup probes, the attack).
      if (hasProcfs() && proc.pid !== undefined) expect(reapedChildFaults(proc.pid)).toBeGreaterThan(0);
    } finally {
      h.provider.script((r) => (toolOutputs(r).length > 0 ? { text: "nothing happened" } : attack(markers)));
      await proc.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("the sealed catalog strips every tool knob from every bundled model", () => {
    const command = resolveCodexCommand(undefined, realEnv(h.home.path));
    const bundled = JSON.parse(execFileSync(command, ["debug", "models", "--bundled"], { encoding: "utf8" }));
    const sealed = sealCatalog(bundled);
    expect(sealed.models.map((m) => m.slug)).toContain("gpt-6.1-sol");
    for (const m of sealed.models) {
      expect(m).toMatchObject({
        tool_mode: "direct",
        multi_agent_version: null,
        apply_patch_tool_type: null,
        experimental_supported_tools: [],
        shell_type: "disabled",
      });
    }
    expect(() => sealCatalog({ models: [] })).toThrow();
  });

  it("exports the exact no-tools thread config of reference §1.5 plus agents.enabled=false", () => {
    expect(sealedThreadConfig("/x/models.sealed.json")).toEqual({
      "features.shell_tool": false,
      "features.unified_exec": false,
      "features.view_image": false,
      web_search: "disabled",
      "features.multi_agent": false,
      "features.goals": false,
      "tools.experimental_request_user_input": { enabled: false },
      "features.apps": false,
      "features.plugins": false,
      "features.skill_search": false,
      "features.tool_suggest": false,
      "features.sleep_tool": false,
      "features.image_generation": false,
      "features.shell_snapshot": false,
      include_environment_context: false,
      "skills.include_instructions": false,
      include_permissions_instructions: false,
      include_apps_instructions: false,
      include_collaboration_mode_instructions: false,
      "agents.enabled": false,
      model_catalog_json: "/x/models.sealed.json",
    });
  });

  it("gives codex only allow-listed variables, an empty PATH, and no plugin sync or shell snapshot", () => {
    const source = {
      PATH: "/usr/bin:/bin",
      HOME: "/home/op",
      CODEX_HOME: "/home/op/.codex",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      OPENAI_API_KEY: "sk-codex",
      PROXY_API_KEYS: "sk-gateway",
      AWS_SECRET_ACCESS_KEY: "aws",
      MY_PROVIDER_KEY: "custom",
    };
    expect(sealedEnvironment(source, [], "/private/empty")).toEqual({
      PATH: "/private/empty",
      HOME: "/home/op",
      CODEX_HOME: "/home/op/.codex",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      OPENAI_API_KEY: "sk-codex",
    });
    expect(sealedEnvironment(source, ["MY_PROVIDER_KEY", "PATH"], "/private/empty")).toMatchObject({
      PATH: "/usr/bin:/bin",
      MY_PROVIDER_KEY: "custom",
    });
    expect(SEALED_APP_SERVER_CONFIG).toEqual([
      "features.plugins=false",
      "features.shell_snapshot=false",
      "analytics.enabled=false",
    ]);
  });
});
