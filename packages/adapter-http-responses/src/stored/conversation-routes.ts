import { GatewayError, invalidRequest } from "@proxy/core";
import type { StoredConversation } from "@proxy/core/gateway";
import { autocreatedConversationId } from "@proxy/core/gateway";
import { callerOwner, type RouteSpec, readJsonBody } from "@proxy/http-surface";
import type { Context, Hono } from "hono";
import type { ResolvedDeps } from "../deps.js";
import { decodeInput } from "../request/decode-input.js";
import { toStoredItems } from "./items.js";
import { listBody, pageQueryOf } from "./paging.js";
import { conversationNotFound } from "./prepare.js";
import type { StoredState } from "./state.js";

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const conversationBody = (conversation: StoredConversation) => ({
  id: conversation.id,
  object: "conversation" as const,
  created_at: Math.floor(conversation.createdAt / 1000),
  metadata: conversation.metadata,
});

/** OpenAI's metadata: at most 16 string values (keys ≤ 64 chars, values ≤ 512). */
const metadataOf = (value: unknown): Record<string, string> => {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw invalidRequest("Invalid type for 'metadata': expected an object.", "metadata");
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalidRequest("'metadata' may have at most 16 keys.", "metadata");
  for (const [key, v] of entries)
    if (typeof v !== "string" || key.length > 64 || v.length > 512)
      throw invalidRequest(
        `Invalid value for 'metadata.${key}': expected a string of at most 512 characters.`,
        `metadata.${key}`,
      );
  return value as Record<string, string>;
};

/** Checks each item like `input` (naming `items[i]…`), then gives it an id. */
const itemsOf = (value: unknown, deps: ResolvedDeps) => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest("Invalid type for 'items': expected an array.", "items");
  if (value.length > 20) throw invalidRequest("'items' may have at most 20 items per request.", "items");
  decodeInput(value, undefined, "items");
  return toStoredItems(value, deps.ids, () => undefined);
};

const bodyOf = async (c: Context): Promise<Record<string, unknown>> => {
  const json = await readJsonBody(c);
  if (!isRecord(json)) throw invalidRequest("The request body must be a JSON object.");
  return json;
};

/** The Conversations API: conversations and their items, owned by the caller, kept for the TTL. */
/** The Conversations API routes (mounted at `/v1`, served when a store is configured). */
export const CONVERSATION_ROUTES = {
  create: {
    method: "POST",
    path: "/conversations",
    summary: "Create a conversation (stored state; see docs/state.md).",
  },
  retrieve: { method: "GET", path: "/conversations/:id", summary: "Retrieve a conversation." },
  update: { method: "POST", path: "/conversations/:id", summary: "Update a conversation's metadata." },
  delete: { method: "DELETE", path: "/conversations/:id", summary: "Delete a conversation." },
  listItems: { method: "GET", path: "/conversations/:id/items", summary: "List a conversation's items." },
  addItems: { method: "POST", path: "/conversations/:id/items", summary: "Add items to a conversation." },
  retrieveItem: { method: "GET", path: "/conversations/:id/items/:item_id", summary: "Retrieve one item." },
  deleteItem: { method: "DELETE", path: "/conversations/:id/items/:item_id", summary: "Delete one item." },
} as const satisfies Record<string, RouteSpec>;

export const mountConversationRoutes = (app: Hono, deps: ResolvedDeps, state: StoredState): void => {
  const { store } = state;
  const R = CONVERSATION_ROUTES;
  const id = (c: Context) => c.req.param("id") ?? "";
  /** The path's id as the store keys it: a name the caller autocreated is found under its own key. */
  const storedId = async (c: Context): Promise<string> => {
    const owner = callerOwner(c);
    if (!state.autocreateConversations || (await store.getConversation(owner, id(c))) !== undefined)
      return id(c);
    return autocreatedConversationId(owner, id(c));
  };
  const existing = async (c: Context) => {
    const conversation = await store.getConversation(callerOwner(c), await storedId(c));
    if (conversation === undefined) throw conversationNotFound(id(c));
    return { ...conversation, id: id(c) };
  };

  app.on(R.create.method, R.create.path, async (c) => {
    const body = await bodyOf(c);
    const metadata = metadataOf(body.metadata);
    const items = itemsOf(body.items, deps);
    const now = deps.clock.now();
    const conversation = {
      id: deps.ids.next("conv"),
      owner: callerOwner(c),
      createdAt: now,
      expiresAt: now + state.ttlMs,
      metadata,
    };
    await store.createConversation(conversation, items);
    return c.json(conversationBody(conversation));
  });
  app.on(R.retrieve.method, R.retrieve.path, async (c) => c.json(conversationBody(await existing(c))));
  app.on(R.update.method, R.update.path, async (c) => {
    const body = await bodyOf(c);
    const updated = await store.updateConversation(
      callerOwner(c),
      await storedId(c),
      metadataOf(body.metadata),
    );
    if (updated === undefined) throw conversationNotFound(id(c));
    return c.json(conversationBody({ ...updated, id: id(c) }));
  });
  app.on(R.delete.method, R.delete.path, async (c) => {
    if (!(await store.deleteConversation(callerOwner(c), await storedId(c))))
      throw conversationNotFound(id(c));
    return c.json({ id: id(c), object: "conversation.deleted", deleted: true });
  });
  app.on(R.listItems.method, R.listItems.path, async (c) => {
    const page = await store.listConversationItems(callerOwner(c), await storedId(c), pageQueryOf(c));
    if (page === undefined) throw conversationNotFound(id(c));
    return c.json(listBody(page));
  });
  app.on(R.addItems.method, R.addItems.path, async (c) => {
    const items = itemsOf((await bodyOf(c)).items, deps);
    if (items.length === 0) throw invalidRequest("'items' must contain at least one item.", "items");
    if (!(await store.appendConversationItems(callerOwner(c), await storedId(c), items)))
      throw conversationNotFound(id(c));
    return c.json(listBody({ data: items, hasMore: false }));
  });
  app.on(R.retrieveItem.method, R.retrieveItem.path, async (c) => {
    const item = await store.getConversationItem(callerOwner(c), await storedId(c), c.req.param("item_id"));
    if (item === undefined) {
      await existing(c);
      throw conversationItemNotFound(c.req.param("item_id"));
    }
    return c.json(item.body as object);
  });
  app.on(R.deleteItem.method, R.deleteItem.path, async (c) => {
    const conversation = await existing(c);
    if (!(await store.deleteConversationItem(callerOwner(c), await storedId(c), c.req.param("item_id"))))
      throw conversationItemNotFound(c.req.param("item_id"));
    return c.json(conversationBody(conversation));
  });
};

const conversationItemNotFound = (itemId: string) =>
  new GatewayError("not_found", `Item with id '${itemId}' not found.`, {
    param: "item_id",
    code: "not_found",
  });
