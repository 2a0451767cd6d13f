/** One neutral conversation entry, written in each surface's own wire shape by `bodyFor`. */
export type Entry =
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string; readonly call?: Call | undefined }
  | { readonly kind: "result"; readonly call: Call; readonly output: string };
export interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export type Surface = "chat" | "responses" | "messages" | "gemini";
export const SURFACES: ReadonlyArray<Surface> = ["chat", "responses", "messages", "gemini"];

const MODEL = "scripted-model";
const TOOL = {
  name: "read_chunk",
  description: "Read the next chunk",
  parameters: { type: "object", properties: { n: { type: "number" } } },
};

/** Where each surface is served, and the streamed request for `entries`. */
export const requestFor = (
  surface: Surface,
  entries: ReadonlyArray<Entry>,
): { path: string; body: unknown } => {
  switch (surface) {
    case "chat":
      return {
        path: "/v1/chat/completions",
        body: {
          model: MODEL,
          stream: true,
          tools: [{ type: "function", function: TOOL }],
          messages: entries.map((e) =>
            e.kind === "user"
              ? { role: "user", content: e.text }
              : e.kind === "result"
                ? { role: "tool", tool_call_id: e.call.id, content: e.output }
                : {
                    role: "assistant",
                    content: e.text,
                    ...(e.call
                      ? {
                          tool_calls: [
                            {
                              id: e.call.id,
                              type: "function",
                              function: { name: e.call.name, arguments: JSON.stringify(e.call.args) },
                            },
                          ],
                        }
                      : {}),
                  },
          ),
        },
      };
    case "responses":
      return {
        path: "/v1/responses",
        body: {
          model: MODEL,
          stream: true,
          store: false,
          tools: [{ type: "function", strict: false, ...TOOL }],
          input: entries.flatMap((e): unknown[] =>
            e.kind === "user"
              ? [{ role: "user", content: e.text }]
              : e.kind === "result"
                ? [{ type: "function_call_output", call_id: e.call.id, output: e.output }]
                : [
                    { type: "message", role: "assistant", content: [{ type: "output_text", text: e.text }] },
                    ...(e.call
                      ? [
                          {
                            type: "function_call",
                            call_id: e.call.id,
                            name: e.call.name,
                            arguments: JSON.stringify(e.call.args),
                          },
                        ]
                      : []),
                  ],
          ),
        },
      };
    case "messages": {
      // Claude Code's way: one cache_control marker, on the newest message's last block.
      const last = entries.length - 1;
      const marker = (i: number) => (i === last ? { cache_control: { type: "ephemeral" } } : {});
      return {
        path: "/v1/messages",
        body: {
          model: MODEL,
          max_tokens: 1024,
          stream: true,
          tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }],
          messages: entries.map((e, i) =>
            e.kind === "user"
              ? { role: "user", content: [{ type: "text", text: e.text, ...marker(i) }] }
              : e.kind === "result"
                ? {
                    role: "user",
                    content: [
                      { type: "tool_result", tool_use_id: e.call.id, content: e.output, ...marker(i) },
                    ],
                  }
                : {
                    role: "assistant",
                    content: [
                      { type: "text", text: e.text },
                      ...(e.call
                        ? [{ type: "tool_use", id: e.call.id, name: e.call.name, input: e.call.args }]
                        : []),
                    ],
                  },
          ),
        },
      };
    }
    case "gemini":
      return {
        path: `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
        body: {
          tools: [
            {
              functionDeclarations: [
                { name: TOOL.name, description: TOOL.description, parametersJsonSchema: TOOL.parameters },
              ],
            },
          ],
          contents: entries.map((e) =>
            e.kind === "user"
              ? { role: "user", parts: [{ text: e.text }] }
              : e.kind === "result"
                ? {
                    role: "user",
                    parts: [
                      {
                        functionResponse: {
                          id: e.call.id,
                          name: e.call.name,
                          response: { output: e.output },
                        },
                      },
                    ],
                  }
                : {
                    role: "model",
                    parts: [
                      { text: e.text },
                      ...(e.call
                        ? [{ functionCall: { id: e.call.id, name: e.call.name, args: e.call.args } }]
                        : []),
                    ],
                  },
          ),
        },
      };
  }
};

/** The id the surface gave the model's call, read from the raw SSE text. */
export const callIdIn = (surface: Surface, sse: string): string | undefined => {
  const pattern =
    surface === "responses"
      ? /"call_id":"([^"]+)"/
      : surface === "messages"
        ? /"id":"(toolu_[^"]+)"/
        : /"id":"(call_[^"]+)"/;
  return pattern.exec(sse)?.[1];
};
