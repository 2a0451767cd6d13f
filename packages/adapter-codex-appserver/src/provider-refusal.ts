/** The most of a provider's own words passed on (its body may be a page of HTML or a megabyte). */
const MAX_PROVIDER_TEXT = 500;
const UNEXPECTED_STATUS = /^unexpected status (\d{3})\b[^:]*:\s*/;

/** What a provider said in an error body codex quoted whole: `{"detail":…}`, `{"error":{message,code}}`… */
const providerWords = (body: string): { text: string; code?: string } | undefined => {
  if (body.length > 64 * 1024 || !/^\s*[{"]/.test(body)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed === "string") return { text: parsed };
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { error, message, detail } = parsed as Record<string, unknown>;
  if (typeof error === "string") return { text: error };
  const inner = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const text = [inner.message, message, detail].find((v): v is string => typeof v === "string");
  if (text === undefined) return undefined;
  return typeof inner.code === "string" ? { text, code: inner.code } : { text };
};

/**
 * The provider's HTTP refusal inside a codex error, if it is one: codex reports a 400 as the raw
 * body (`codexErrorInfo: "other"`), other statuses as "unexpected status 422 …: <body>" with the
 * status in `codexErrorInfo`. The provider's own words come out of its JSON.
 */
export const providerRefusal = (
  name: string,
  infoStatus: number | undefined,
  message: string,
): { status: number | undefined; text: string; code?: string } => {
  const quoted = UNEXPECTED_STATUS.exec(message);
  const status = infoStatus ?? (quoted ? Number(quoted[1]) : undefined);
  const body = quoted ? message.slice(quoted[0].length) : message;
  const words = providerWords(body);
  const text = (words?.text ?? body).trim().slice(0, MAX_PROVIDER_TEXT) || message;
  // Only a 400 reaches the client as the bare body; a JSON body under "other" is one.
  const refusedStatus = status ?? (name === "other" && words !== undefined ? 400 : undefined);
  return { status: refusedStatus, text, ...(words?.code ? { code: words.code } : {}) };
};
