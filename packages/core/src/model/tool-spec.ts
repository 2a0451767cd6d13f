/** A JSON Schema object as sent by clients; treated as opaque data except by the validator. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The canonical function tool, whatever wire shape it arrived in (Responses, Chat, legacy functions). */
export interface ToolSpec {
  readonly name: string;
  readonly description?: string | undefined;
  readonly parameters?: JsonSchema | undefined;
  /** `strict: true` only; `false`, `null` (LangChain/Copilot) and absent all mean soft validation. */
  readonly strict: boolean;
  /**
   * A custom (freeform) tool: its input is one raw string, not JSON. The core carries a call to it
   * as the arguments `{"input": "<raw string>"}`.
   */
  readonly custom?: boolean | undefined;
  /** A custom tool's input grammar, shown verbatim to the model (nothing here enforces it). */
  readonly grammar?: CustomToolGrammar | undefined;
}

export interface CustomToolGrammar {
  readonly syntax: "lark" | "regex";
  readonly definition: string;
}

export type ToolChoice =
  | { readonly type: "auto" }
  | { readonly type: "none" }
  | { readonly type: "required" }
  | { readonly type: "tool"; readonly name: string };

export interface ToolPolicy {
  readonly tools: ReadonlyArray<ToolSpec>;
  readonly choice: ToolChoice;
  /** `parallel_tool_calls`; false means at most one call per turn. */
  readonly parallel: boolean;
  /** The client did not set `parallel_tool_calls`: the deployment's default applies. */
  readonly parallelDefaulted?: boolean | undefined;
  /** The client's own cap on calls this turn (Responses `max_tool_calls`); later calls are dropped. */
  readonly maxCalls?: number | undefined;
  /** `allowed_tools` on any surface: only these of `tools` are offered (undefined = all of them). */
  readonly allowed?: ReadonlyArray<string> | undefined;
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
