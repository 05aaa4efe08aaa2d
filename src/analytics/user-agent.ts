// A small User-Agent reader for the analytics dimensions. Order matters everywhere: many browsers
// claim to be others (Edge and Opera say "Chrome", Chrome says "Safari", iPadOS says "Macintosh").

export interface UserAgentInfo {
  /** computer | phone | tablet | tv | console | wearable | unknown */
  deviceType: string;
  /** windows | mac osx | ios | android | linux | chrome os | unknown */
  operatingSystem: string;
  /** chrome | firefox | edge | opera | safari | samsung internet | unknown */
  browser: string;
}

/** Crawlers and link previewers: their hits are not viewers and are not recorded. */
export const isBot = (ua: string) => /bot\b|crawler|spider|slurp|facebookexternalhit|preview|curl\/|wget\//i.test(ua);

function operatingSystem(ua: string): string {
  if (/Windows Phone/i.test(ua)) return "windows";
  if (/iPhone|iPad|iPod/i.test(ua)) return "ios";
  if (/Android/i.test(ua)) return "android";
  if (/Windows/i.test(ua)) return "windows";
  if (/CrOS/.test(ua)) return "chrome os";
  if (/Mac OS X|Macintosh/i.test(ua)) return "mac osx";
  if (/Linux|X11|Ubuntu|Fedora/i.test(ua)) return "linux";
  return "unknown";
}

function browser(ua: string): string {
  if (/\b(Edg|EdgA|EdgiOS|Edge)\//.test(ua)) return "edge";
  if (/\b(OPR|OPiOS|Opera)\b/.test(ua)) return "opera";
  if (/SamsungBrowser\//.test(ua)) return "samsung internet";
  if (/\b(Firefox|FxiOS)\//.test(ua)) return "firefox";
  if (/\b(Chrome|CriOS|HeadlessChrome|Chromium)\//.test(ua)) return "chrome";
  if (/Safari\//.test(ua) && /Version\//.test(ua)) return "safari";
  if (/(iPhone|iPad|iPod).*AppleWebKit/.test(ua)) return "safari";
  return "unknown";
}

function deviceType(ua: string, os: string): string {
  if (/Watch|Wear OS/i.test(ua)) return "wearable";
  if (/PlayStation|Xbox|Nintendo/i.test(ua)) return "console";
  if (/SMART-TV|SmartTV|\bTV\b|AppleTV|GoogleTV|BRAVIA|Roku|CrKey|Tizen.*TV|Web0S|webOS.*TV|HbbTV/i.test(ua)) return "tv";
  if (/iPad|Tablet|Kindle|Silk\//i.test(ua)) return "tablet";
  if (os === "android") return /Mobile/.test(ua) ? "phone" : "tablet";
  if (/iPhone|iPod|Mobile|Windows Phone/i.test(ua)) return "phone";
  if (os === "windows" || os === "mac osx" || os === "linux" || os === "chrome os") return "computer";
  return "unknown";
}

/** Device type, operating system and browser named as api.video names them (lowercase). */
export function parseUserAgent(ua: string): UserAgentInfo {
  const os = operatingSystem(ua);
  return { deviceType: deviceType(ua, os), operatingSystem: os, browser: browser(ua) };
}
