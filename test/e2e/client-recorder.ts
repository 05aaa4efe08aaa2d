// Call recording for the official client's API objects (see client-tour.test.ts).
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";

/** Wraps an API object so each method called on it is added to `calls` as `group.method`; internal calls between its own methods are not counted. */
export function recordCalls<T extends object>(target: T, group: string, calls: Set<string>): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) => {
        calls.add(`${group}.${prop}`);
        return value.apply(obj, args);
      };
    },
  });
}

/** Every API class the installed client ships, by class name, read from its lib/api folder so a client upgrade adding one is noticed. */
export function clientApiClasses(): Record<string, { prototype: object }> {
  const dir = join(dirname(require.resolve("@api.video/nodejs-client")), "api");
  const classes: Record<string, { prototype: object }> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    classes[file.replace(/\.js$/, "")] = require(join(dir, file)).default;
  }
  return classes;
}
