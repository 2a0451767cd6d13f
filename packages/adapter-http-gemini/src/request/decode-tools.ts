import {
  findToolPolicyProblem,
  type GatewayError,
  type HostedTools,
  invalidRequest,
  type JsonSchema,
  type ToolChoice,
  type ToolPolicy,
  type ToolPolicyProblem,
  type ToolSpec,
} from "@proxy/core";
import { objectAt, oneOf, optionalList, optionalObject, optionalString, stringAt } from "./fields.js";
import { toJsonSchema } from "./schema-dialect.js";

/**
 * Google's hosted tools: accepted so that clients sending them keep working. `googleSearch`
 * (`google_search`) is the hosted search codex's provider runs (see `decodeGeminiHostedTools`); the
 * others are never offered, since nothing here can run them.
 */
const HOSTED_TOOLS = new Set([
  "googleSearch",
  "google_search",
  "googleSearchRetrieval",
  "urlContext",
  "codeExecution",
  "computerUse",
  "fileSearch",
  "googleMaps",
  "retrieval",
  "mcpServers",
  "enterpriseWebSearch",
]);

const MODES = ["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"] as const;

const declaration = (raw: unknown, param: string, strict: boolean): ToolSpec => {
  const d = objectAt(raw, param);
  const name = stringAt(d.name, `${param}.name`);
  if (d.parameters != null && d.parametersJsonSchema != null)
    throw invalidRequest(
      `Invalid value at '${param}': give either 'parameters' or 'parametersJsonSchema', not both.`,
      `${param}.parametersJsonSchema`,
    );
  let parameters: JsonSchema | undefined;
  if (d.parameters != null) parameters = toJsonSchema(d.parameters, `${param}.parameters`);
  else if (d.parametersJsonSchema != null)
    parameters = toJsonSchema(d.parametersJsonSchema, `${param}.parametersJsonSchema`);
  // `false` is a JSON Schema, one no arguments satisfy: the function could never be called.
  if ((parameters as unknown) === false) {
    const at = d.parameters != null ? `${param}.parameters` : `${param}.parametersJsonSchema`;
    throw invalidRequest(
      `Invalid value at '${at}': the schema of function '${name}' is false, which no arguments satisfy.`,
      at,
    );
  }
  return { name, description: optionalString(d.description, `${param}.description`), parameters, strict };
};

/**
 * `tools[].functionDeclarations` and `toolConfig.functionCallingConfig` → core's canonical tool
 * policy. `ANY` with one allowed name forces that function; with several, a call among them is
 * required and only those are offered. `VALIDATED` is `AUTO` with strictly validated arguments.
 */
export const decodeGeminiTools = (rawTools: unknown, rawConfig: unknown): ToolPolicy => {
  const config = optionalObject(
    optionalObject(rawConfig, "toolConfig")?.functionCallingConfig,
    "toolConfig.functionCallingConfig",
  );
  const mode =
    config?.mode == null ? "AUTO" : oneOf(config.mode, "toolConfig.functionCallingConfig.mode", MODES);
  const strict = mode === "VALIDATED";
  const specs: ToolSpec[] = [];
  const paths: string[] = [];
  (optionalList(rawTools, "tools") ?? []).forEach((entry, i) => {
    const tool = objectAt(entry, `tools[${i}]`);
    for (const key of Object.keys(tool)) {
      if (key === "functionDeclarations") continue;
      if (!HOSTED_TOOLS.has(key))
        throw invalidRequest(
          `Invalid JSON payload received. Unknown name "${key}" at 'tools[${i}]'.`,
          `tools[${i}].${key}`,
        );
    }
    (optionalList(tool.functionDeclarations, `tools[${i}].functionDeclarations`) ?? []).forEach((d, j) => {
      const path = `tools[${i}].functionDeclarations[${j}]`;
      specs.push(declaration(d, path, strict));
      paths.push(path);
    });
  });

  const allowedParam = "toolConfig.functionCallingConfig.allowedFunctionNames";
  const allowed = optionalList(config?.allowedFunctionNames, allowedParam)?.map((n, i) => {
    const name = stringAt(n, `${allowedParam}[${i}]`);
    if (!specs.some((s) => s.name === name))
      throw invalidRequest(
        `Invalid value at '${allowedParam}[${i}]': '${name}' is not a declared function.`,
        `${allowedParam}[${i}]`,
      );
    return name;
  });
  if (allowed !== undefined && allowed.length > 0 && mode !== "ANY")
    throw invalidRequest(`'${allowedParam}' may only be set when the mode is ANY.`, allowedParam);

  let choice: ToolChoice = { type: "auto" };
  let names: ReadonlySet<string> | undefined;
  if (mode === "NONE") choice = { type: "none" };
  else if (mode === "ANY") {
    names = allowed === undefined || allowed.length === 0 ? undefined : new Set(allowed);
    choice = names?.size === 1 ? { type: "tool", name: [...names][0] as string } : { type: "required" };
  }
  const problem = findToolPolicyProblem({
    tools: specs,
    choice,
    parallel: true,
    allowed: names === undefined ? undefined : [...names],
  });
  if (problem !== undefined) throw geminiToolError(problem, paths);
  const tools = names === undefined ? specs : specs.filter((s) => names.has(s.name));
  return { tools, choice, parallel: true };
};

/** Core's canonical policy problem in Google's words. */
const geminiToolError = (problem: ToolPolicyProblem, paths: ReadonlyArray<string>): GatewayError => {
  switch (problem.kind) {
    case "invalid-name":
      return invalidRequest(
        `Invalid value at '${paths[problem.index]}.name': function names must be 1-64 characters of a-z, A-Z, 0-9, underscores and dashes.`,
        `${paths[problem.index]}.name`,
      );
    case "duplicate-name":
      return invalidRequest(
        `Duplicate function declaration '${problem.name}'.`,
        `${paths[problem.index]}.name`,
      );
    case "forced-tool-not-offered":
    case "required-without-tools":
      return invalidRequest(
        "Function calling mode ANY needs at least one function declaration.",
        "toolConfig.functionCallingConfig.mode",
      );
  }
};

const SEARCH_KEYS = ["googleSearch", "google_search"] as const;

/**
 * The hosted tools a Gemini request asks for: a `tools[]` entry with `googleSearch` (or its proto
 * name `google_search`). Its `timeRangeFilter` has no codex equivalent and is not used.
 */
export const decodeGeminiHostedTools = (rawTools: unknown): HostedTools => {
  const tools = Array.isArray(rawTools) ? rawTools : [];
  for (const [i, entry] of tools.entries()) {
    if (typeof entry !== "object" || entry === null) continue;
    const key = SEARCH_KEYS.find((k) => k in entry);
    if (key !== undefined) return { webSearch: { tool: key, param: `tools[${i}].${key}` } };
  }
  return {};
};
