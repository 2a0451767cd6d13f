/** SSE helpers shared by the baseline server and the clients that read streams. */

/**
 * Splits a complete SSE body into its events, each with its terminating blank line, so a
 * baseline can write exactly the same bytes in the same number of writes as the gateway did.
 * Comment lines (`: …`) are events of their own here, as the gateway writes them separately.
 */
export const splitSseEvents = (body: string): string[] => {
  const events: string[] = [];
  let start = 0;
  for (;;) {
    const end = body.indexOf("\n\n", start);
    if (end < 0) break;
    events.push(body.slice(start, end + 2));
    start = end + 2;
  }
  if (start < body.length) events.push(body.slice(start));
  return events;
};

/** The `data:` payloads of one SSE event (joined by newlines as the spec says), or undefined. */
export const dataOf = (event: string): string | undefined => {
  const lines = event.split("\n").filter((l) => l.startsWith("data:"));
  if (lines.length === 0) return undefined;
  return lines.map((l) => l.slice(5).replace(/^ /, "")).join("\n");
};

/**
 * The assistant text a chat-completions or responses SSE event carries (`choices[0].delta.content`
 * or a `response.output_text.delta`), or undefined for any other event.
 */
export const textDeltaOf = (event: string): string | undefined => {
  const data = dataOf(event);
  if (data === undefined || data === "[DONE]") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  const o = json as {
    type?: string;
    delta?: unknown;
    choices?: Array<{ delta?: { content?: unknown } }>;
  };
  if (o.type === "response.output_text.delta" && typeof o.delta === "string") return o.delta;
  const content = o.choices?.[0]?.delta?.content;
  return typeof content === "string" && content.length > 0 ? content : undefined;
};

/** Incremental splitter for a body that arrives in arbitrary pieces. */
export const createSseReader = () => {
  let buffer = "";
  return {
    /** Returns the events completed by this piece. */
    push(piece: string): string[] {
      buffer += piece;
      const out: string[] = [];
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end < 0) return out;
        out.push(buffer.slice(0, end + 2));
        buffer = buffer.slice(end + 2);
      }
    },
  };
};
