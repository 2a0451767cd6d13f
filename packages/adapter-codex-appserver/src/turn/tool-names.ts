/**
 * Names codex keeps for itself: a dynamic tool with one of these names is silently dropped from
 * the model's tool list (verified for `exec_command` on 0.169, even with the shell disabled).
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(["exec_command"]);

/** What codex accepts as a dynamic tool name (it rejects `thread/start` otherwise). */
const DYNAMIC_TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

export interface ToolNames {
  /** The name codex and the model use for a client tool (or a tool named in history). */
  toCodex(clientName: string): string;
  /** The client's name for a dynamic tool codex routed back; undefined if it is not one of ours. */
  toClient(codexName: string): string | undefined;
}

/**
 * A deterministic, reversible renaming of client tools for codex. Names codex accepts and does
 * not reserve stay as they are; any other becomes `<name, invalid characters as _>_<n>` with the
 * smallest n that collides with nothing the client uses. The mapping depends only on the names
 * in the request (tools first, then history), so a follow-up request maps its history exactly as
 * the earlier request mapped the tools, and the model sees one consistent name per tool.
 */
export const createToolNames = (
  toolNames: ReadonlyArray<string>,
  historyNames: ReadonlyArray<string> = [],
): ToolNames => {
  const keeps = (name: string) => DYNAMIC_TOOL_NAME.test(name) && !RESERVED_TOOL_NAMES.has(name);
  const taken = new Set([...toolNames, ...historyNames].filter(keeps));
  const forward = new Map<string, string>();
  const assign = (name: string): string => {
    const known = forward.get(name);
    if (known !== undefined) return known;
    let mapped = name;
    if (!keeps(name)) {
      const base = name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
      let n = 1;
      while (taken.has(`${base}_${n}`) || RESERVED_TOOL_NAMES.has(`${base}_${n}`)) n++;
      mapped = `${base}_${n}`;
      taken.add(mapped);
    }
    forward.set(name, mapped);
    return mapped;
  };
  const reverse = new Map(toolNames.map((name) => [assign(name), name]));
  for (const name of historyNames) assign(name);
  return { toCodex: assign, toClient: (codexName) => reverse.get(codexName) };
};
