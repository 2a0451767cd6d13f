/**
 * Renders a call as Obsidian Copilot's legacy `<use_tool>` block (copilot 3.0–3.1): one child tag per
 * argument; strings verbatim (Copilot never escaped values), arrays/objects as JSON.
 */
export const renderUseToolXml = (name: string, argumentsJson: string): string => {
  let args: unknown;
  try {
    args = JSON.parse(argumentsJson);
  } catch {
    args = {};
  }
  const lines = ["<use_tool>", `<name>${name}</name>`];
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    for (const [key, value] of Object.entries(args)) {
      lines.push(`<${key}>${typeof value === "string" ? value : JSON.stringify(value)}</${key}>`);
    }
  }
  lines.push("</use_tool>");
  return lines.join("\n");
};
