// Language tags of captions and chapters: validated, canonicalised and named in their own language
// with the ICU data Bun ships (Intl), so no table of ~600 tags has to be kept here.
import { invalidAttribute } from "../http/errors";

/** language[-Script][-REGION]: the shape of api.video's caption tags (en, fr-CA, sr-Cyrl, zh-Hans-CN, es-419). */
const TAG = /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|\d{3}))?$/;

export interface CaptionLanguage {
  /** Canonical form, e.g. `fr-CA`: the name of the file and of the URL. */
  tag: string;
  /** The language's name in that language, e.g. `français canadien`, `српски (ћирилица)`. */
  name: string;
}

/** Why a caption language is refused (api.video's two details), or null. */
export function captionLanguageProblem(raw: string): string | null {
  if (!/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/.test(raw)) {
    return 'The "language" attribute must contain only letters and dashes (for example "fr", "fr-BE").';
  }
  if (!TAG.test(raw)) return 'The "language" attribute is not valid.';
  const [tag] = Intl.getCanonicalLocales(raw);
  // A locale ICU has data for: an invented or private code ("xx", "qq") has none.
  if (Intl.DisplayNames.supportedLocalesOf([tag]).length === 0) return 'The "language" attribute is not valid.';
  return null;
}

/** The canonical tag and native name of a caption or chapter language; 400 `invalid-attribute` naming `language` otherwise. */
export function captionLanguage(raw: string): CaptionLanguage {
  const problem = captionLanguageProblem(raw);
  if (problem) throw invalidAttribute("language", problem);
  const [tag] = Intl.getCanonicalLocales(raw);
  return { tag, name: nativeName(tag) };
}

/** A tag's name in its own language (ICU), or the tag itself when ICU has none. */
export function nativeName(tag: string): string {
  try {
    return new Intl.DisplayNames([tag], { type: "language", fallback: "none" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
