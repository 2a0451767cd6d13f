import {
  invalidRequest,
  type JsonSchema,
  type ReasoningEffort,
  type ToolPolicy,
  type TurnRequest,
} from "@proxy/core";
import { checkModelName } from "@proxy/http-surface";
import { contentsToItems, systemText } from "./decode-contents.js";
import { decodeGeminiHostedTools, decodeGeminiTools } from "./decode-tools.js";
import {
  listAt,
  type Obj,
  objectAt,
  oneOf,
  optionalBoolean,
  optionalInteger,
  optionalList,
  optionalNumber,
  optionalObject,
  optionalString,
  stringAt,
} from "./fields.js";
import { toJsonSchema } from "./schema-dialect.js";

/** Everything one Gemini request asks for, ready for `runTurn` and the encoder. */
export interface GeminiTurnPlan {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  /** Send `thought: true` parts (`thinkingConfig.includeThoughts`). */
  readonly includeThoughts: boolean;
}

const LEVELS: Readonly<Record<string, ReasoningEffort>> = {
  MINIMAL: "minimal",
  LOW: "low",
  MEDIUM: "medium",
  HIGH: "high",
};

/** `thinkingLevel` maps by name; `thinkingBudget` (tokens; -1 = dynamic, 0 = off) by size. */
const reasoningEffort = (thinking: Obj | undefined): ReasoningEffort | undefined => {
  if (thinking === undefined) return undefined;
  const p = "generationConfig.thinkingConfig";
  if (thinking.thinkingLevel != null)
    return LEVELS[
      oneOf(thinking.thinkingLevel, `${p}.thinkingLevel`, [
        "THINKING_LEVEL_UNSPECIFIED",
        "MINIMAL",
        "LOW",
        "MEDIUM",
        "HIGH",
      ])
    ];
  const budget = optionalInteger(thinking.thinkingBudget, `${p}.thinkingBudget`, -1);
  if (budget === undefined || budget === -1) return undefined;
  if (budget === 0) return "minimal";
  if (budget <= 2048) return "low";
  if (budget <= 12_288) return "medium";
  return "high";
};

const outputFormat = (config: Obj): { outputSchema?: JsonSchema; jsonObject?: boolean } => {
  const mime = optionalString(config.responseMimeType, "generationConfig.responseMimeType");
  const p = "generationConfig";
  if (config.responseSchema != null && config.responseJsonSchema != null)
    throw invalidRequest(
      `Give either 'responseSchema' or 'responseJsonSchema', not both.`,
      `${p}.responseJsonSchema`,
    );
  const raw = config.responseSchema ?? config.responseJsonSchema;
  if (raw != null && mime !== "application/json")
    throw invalidRequest(
      `'${p}.responseMimeType' must be "application/json" when a response schema is given.`,
      `${p}.responseMimeType`,
    );
  if (raw != null)
    return {
      outputSchema: toJsonSchema(
        raw,
        config.responseSchema != null ? `${p}.responseSchema` : `${p}.responseJsonSchema`,
      ),
    };
  if (mime === "application/json") return { jsonObject: true };
  if (mime !== undefined && mime !== "text/plain")
    throw invalidRequest(`Unsupported value at '${p}.responseMimeType': '${mime}'.`, `${p}.responseMimeType`);
  return {};
};

/** The `generationConfig` fields a turn uses; sampling knobs are type-checked and not applied. */
const generation = (raw: unknown) => {
  const config = optionalObject(raw, "generationConfig") ?? {};
  const p = "generationConfig";
  for (const key of ["temperature", "topP", "topK", "presencePenalty", "frequencyPenalty", "seed"])
    optionalNumber(config[key], `${p}.${key}`);
  const candidates = optionalInteger(config.candidateCount, `${p}.candidateCount`, 1);
  if (candidates !== undefined && candidates !== 1)
    throw invalidRequest(
      `candidateCount=${candidates} is not supported: this gateway returns one candidate.`,
      `${p}.candidateCount`,
    );
  const stops = (optionalList(config.stopSequences, `${p}.stopSequences`) ?? []).map((s, i) =>
    stringAt(s, `${p}.stopSequences[${i}]`),
  );
  if (stops.length > 5) throw invalidRequest("At most 5 stop sequences are allowed.", `${p}.stopSequences`);
  if (stops.includes("")) throw invalidRequest("A stop sequence may not be empty.", `${p}.stopSequences`);
  const thinking = optionalObject(config.thinkingConfig, `${p}.thinkingConfig`);
  return {
    maxOutputTokens: optionalInteger(config.maxOutputTokens, `${p}.maxOutputTokens`, 1),
    stopSequences: stops,
    reasoningEffort: reasoningEffort(thinking),
    includeThoughts:
      optionalBoolean(thinking?.includeThoughts, `${p}.thinkingConfig.includeThoughts`) ?? false,
    ...outputFormat(config),
  };
};

const plan = (
  model: string,
  body: Obj,
  contents: unknown,
  contentsParam: string,
  history: ReadonlyArray<unknown> = [],
): GeminiTurnPlan => {
  const config = generation(body.generationConfig);
  const instructions = systemText(body.systemInstruction);
  const hostedTools = decodeGeminiHostedTools(body.tools);
  return {
    request: {
      model,
      instructions,
      items: contentsToItems(contents, contentsParam, history),
      reasoningEffort: config.reasoningEffort,
      outputSchema: config.outputSchema,
      jsonObject: config.jsonObject,
      maxOutputTokens: config.maxOutputTokens,
      stopSequences: config.stopSequences.length > 0 ? config.stopSequences : undefined,
      ...(hostedTools.webSearch ? { hostedTools } : {}),
    },
    tools: decodeGeminiTools(body.tools, body.toolConfig),
    includeThoughts: config.includeThoughts,
  };
};

/** `models/{model}:generateContent` and friends: the model is in the path, never in the body. */
export const decodeGenerateContent = (model: string, json: unknown): GeminiTurnPlan =>
  plan(model, objectAt(json, "body"), objectAt(json, "body").contents, "contents");

/** `POST /v1/gemini`'s `conversation` key, read before the body is decoded (its history goes first). */
export const conversationKey = (json: unknown): string | undefined => {
  const key = optionalString(objectAt(json, "body").conversation, "conversation");
  if (key === "") throw invalidRequest("'conversation' may not be empty.", "conversation");
  return key;
};

/**
 * `POST /v1/gemini`: `{model, input | contents, tools, toolConfig, conversation?, stream?}`.
 * `history` holds the stored conversation's contents; `contents` in the answer is this request's
 * new input as Gemini `Content`s (what a conversation appends before the model's answer).
 */
export const decodeGeminiEndpoint = (
  json: unknown,
  history: ReadonlyArray<unknown> = [],
): GeminiTurnPlan & { readonly stream: boolean; readonly contents: ReadonlyArray<unknown> } => {
  const body = objectAt(json, "body");
  const model = stringAt(body.model, "model");
  if (model === "") throw invalidRequest("'model' may not be empty.", "model");
  checkModelName(model);
  conversationKey(body);
  if (body.input != null && body.contents != null)
    throw invalidRequest("Give either 'input' or 'contents', not both.", "input");
  const contents =
    typeof body.input === "string"
      ? [{ role: "user", parts: [{ text: body.input }] }]
      : body.input != null
        ? listAt(body.input, "input")
        : body.contents;
  if (contents == null) throw invalidRequest("Missing required field 'input' (or 'contents').", "input");
  const contentsParam = body.input != null && typeof body.input !== "string" ? "input" : "contents";
  return {
    ...plan(model, body, contents, contentsParam, history),
    stream: optionalBoolean(body.stream, "stream") ?? false,
    contents: listAt(contents, contentsParam),
  };
};
