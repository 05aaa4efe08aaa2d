export type LogLevel = "error" | "warn" | "info" | "debug";

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: LogLevel[] = ["error", "warn", "info", "debug"];

/** A line-per-event logger to stderr; fields are appended as JSON so they stay greppable. */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + "\n")): Logger {
  const max = ORDER.indexOf(level);
  const at = (lvl: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER.indexOf(lvl) > max) return;
    write(`${new Date().toISOString()} ${lvl.padEnd(5)} ${message}${fields ? " " + JSON.stringify(fields) : ""}`);
  };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}
