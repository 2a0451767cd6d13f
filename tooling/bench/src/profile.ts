import type { ServerChild } from "./child/protocol.js";
import { mirrorScenario } from "./http-overhead.js";
import { runLoad } from "./load.js";
import type { Scenario } from "./scenarios.js";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>;
  readonly samples: ReadonlyArray<number>;
  readonly timeDeltas: ReadonlyArray<number>;
}

export interface ProfileRow {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly byGroup: ReadonlyArray<ProfileRow>;
  readonly topFunctions: ReadonlyArray<ProfileRow>;
}

/** Which code a frame belongs to: a workspace package, an npm package, Node itself, or V8. */
export const groupOf = (url: string, functionName: string): string => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm) return pnpm[1] as string;
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (mod) return mod[1] as string;
  const ws = /\/(packages|apps|tooling)\/([^/]+)\/src\/(?:([^/]+)\/)?/.exec(url);
  if (ws) return `${ws[1]}/${ws[2]}${ws[3] && !ws[3].includes(".") ? `/${ws[3]}` : ""}`;
  if (url.startsWith("node:")) return "node:internal";
  return url;
};

const IDLE = new Set(["(idle)", "(program)"]);

/** Self time per function and per code group, idle excluded, sorted. */
export const summarizeProfile = (profile: CpuProfile, top = 15): ProfileSummary => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const fns = new Map<string, number>();
  const groups = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)?.callFrame;
    // Idle time, and the inspector session that records the profile, are not the server's work.
    if (!frame || IDLE.has(frame.functionName) || frame.url.startsWith("node:inspector")) continue;
    total += us;
    const short = frame.url.replace(/^.*\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|work\/main\/)/, "");
    // Line numbers of tsx-transpiled workspace sources do not match the .ts files; keep them for npm code only.
    const where = short === "" ? "" : /\.ts$/.test(short) ? ` ${short}` : ` ${short}:${frame.lineNumber + 1}`;
    const fn = `${frame.functionName || "(anonymous)"}${where}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const g = groupOf(frame.url, frame.functionName);
    groups.set(g, (groups.get(g) ?? 0) + us);
  }
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: total > 0 ? us / total : 0 }));
  return { totalMs: total / 1000, byGroup: rows(groups), topFunctions: rows(fns) };
};

/**
 * One extra run of each server with V8's CPU profiler on for the load window only (not part of
 * the measured figures: profiling slows both sides), and a self-time summary of each.
 */
export const profileScenario = async (
  baseline: ServerChild,
  gateway: ServerChild,
  scenario: Scenario,
  connections: number,
  seconds: number,
) => {
  await mirrorScenario(baseline, gateway, scenario);
  const profiled = async (server: ServerChild) => {
    await server.request({ type: "profile-start" });
    await runLoad(server, scenario, connections, seconds);
    return summarizeProfile(await server.request<CpuProfile>({ type: "profile-stop" }));
  };
  const baselineProfile = await profiled(baseline);
  const gatewayProfile = await profiled(gateway);
  return { scenario: scenario.id, connections, seconds, baseline: baselineProfile, gateway: gatewayProfile };
};
