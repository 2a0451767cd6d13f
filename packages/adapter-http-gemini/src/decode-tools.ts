import {
  invalidRequest,
  type JsonSchema,
  TOOL_NAME_PATTERN,
  type ToolChoice,
  type ToolPolicy,
  type ToolSpec,
} from "@proxy/core";
import { objectAt, oneOf, optionalList, optionalObject, optionalString, stringAt } from "./fields.js";
import { toJsonSchema } from "./schema-dialect.js";

/**
 * Google's hosted tools: accepted so that clients sending them (the Gemini CLI's web-search
 * sub-request sends `googleSearch`) keep working, and never offered, since nothing here can run them.
 */
const HOSTED_TOOLS = new Set([
  "googleSearch",
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
  if (!TOOL_NAME_PATTERN.test(name))
    throw invalidRequest(
      `Invalid value at '${param}.name': function names must be 1-64 characters of a-z, A-Z, 0-9, underscores and dashes.`,
      `${param}.name`,
    );
  if (d.parameters != null && d.parametersJsonSchema != null)
    throw invalidRequest(
      `Invalid value at '${param}': give either 'parameters' or 'parametersJsonSchema', not both.`,
      `${param}.parametersJsonSchema`,
    );
  let parameters: JsonSchema | undefined;
  if (d.parameters != null) parameters = toJsonSchema(d.parameters, `${param}.parameters`);
  else if (d.parametersJsonSchema != null)
    parameters = toJsonSchema(d.parametersJsonSchema, `${param}.parametersJsonSchema`);
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
  const seen = new Set<string>();
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
      const spec = declaration(d, `tools[${i}].functionDeclarations[${j}]`, strict);
      if (seen.has(spec.name))
        throw invalidRequest(
          `Duplicate function declaration '${spec.name}'.`,
          `tools[${i}].functionDeclarations[${j}].name`,
        );
      seen.add(spec.name);
      specs.push(spec);
    });
  });

  const allowedParam = "toolConfig.functionCallingConfig.allowedFunctionNames";
  const allowed = optionalList(config?.allowedFunctionNames, allowedParam)?.map((n, i) => {
    const name = stringAt(n, `${allowedParam}[${i}]`);
    if (!seen.has(name))
      throw invalidRequest(
        `Invalid value at '${allowedParam}[${i}]': '${name}' is not a declared function.`,
        `${allowedParam}[${i}]`,
      );
    return name;
  });
  if (allowed !== undefined && allowed.length > 0 && mode !== "ANY")
    throw invalidRequest(`'${allowedParam}' may only be set when the mode is ANY.`, allowedParam);
  if (mode === "ANY" && specs.length === 0)
    throw invalidRequest(
      "Function calling mode ANY needs at least one function declaration.",
      "toolConfig.functionCallingConfig.mode",
    );

  let choice: ToolChoice = { type: "auto" };
  let tools: ReadonlyArray<ToolSpec> = specs;
  if (mode === "NONE") choice = { type: "none" };
  else if (mode === "ANY") {
    const names = allowed === undefined || allowed.length === 0 ? undefined : new Set(allowed);
    if (names !== undefined) tools = specs.filter((s) => names.has(s.name));
    choice = names?.size === 1 ? { type: "tool", name: [...names][0] as string } : { type: "required" };
  }
  return { tools, choice, parallel: true };
};
