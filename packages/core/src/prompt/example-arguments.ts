import type { JsonSchema } from "../model/tool-spec.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const asSchema = (u: unknown): JsonSchema | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as JsonSchema) : undefined;

/** A plausible value for a schema, for few-shot examples only (never sent as a real call). */
const exampleValue = (schema: JsonSchema | undefined, key: string, depth: number): Json => {
  if (schema === undefined || depth > 3) return `<${key}>`;
  const enumValues = schema.enum;
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0] as Json;
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants) && variants.length > 0)
    return exampleValue(asSchema(variants[0]), key, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [exampleValue(asSchema(schema.items), key, depth + 1)];
    case "object":
      return exampleArguments(schema, depth + 1);
    default:
      return `<${key}>`;
  }
};

/** Arguments object with the schema's required properties (or its first two) filled in. */
export const exampleArguments = (schema: JsonSchema | undefined, depth = 0): { [key: string]: Json } => {
  const properties = asSchema(schema?.properties) ?? {};
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]).map(String) : [];
  const keys = (required.length > 0 ? required : Object.keys(properties).slice(0, 2)).filter(
    (k) => k in properties,
  );
  const out: { [key: string]: Json } = {};
  for (const key of keys) out[key] = exampleValue(asSchema(properties[key]), key, depth);
  return out;
};
