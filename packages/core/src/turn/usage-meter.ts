import { addUsage, type Usage } from "../model/usage.js";
import type { BackendRequest } from "../ports/text-backend.js";
import type { TokenEncoding } from "../ports/token-encoding.js";
import { EXACT_COUNT_CHARS, estimateTokens, estimateTokensOfTexts } from "../tokens/token-counter.js";

/** The texts a backend reads for a turn (instructions, history, input, native tools); images aside. */
const promptTexts = (request: BackendRequest): string[] => {
  const texts = [request.instructions];
  for (const message of request.history) {
    if ("content" in message) {
      for (const part of message.content) if (part.type === "text") texts.push(part.text);
    } else if ("toolCalls" in message) {
      for (const call of message.toolCalls) texts.push(call.name, call.arguments);
    } else texts.push(message.output);
  }
  for (const part of request.input) if (part.type === "text") texts.push(part.text);
  for (const tool of request.tools?.tools ?? [])
    texts.push(
      tool.name,
      tool.description ?? "",
      tool.parameters === undefined ? "" : JSON.stringify(tool.parameters),
    );
  return texts;
};

/** The gateway's estimate of the tokens a backend reads for `request` (bounded cost, any size). */
export const estimatePromptTokens = (tokens: TokenEncoding, request: BackendRequest): number =>
  estimateTokensOfTexts(tokens, promptTexts(request));

/**
 * What a turn's backend attempts used, for accounting: the usage each attempt reported, or, for an
 * attempt the backend accepted and never reported on (the client left mid-stream, the backend
 * failed), an estimate with the gateway's tokenizer of the prompt it read and the output it wrote.
 * Without it a client that streams big prompts and hangs up would spend tokens that no limit counts.
 * Output is counted in characters, with its first 8 KiB kept as the sample its tokens are
 * estimated from: one addition per delta on the turn's path, the counting only when asked.
 */
export const createUsageMeter = (tokens: TokenEncoding) => {
  let finished: Usage | undefined;
  let request: BackendRequest | undefined;
  let accepted = false;
  let reported: Usage | undefined;
  let outputChars = 0;
  let sample: string[] = [];
  let sampleChars = 0;

  const estimate = (): Usage | undefined => {
    if (request === undefined || !accepted) return undefined;
    const inputTokens = estimatePromptTokens(tokens, request);
    // The deltas are one text: counted apart, each cut would count as a token boundary.
    const sampled = sampleChars === 0 ? 0 : estimateTokens(tokens, sample.join(""));
    const outputTokens = sampleChars === 0 ? 0 : Math.round((sampled * outputChars) / sampleChars);
    return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, estimated: true };
  };
  const current = () => reported ?? estimate();

  return {
    /** An attempt sends `next` to the backend. */
    begin(next: BackendRequest): void {
      request = next;
      accepted = false;
      reported = undefined;
      outputChars = 0;
      sample = [];
      sampleChars = 0;
    },
    /** The backend accepted the attempt (`stream-start`): it has the prompt. */
    accepted(): void {
      accepted = true;
    },
    /** The backend reported the attempt's usage. */
    reported(usage: Usage): void {
      reported = usage;
    },
    /** Model output (text, call arguments, reasoning) the backend wrote. */
    output(text: string): void {
      if (text.length === 0) return;
      outputChars += text.length;
      if (sampleChars < EXACT_COUNT_CHARS) {
        sample.push(text);
        sampleChars += text.length;
      }
    },
    /** The attempt ended; `usage` is what it reported, if anything. */
    end(usage: Usage | undefined): void {
      const used = usage ?? current();
      if (used !== undefined) finished = addUsage(finished, used);
      request = undefined;
    },
    /** Every attempt's usage so far, the one under way included. */
    usage(): Usage | undefined {
      const under = request === undefined ? undefined : current();
      return under === undefined ? finished : addUsage(finished, under);
    },
  };
};

export type UsageMeter = ReturnType<typeof createUsageMeter>;
