import * as ai from "ai";
import * as aiTest from "ai/test";
import * as ai6 from "ai6";
import * as ai6Test from "ai6/test";

/** The parts of an `ai` major the suites drive: the same calls under ai 7 and ai 6. */
export interface Sdk {
  readonly name: string;
  readonly generateText: typeof ai.generateText;
  readonly streamText: typeof ai.streamText;
  readonly wrapLanguageModel: typeof ai.wrapLanguageModel;
  readonly stepCountIs: typeof ai.stepCountIs;
  readonly tool: typeof ai.tool;
  readonly jsonSchema: typeof ai.jsonSchema;
  readonly MockLanguageModelV3: typeof aiTest.MockLanguageModelV3;
}

const pick = (name: string, sdk: typeof ai, test: typeof aiTest): Sdk => ({
  name,
  generateText: sdk.generateText,
  streamText: sdk.streamText,
  wrapLanguageModel: sdk.wrapLanguageModel,
  stepCountIs: sdk.stepCountIs,
  tool: sdk.tool,
  jsonSchema: sdk.jsonSchema,
  MockLanguageModelV3: test.MockLanguageModelV3,
});

export const AI7 = pick("ai 7", ai, aiTest);
/**
 * ai 6 installed under the alias `ai6`: typed here as ai 7 (this package's source types itself off
 * the `ai` it resolves, which in this workspace is 7); what the suite checks is behaviour.
 */
export const AI6 = pick("ai 6", ai6 as unknown as typeof ai, ai6Test as unknown as typeof aiTest);
