/**
 * A call to a custom (freeform) tool travels through the core as the arguments `{"input": "<raw>"}`,
 * so the parser, gate, native backends and history treat it like any call. Surfaces wrap and
 * unwrap it here and nowhere else.
 */

/** The canonical arguments of a custom call with this raw input. */
export const customCallArguments = (input: string): string => JSON.stringify({ input });

/**
 * The raw input of a custom call's arguments: `input` when it is a string; other JSON (a native
 * model that wrote other keys) as it is; "" for text that is not JSON yet (a call cut off midway).
 */
export const customCallInput = (argumentsJson: string): string => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return "";
  }
  const input =
    typeof parsed === "object" && parsed !== null ? (parsed as { input?: unknown }).input : undefined;
  return typeof input === "string" ? input : argumentsJson;
};
