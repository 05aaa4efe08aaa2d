// Case- and accent-blind text matching, the same in JavaScript and in SQL: SQLite's lower() folds
// ASCII only, so "Été" would neither match "ete" nor sort among the e's. openDatabase registers
// foldText on every connection as the SQL function `vh_fold`.

/** The SQL name of foldText on a connection opened by openDatabase. */
export const FOLD_SQL_FUNCTION = "vh_fold";

/** Lowercase without accents (NFD, combining marks dropped): "Été" → "ete". Null stays null (SQL NULL). */
export function foldText(text: string): string;
export function foldText(text: string | null): string | null;
export function foldText(text: string | null): string | null {
  return text === null ? null : text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
}
