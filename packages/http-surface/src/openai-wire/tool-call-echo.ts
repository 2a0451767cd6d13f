import { renderUseToolXml } from "@proxy/core";
import type { OutputMode } from "@proxy/core/gateway";

/**
 * The text a finished tool call is echoed as, for clients that read calls from the answer's text
 * (`obsidian-xml`: Obsidian Copilot 3.0–3.1's `<use_tool>` block); `undefined` in every other mode.
 * Both OpenAI surfaces echo through this one function, each in its own text frames.
 */
export const toolCallEcho = (
  outputMode: OutputMode,
  name: string,
  argumentsJson: string,
): string | undefined =>
  outputMode === "obsidian-xml"
    ? renderUseToolXml(name, argumentsJson === "" ? "{}" : argumentsJson)
    : undefined;
