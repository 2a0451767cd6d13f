/**
 * A client-chosen string as a log line, span or metric may carry it: whole up to `max` characters,
 * else its start and its length. Never cut inside a surrogate pair.
 */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
};
