import { invalidRequest, type JsonSchema } from "@proxy/core";

/**
 * Gemini's two schema dialects → canonical JSON Schema. `parameters` / `responseSchema` use the
 * OpenAPI 3.0 subset (upper-case `type`, `nullable`, `propertyOrdering`, `example`); real clients
 * also put upper-case types inside `parametersJsonSchema` / `responseJsonSchema`. Every constraint
 * (enum, format, bounds, pattern, required, items, anyOf, …) is kept; only the dialect changes.
 */

const OPENAPI_TYPES: ReadonlySet<string> = new Set([
  "STRING",
  "NUMBER",
  "INTEGER",
  "BOOLEAN",
  "ARRAY",
  "OBJECT",
  "NULL",
  "TYPE_UNSPECIFIED",
]);
const JSON_TYPES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "array",
  "object",
  "null",
]);

/** Keys whose value is one sub-schema, a map of sub-schemas, or a list of sub-schemas. */
const SCHEMA_VALUED = new Set([
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** OpenAPI-only annotations with no JSON Schema meaning for validation. */
const DROPPED = new Set(["propertyOrdering", "nullable"]);

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const lowerType = (value: unknown, param: string): string | undefined => {
  if (typeof value !== "string")
    throw invalidRequest(`Invalid value at '${param}': a type name must be a string.`, param);
  const lower = value.toLowerCase();
  if (value === "TYPE_UNSPECIFIED" || lower === "type_unspecified") return undefined;
  if (!JSON_TYPES.has(lower) || (value !== lower && !OPENAPI_TYPES.has(value)))
    throw invalidRequest(
      `Invalid value at '${param}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${value}"`,
      param,
    );
  return lower;
};

const convertType = (value: unknown, nullable: boolean, param: string): unknown => {
  const types = Array.isArray(value)
    ? value.map((t, i) => lowerType(t, `${param}[${i}]`)).filter((t) => t !== undefined)
    : [lowerType(value, param)].filter((t) => t !== undefined);
  if (nullable && !types.includes("null")) types.push("null");
  if (types.length === 0) return undefined;
  return types.length === 1 ? types[0] : types;
};

/** One schema node, recursively; `param` names the node in errors (`tools[0]….parameters.properties.x`). */
export const toJsonSchema = (schema: unknown, param: string): JsonSchema => {
  if (typeof schema === "boolean") return schema as unknown as JsonSchema;
  if (!isObject(schema))
    throw invalidRequest(`Invalid value at '${param}': a schema must be an object.`, param);
  const out: Record<string, unknown> = {};
  const nullable = schema.nullable === true;
  if (schema.nullable !== undefined && typeof schema.nullable !== "boolean")
    throw invalidRequest(`Invalid value at '${param}.nullable': expected a boolean.`, `${param}.nullable`);
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === "type") {
      const type = convertType(value, nullable, `${param}.type`);
      if (type !== undefined) out.type = type;
    } else if (key === "example") {
      out.examples = [value];
    } else if (SCHEMA_VALUED.has(key) && (isObject(value) || typeof value === "boolean")) {
      out[key] = toJsonSchema(value, `${param}.${key}`);
    } else if (SCHEMA_MAPS.has(key)) {
      if (!isObject(value))
        throw invalidRequest(
          `Invalid value at '${param}.${key}': expected an object of schemas.`,
          `${param}.${key}`,
        );
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, toJsonSchema(sub, `${param}.${key}.${name}`)]),
      );
    } else if (SCHEMA_LISTS.has(key)) {
      if (!Array.isArray(value))
        throw invalidRequest(
          `Invalid value at '${param}.${key}': expected a list of schemas.`,
          `${param}.${key}`,
        );
      out[key] = value.map((sub, i) => toJsonSchema(sub, `${param}.${key}[${i}]`));
    } else if (
      key === "minItems" ||
      key === "maxItems" ||
      key === "minLength" ||
      key === "maxLength" ||
      key === "minProperties" ||
      key === "maxProperties"
    ) {
      // The OpenAPI dialect carries int64 bounds as strings ("1"); JSON Schema wants numbers.
      const n = typeof value === "string" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
        throw invalidRequest(
          `Invalid value at '${param}.${key}': expected a non-negative integer.`,
          `${param}.${key}`,
        );
      out[key] = n;
    } else {
      out[key] = value;
    }
  }
  // `nullable` with no `type` (e.g. on an anyOf): widen the node itself.
  if (nullable && out.type === undefined && Array.isArray(out.anyOf))
    out.anyOf = [...out.anyOf, { type: "null" }];
  if (nullable && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
};
