/**
 * Where routing reports what it decided (a fallback taken or skipped): the gateway's structured
 * log (a pino logger fits as it is). Fields are values routing bounded itself.
 */
export interface RouteLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Log lines carry this much of a string an upstream or client chose (an error message, say). */
const LOG_TEXT_CHARS = 256;

/** `text` whole up to the bound, else its start and its length; never cut inside a surrogate pair. */
export const logText = (text: string): string => {
  if (text.length <= LOG_TEXT_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(LOG_TEXT_CHARS - 1)) ? LOG_TEXT_CHARS - 1 : LOG_TEXT_CHARS;
  return `${text.slice(0, end)}… (${text.length} characters)`;
};
