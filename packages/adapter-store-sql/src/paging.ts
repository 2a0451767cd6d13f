import type { Page, PageQuery, StoredItem } from "@proxy/core/gateway";
import type { Row, SqlParam, SqlQuerier } from "./sql-driver.js";

/**
 * One page of an ordered item list. `scope` is the WHERE clause selecting the list (items of one
 * response or one conversation) with its parameters; cursors are item ids of that same list.
 */
export const pageItems = async (
  db: SqlQuerier,
  table: "response_items" | "conversation_items",
  scope: { readonly where: string; readonly params: ReadonlyArray<SqlParam> },
  page: PageQuery,
): Promise<Page<StoredItem>> => {
  const ascending = page.order === "asc";
  const cursorSeq = `(SELECT seq FROM ${table} WHERE ${scope.where} AND item_id = ? ORDER BY seq LIMIT 1)`;
  let sql = `SELECT item_id, body FROM ${table} WHERE ${scope.where}`;
  const params: SqlParam[] = [...scope.params];
  if (page.after !== undefined) {
    sql += ` AND seq ${ascending ? ">" : "<"} ${cursorSeq}`;
    params.push(...scope.params, page.after);
  }
  if (page.before !== undefined) {
    sql += ` AND seq ${ascending ? "<" : ">"} ${cursorSeq}`;
    params.push(...scope.params, page.before);
  }
  sql += ` ORDER BY seq ${ascending ? "ASC" : "DESC"} LIMIT ?`;
  params.push(page.limit + 1);
  const rows = await db.all(sql, params);
  return { data: rows.slice(0, page.limit).map(toItem), hasMore: rows.length > page.limit };
};

export const toItem = (row: Row): StoredItem => ({
  id: String(row.item_id),
  body: JSON.parse(String(row.body)) as unknown,
});
