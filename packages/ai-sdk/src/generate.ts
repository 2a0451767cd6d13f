import { correctiveRequest } from "@proxy/core";
import type { StepPlan } from "./plan.js";
import { addUsage, appendContent, finishReasonOf } from "./result-parts.js";
import type { Content, GenerateResult, LanguageModel, SdkUsage } from "./sdk-types.js";
import { rulesBroken, ToolStep } from "./tool-step.js";

/**
 * `doGenerate` under the plan: the model's text through core's parser and gate, its calls as
 * `tool-call` content. A reply that breaks the tool rules is re-asked (the caller never saw it, so
 * each attempt starts from scratch); past the re-asks the call fails with the rule that was broken.
 */
export const generateWithTools = async (model: LanguageModel, plan: StepPlan): Promise<GenerateResult> => {
  let request = plan.request;
  let usage: SdkUsage | undefined;
  const retries = plan.settings.correctiveRetries;
  for (let attempt = 0; ; attempt++) {
    const result = await model.doGenerate(plan.callOptions(request));
    usage = addUsage(usage, result.usage);
    const step = new ToolStep(plan);
    step.begin();
    const content: Content[] = [];
    let calls = 0;
    for (const part of result.content) {
      if (part.type !== "text") {
        content.push(part);
        continue;
      }
      step.push(part.text);
      calls += appendContent(content, step.events());
      step.clear();
    }
    const end = step.end();
    calls += appendContent(content, step.events());
    if (end.kind === "failure") throw end.error;
    if (end.kind === "violation") {
      if (attempt < retries) {
        request = correctiveRequest(request, step.rawText(), end.violation.message);
        continue;
      }
      throw rulesBroken(end.violation, attempt);
    }
    return {
      ...result,
      content,
      finishReason: finishReasonOf(result.finishReason, calls),
      usage,
      warnings: [...plan.warnings, ...result.warnings],
    };
  }
};
