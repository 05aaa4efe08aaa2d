/** Languages api.video transcribes and summarises (apivideo-behaviour §7). */
export const SUPPORTED_LANGUAGES = [
  "ar", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "he", "hi", "hr", "hu", "it", "ja",
  "ko", "ml", "nl", "nn", "no", "pl", "pt", "ru", "sk", "sl", "te", "tr", "uk", "ur", "vi", "zh",
] as const;

/** Why a language tag is refused, or null when it is accepted. */
export function languageProblem(tag: string): string | null {
  if (!/^[A-Za-z]+(-[A-Za-z0-9]+)*$/.test(tag)) return "This attribute must be an IETF language tag made of letters and dashes.";
  const primary = tag.split("-")[0].toLowerCase();
  if (!(SUPPORTED_LANGUAGES as readonly string[]).includes(primary)) {
    return `This language is not supported; use one of: ${SUPPORTED_LANGUAGES.join(", ")}.`;
  }
  return null;
}
