// The fold used by video lists and search: the same in code and in SQL on every opened connection.
import { expect, test } from "bun:test";
import { openDatabase } from "./client";
import { FOLD_SQL_FUNCTION, foldText } from "./fold";

test("foldText drops case and accents beyond ASCII", () => {
  expect(foldText("Été À L'ÎLE Ñandú ÅSA straße")).toBe("ete a l'ile nandu asa straße");
  expect(foldText(null)).toBeNull();
});

test("every connection openDatabase makes has vh_fold, matching foldText and passing NULL and numbers through", () => {
  const { sqlite } = openDatabase(":memory:");
  const row = sqlite.prepare(`SELECT ${FOLD_SQL_FUNCTION}(?) AS a, ${FOLD_SQL_FUNCTION}(NULL) AS b, ${FOLD_SQL_FUNCTION}(12) AS c`).get("ÉCOLE Élève") as Record<string, unknown>;
  expect(row).toEqual({ a: foldText("ÉCOLE Élève"), b: null, c: 12 });
  expect(row.a).toBe("ecole eleve");
  sqlite.close();
});
