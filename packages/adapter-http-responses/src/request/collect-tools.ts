import type { ToolSource } from "./map-input.js";

/**
 * Function tools the backend can call, gathered from `tools`, from `namespace` tools and from
 * codex's `additional_tools` input items. Everything else (`custom`, `web_search`, `tool_search`,
 * `file_search`, `mcp`, …) is set aside: accepted, documented as unsupported, never rendered.
 */
export interface CollectedTools {
  /** Raw function tools (either wire shape) for core's `decodeToolPolicy`. */
  readonly raw: ReadonlyArray<unknown>;
  /** Where each raw tool came from, e.g. `tools[4].tools[1]` (`decodeToolPolicy`'s `toolPaths`). */
  readonly paths: ReadonlyArray<string>;
  /** Tool name → namespace, for tools exposed from inside a `namespace` tool. */
  readonly namespaces: ReadonlyMap<string, string>;
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const nameOf = (tool: Record<string, unknown>): unknown =>
  tool.name ?? (isRecord(tool.function) ? tool.function.name : undefined);

export const collectFunctionTools = (
  topLevel: ReadonlyArray<unknown> | null | undefined,
  extra: ReadonlyArray<ToolSource>,
): CollectedTools => {
  const raw: unknown[] = [];
  const paths: string[] = [];
  const namespaces = new Map<string, string>();
  const seen = new Set<unknown>();

  const add = (tool: unknown, path: string, namespace: string | undefined, dedup: boolean): void => {
    const name = isRecord(tool) ? nameOf(tool) : undefined;
    // Tools from namespaces and input carriers may repeat a top-level tool: first one wins.
    if (dedup && seen.has(name)) return;
    seen.add(name);
    raw.push(tool);
    paths.push(path);
    if (namespace !== undefined && typeof name === "string") namespaces.set(name, namespace);
  };

  const walk = (tools: ReadonlyArray<unknown>, base: string, fromCarrier: boolean): void => {
    for (const [i, tool] of tools.entries()) {
      const path = `${base}[${i}]`;
      if (!isRecord(tool)) {
        // Non-objects go to decodeToolPolicy, which reports them with their path.
        add(tool, path, undefined, false);
      } else if (tool.type === "function" || (tool.type === undefined && isRecord(tool.function))) {
        add(tool, path, undefined, fromCarrier);
      } else if (tool.type === "namespace" && Array.isArray(tool.tools)) {
        const namespace = typeof tool.name === "string" ? tool.name : undefined;
        for (const [j, inner] of tool.tools.entries())
          if (isRecord(inner) && inner.type === "function")
            add(inner, `${path}.tools[${j}]`, namespace, true);
      }
    }
  };

  walk(topLevel ?? [], "tools", false);
  for (const source of extra) walk(source.tools, source.path, true);
  return { raw, paths, namespaces };
};

/** Tool choices naming hosted tools we do not run; degrade to `auto` rather than fail the client. */
const HOSTED_CHOICES = new Set([
  "web_search",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "file_search",
  "computer_use_preview",
  "computer_use",
  "image_generation",
  "code_interpreter",
  "mcp",
  "shell",
  "apply_patch",
  "tool_search",
]);

/**
 * Responses-only `tool_choice` shapes → what `decodeToolPolicy` understands (`allowed_tools` it
 * reads itself, the same way for every surface).
 */
export const normalizeToolChoice = (choice: unknown): unknown => {
  if (!isRecord(choice)) return choice;
  if (choice.type === "custom") return { type: "function", name: choice.name };
  if (typeof choice.type === "string" && HOSTED_CHOICES.has(choice.type)) return "auto";
  return choice;
};
