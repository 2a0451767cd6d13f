/**
 * What a correct answer to a peer workload looks like, and a check cheap enough to run on every
 * response (a full parse of one response in `FULL_CHECK_EVERY`), so a broken path cannot look fast.
 */

export const TOOL_ARGUMENTS = { city: "Paris" };

/** The text `fake-d<N>` answers (see upstream-main.ts). */
export const textOf = (deltas: number): string => {
  let s = "";
  for (let i = 0; i < deltas; i++) s += `w${i} `;
  return s;
};

export const FULL_CHECK_EVERY = 16;

interface Parsed {
  text: string;
  toolName: string;
  toolArguments: string;
}

const parseChoice = (
  choice: {
    message?: {
      content?: string | null;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
    };
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
    };
  },
  into: Parsed,
) => {
  const part = choice.message ?? choice.delta;
  if (!part) return;
  if (typeof part.content === "string") into.text += part.content;
  for (const call of part.tool_calls ?? []) {
    if (call.function?.name) into.toolName += call.function.name;
    if (call.function?.arguments) into.toolArguments += call.function.arguments;
  }
};

const parseAnswer = (body: string, stream: boolean): Parsed => {
  const out: Parsed = { text: "", toolName: "", toolArguments: "" };
  if (!stream) {
    const json = JSON.parse(body) as { choices?: Array<Parameters<typeof parseChoice>[0]> };
    for (const c of json.choices ?? []) parseChoice(c, out);
    return out;
  }
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const json = JSON.parse(line.slice(6)) as { choices?: Array<Parameters<typeof parseChoice>[0]> };
    for (const c of json.choices ?? []) parseChoice(c, out);
  }
  return out;
};

export interface Expectation {
  readonly stream: boolean;
  /** Plain text, or a tool call to get_weather with TOOL_ARGUMENTS. */
  readonly text?: string;
  readonly tool?: boolean;
}

/** Why `body` is not the expected answer, or undefined when it is. `full` parses it completely. */
export const problemOf = (
  expect: Expectation,
  status: number,
  body: string,
  full: boolean,
): string | undefined => {
  if (status !== 200) return `status ${status}: ${body.slice(0, 160)}`;
  if (expect.stream && !body.trimEnd().endsWith("data: [DONE]")) return "stream without data: [DONE]";
  if (!full) {
    // Cheap: the answer's last word (or the tool's name) is there and no sentinel leaked.
    const marker = expect.tool ? "get_weather" : (expect.text ?? "").trimEnd().split(" ").at(-1);
    if (marker && !body.includes(marker)) return `answer lacks ${marker}`;
    if (expect.tool && body.includes("<tool_call>")) return "sentinel text reached the client";
    return undefined;
  }
  const got = parseAnswer(body, expect.stream);
  if (expect.tool) {
    if (got.toolName !== "get_weather") return `tool name ${JSON.stringify(got.toolName)}`;
    if (JSON.stringify(JSON.parse(got.toolArguments)) !== JSON.stringify(TOOL_ARGUMENTS))
      return `tool arguments ${got.toolArguments}`;
    if (got.text.includes("<tool_call>")) return "sentinel text reached the client";
    return undefined;
  }
  return got.text === expect.text ? undefined : `text ${JSON.stringify(got.text.slice(0, 80))}…`;
};
