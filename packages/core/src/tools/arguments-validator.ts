import type { ValidateFunction } from "ajv";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema, ToolSpec } from "../model/tool-spec.js";
import type { ArgumentsValidator } from "../parser/parser-types.js";

/** The validator plus what it learned about schemas it could not compile. */
export interface ToolArgumentsValidator extends ArgumentsValidator {
  /**
   * Why a tool's schema cannot be compiled (its arguments are then accepted unchecked), or
   * undefined. Compiles the schema if that has not happened yet.
   */
  schemaError(toolName: string): string | undefined;
}

type Compiled = { readonly check: ValidateFunction } | { readonly error: string } | { readonly any: true };

const OLD_DRAFT = /json-schema\.org\/draft-0[4-7]\/schema/;

/**
 * Checks call arguments against each tool's JSON Schema with ajv. Schemas declaring draft-07
 * (or older) use ajv's draft-07 engine, everything else draft 2020-12 (what Copilot declares).
 * Each schema is compiled lazily, once per validator instance; a tool without parameters
 * accepts any object.
 */
export function createArgumentsValidator(tools: ReadonlyArray<ToolSpec>): ToolArgumentsValidator {
  const specs = new Map(tools.map((tool) => [tool.name, tool] as const));
  const compiled = new Map<string, Compiled>();
  const engines: { draft07?: Ajv; draft2020?: Ajv2020 } = {};
  const options = { strict: false, allErrors: false, validateFormats: false, logger: false } as const;

  const engineFor = (schema: JsonSchema) => {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    if (OLD_DRAFT.test(declared)) {
      engines.draft07 ??= new Ajv(options);
      return engines.draft07;
    }
    engines.draft2020 ??= new Ajv2020(options);
    return engines.draft2020;
  };

  const compile = (name: string): Compiled => {
    const known = compiled.get(name);
    if (known) return known;
    const schema = specs.get(name)?.parameters;
    let result: Compiled;
    if (!schema) result = { any: true };
    else {
      try {
        result = { check: engineFor(schema).compile(schema) };
      } catch (error) {
        result = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    compiled.set(name, result);
    return result;
  };

  return {
    validate(toolName, args) {
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return { ok: false, message: "arguments must be a JSON object" };
      }
      const c = compile(toolName);
      if (!("check" in c) || c.check(args)) return { ok: true };
      const engine = engineFor(specs.get(toolName)?.parameters ?? {});
      return { ok: false, message: engine.errorsText(c.check.errors, { dataVar: "arguments" }) };
    },
    schemaError(toolName) {
      const c = compile(toolName);
      return "error" in c ? c.error : undefined;
    },
  };
}
