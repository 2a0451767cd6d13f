import type { ValidateFunction } from "ajv";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema, ToolSpec } from "../model/tool-spec.js";
import type { ArgumentsValidator } from "../parser/parser-types.js";
import { argumentShapeProblem } from "./argument-shape.js";
import { createLinearRegExpEngine } from "./linear-regexp.js";

/** The validator plus what it learned about schemas it could not compile. */
export interface ToolArgumentsValidator extends ArgumentsValidator {
  /**
   * Why a tool's schema cannot be compiled (its arguments are then accepted unchecked), or
   * undefined. For a strict tool, a pattern the linear-time engine refuses is such an error.
   * Compiles the schema if that has not happened yet.
   */
  schemaError(toolName: string): string | undefined;
  /** Why no call of the tool could ever pass (its schema is `false`), strict or not; or undefined. */
  unsatisfiable(toolName: string): string | undefined;
}

/** The schema `false` accepts nothing: a tool declared with it could never be called. */
export const UNSATISFIABLE_SCHEMA = "the schema is `false`, which no arguments satisfy";

/** ajv's keyword for a value matched by a `false` subschema: a value the schema forbids outright. */
const FALSE_SCHEMA = "false schema";

export type Compiled =
  | { readonly check: ValidateFunction; readonly unsupported?: string | undefined }
  | { readonly error: string }
  | { readonly any: true };

const OLD_DRAFT = /json-schema\.org\/draft-0[4-7]\/schema/;
// Formats are not validated, so the only client-supplied regular expressions are patterns.
// ajv's code optimiser is quadratic in the generated code (3 s for 1,000 properties); without it
// the same compile takes a tenth of that and the validator checks the same things.
const AJV_OPTIONS = { strict: false, allErrors: false, validateFormats: false, logger: false } as const;
const AJV_CODE = { optimize: false } as const;

/**
 * What one schema may hold: ajv's compile runs on the event loop and its cost grows with the
 * schema's objects (each subschema becomes generated code; about 0.1 ms each on a quiet machine,
 * more than linearly past a hundred or so) and it recurses with their depth, so a larger schema is
 * not compiled: a strict tool is refused with a 400 naming it, a non-strict one's arguments are
 * accepted unchecked.
 */
export const MAX_SCHEMA_OBJECTS = 128;
export const MAX_SCHEMA_VALUES = 4096;
export const MAX_SCHEMA_DEPTH = 32;

/** Why `schema` is too large to compile, or undefined. Iterative: any depth is walked safely. */
export const schemaTooLarge = (schema: unknown): string | undefined => {
  const stack: Array<[unknown, number]> = [[schema, 1]];
  let objects = 0;
  let values = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (++values > MAX_SCHEMA_VALUES)
      return `the schema holds more than ${MAX_SCHEMA_VALUES} values, the gateway's limit`;
    if (depth > MAX_SCHEMA_DEPTH)
      return `the schema nests more than ${MAX_SCHEMA_DEPTH} levels deep, the gateway's limit`;
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value) && ++objects > MAX_SCHEMA_OBJECTS)
      return `the schema has more than ${MAX_SCHEMA_OBJECTS} objects (subschemas), the gateway's limit`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
};

/**
 * Compiled schemas shared across requests (clients resend the same tools every turn, and an ajv
 * compile costs milliseconds). Owned by whoever creates it — one per app, never module state —
 * and bounded: the least recently used schema is dropped past `maxEntries`.
 */
export interface SchemaCache {
  compile(schema: JsonSchema): Compiled;
  errorsText(schema: JsonSchema, check: ValidateFunction): string;
  readonly size: () => number;
}

export const createSchemaCache = (
  options: { readonly maxEntries?: number; readonly maxChars?: number } = {},
): SchemaCache => {
  const maxEntries = options.maxEntries ?? 256;
  // Also bounded by the schemas' size: a compiled validator grows with its schema.
  const maxChars = options.maxChars ?? 4 * 1024 * 1024;
  const entries = new Map<string, Compiled>();
  let chars = 0;
  const engines: { draft07?: Ajv; draft2020?: Ajv2020 } = {};
  // Patterns the linear engine refused during the compile in progress (compiles are synchronous).
  const refused: string[] = [];
  const ajvOptions = {
    ...AJV_OPTIONS,
    code: {
      ...AJV_CODE,
      regExp: createLinearRegExpEngine((pattern, reason) => {
        refused.push(
          `pattern ${JSON.stringify(pattern)} is not supported by the linear-time regex engine (${reason})`,
        );
      }),
    },
  };
  const engineFor = (schema: JsonSchema) => {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    if (OLD_DRAFT.test(declared)) {
      engines.draft07 ??= new Ajv(ajvOptions);
      return engines.draft07;
    }
    engines.draft2020 ??= new Ajv2020(ajvOptions);
    return engines.draft2020;
  };
  return {
    compile(schema) {
      const tooLarge = schemaTooLarge(schema);
      if (tooLarge !== undefined) return { error: tooLarge };
      const key = JSON.stringify(schema);
      const known = entries.get(key);
      if (known) {
        entries.delete(key);
        entries.set(key, known);
        return known;
      }
      let result: Compiled;
      refused.length = 0;
      try {
        const engine = engineFor(schema);
        const check = engine.compile(schema);
        result = refused.length === 0 ? { check } : { check, unsupported: [...new Set(refused)].join("; ") };
        // ajv keeps every compiled schema in its own registry too; forget it, the cache owns it.
        engine.removeSchema(schema);
      } catch (error) {
        result = { error: error instanceof Error ? error.message : String(error) };
      }
      entries.set(key, result);
      chars += key.length;
      while (entries.size > maxEntries || (chars > maxChars && entries.size > 1)) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
        chars -= oldest.length;
      }
      return result;
    },
    errorsText: (schema, check) => engineFor(schema).errorsText(check.errors, { dataVar: "arguments" }),
    size: () => entries.size,
  };
};

/**
 * Checks call arguments against each tool's JSON Schema with ajv. Schemas declaring draft-07
 * (or older) use ajv's draft-07 engine, everything else draft 2020-12 (what Copilot declares).
 * Each schema is compiled lazily, at most once per schema cache (pass an app-wide one to reuse
 * compiles across requests); a tool without parameters accepts any object. Patterns run on a
 * linear-time engine (see linear-regexp.ts). Fails closed, strict and soft alike: arguments with
 * prototype keys or nested past `MAX_ARGUMENT_DEPTH` are refused (see argument-shape.ts), and so
 * is a value a `false` subschema matches.
 */
export function createArgumentsValidator(
  tools: ReadonlyArray<ToolSpec>,
  cache: SchemaCache = createSchemaCache(),
): ToolArgumentsValidator {
  const specs = new Map(tools.map((tool) => [tool.name, tool] as const));
  const compiled = new Map<string, Compiled>();

  const compile = (name: string): Compiled => {
    const known = compiled.get(name);
    if (known) return known;
    const schema = specs.get(name)?.parameters;
    // `false` is a schema too (it accepts nothing): only a missing one accepts anything.
    const result: Compiled = schema === undefined || schema === null ? { any: true } : cache.compile(schema);
    compiled.set(name, result);
    return result;
  };

  return {
    validate(toolName, args) {
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return { ok: false, message: "arguments must be a JSON object" };
      }
      const shape = argumentShapeProblem(args);
      if (shape !== undefined) return { ok: false, message: shape, refused: true };
      if ((specs.get(toolName)?.parameters as unknown) === false)
        return { ok: false, message: UNSATISFIABLE_SCHEMA, refused: true };
      const c = compile(toolName);
      if (!("check" in c)) return { ok: true };
      if (c.check(args)) {
        // A soft tool's refused pattern is skipped, and every call says so (a schema warning).
        return c.unsupported === undefined
          ? { ok: true }
          : { ok: false, message: `not checked: ${c.unsupported}` };
      }
      const message = cache.errorsText(specs.get(toolName)?.parameters ?? {}, c.check);
      const refused = c.check.errors?.some((e) => e.keyword === FALSE_SCHEMA) === true;
      return refused ? { ok: false, message, refused } : { ok: false, message };
    },
    unsatisfiable: (toolName) =>
      (specs.get(toolName)?.parameters as unknown) === false ? UNSATISFIABLE_SCHEMA : undefined,
    schemaError(toolName) {
      const c = compile(toolName);
      if ("error" in c) return c.error;
      return "unsupported" in c && specs.get(toolName)?.strict ? c.unsupported : undefined;
    },
  };
}
