/**
 * JSON inside <script>: `<`, `>` and `&` as \u escapes so no `</script>` or `<!--` can end or bend
 * the element; U+2028/2029 escaped for engines that once treated them as line ends.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
