import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { InspectorKeys } from "./ports.js";

export const SESSION_COOKIE = "proxy_inspector";
const SESSION_SECONDS = 12 * 60 * 60;
/** Sessions held at once; a new login past this ends the oldest. */
const MAX_SESSIONS = 64;

/**
 * Who may open the inspector: with an admin key, only a request carrying it (as a bearer token) or
 * a session cookie the login form set for it; without one (a gateway with no API keys), anyone
 * who can reach the gateway. The cookie holds a random session token, never the key; the gateway
 * keeps the live sessions (by the token's digest), so signing out ends one for every copy of its
 * cookie. It is HttpOnly, SameSite=Strict, scoped to /ui, and Secure behind https.
 */
export const createInspectorAuth = (adminKey: string, keys: InspectorKeys, now: () => number = Date.now) => {
  const open = adminKey === "";
  const matches = keys.matcher(open ? [] : [adminKey]);
  /** Token digest → expiry (epoch ms), oldest first. */
  const sessions = new Map<string, number>();
  const idOf = (token: string) => createHash("sha256").update(token).digest("base64url");
  const session = (c: Context): string | undefined => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token === undefined || !/^[\w-]{43}$/.test(token)) return undefined;
    const id = idOf(token);
    const expires = sessions.get(id);
    if (expires === undefined) return undefined;
    if (expires > now()) return id;
    sessions.delete(id);
    return undefined;
  };
  const bearer = (c: Context) => /^Bearer\s+(.+)$/i.exec((c.req.header("authorization") ?? "").trim())?.[1];
  const cookie = (c: Context, value: string, maxAge: number) =>
    setCookie(c, SESSION_COOKIE, value, {
      path: "/ui",
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(c),
      maxAge,
    });

  return {
    open,
    /** The request may read the inspector. */
    allowed(c: Context): boolean {
      if (open) return true;
      const key = bearer(c);
      if (key !== undefined) return matches(key);
      return session(c) !== undefined;
    },
    /** Checks a key from the login form; on success starts a session and sets its cookie. */
    login(c: Context, key: string): boolean {
      if (open || !matches(key)) return false;
      const token = randomBytes(32).toString("base64url");
      for (const [id, expires] of sessions) if (expires <= now()) sessions.delete(id);
      while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
      sessions.set(idOf(token), now() + SESSION_SECONDS * 1000);
      cookie(c, token, SESSION_SECONDS);
      return true;
    },
    /** Ends the request's session (its cookie no longer works anywhere) and clears the cookie. */
    logout(c: Context): void {
      const id = session(c);
      if (id !== undefined) sessions.delete(id);
      cookie(c, "", 0);
    },
  };
};

/** Served over https itself, or behind a proxy that terminates it. */
const isHttps = (c: Context): boolean =>
  new URL(c.req.url).protocol === "https:" ||
  (c.req.header("x-forwarded-proto") ?? "").split(",")[0]?.trim().toLowerCase() === "https";

/**
 * The inspector answers its own page only, whatever PROXY_CORS_ORIGINS allows for the API: a
 * browser sends `Origin` on every cross-origin request (and on same-origin posts), and it must
 * name this host; `Sec-Fetch-Site`, where sent, must not say another site (but for following a
 * link to the page). A client without either is no browser page.
 */
export const sameOrigin = (c: Context): boolean => {
  const site = c.req.header("sec-fetch-site");
  // Following a link to the page is fine: a navigation cannot read what it opens for the linking site.
  const navigation = c.req.method === "GET" && c.req.header("sec-fetch-mode") === "navigate";
  if ((site === "cross-site" || site === "same-site") && !navigation) return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  return URL.canParse(origin) && new URL(origin).host === c.req.header("host");
};

export type InspectorAuth = ReturnType<typeof createInspectorAuth>;
