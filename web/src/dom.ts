// A few DOM helpers: element builders, formatting, copy buttons. No framework.

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function apply(el: Element, attrs: Attrs | null | undefined): void {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    else if (key === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

/** An HTML element with attributes (`onclick`… become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Replaces an element's children. */
export function mount(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** "21 Nov 2026, 10:00" in the browser's locale. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A button that copies `value` and says so for a moment. */
export function copyButton(value: string, label = "Copy"): HTMLButtonElement {
  const button = h("button", { type: "button", class: "secondary small", "data-copy": value }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = "Copied";
    } catch {
      // No clipboard permission (plain http on another host): select the text instead.
      const field = button.parentElement?.querySelector("input, code");
      if (field instanceof HTMLInputElement) field.select();
      button.textContent = "Select and copy";
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

/** A read-only field with a copy button. */
export function copyField(label: string, value: string, testId?: string): HTMLElement {
  return h("div", { class: "copy-field" },
    h("span", { class: "copy-label" }, label),
    h("input", { type: "text", readonly: true, value, "data-testid": testId, "aria-label": label, onfocus: (e: Event) => (e.target as HTMLInputElement).select() }),
    copyButton(value));
}

/** A coloured status word. */
export function badge(text: string, tone: "ok" | "warn" | "bad" | "info" | "muted" = "muted"): HTMLElement {
  return h("span", { class: `badge ${tone}` }, text);
}

/** A message area that shows errors or notices. */
export function notice(text: string, tone: "error" | "info" | "success" = "info"): HTMLElement {
  return h("p", { class: `notice ${tone}`, role: tone === "error" ? "alert" : "status" }, text);
}

/** A form whose submit runs `action` with its fields, disabling the form meanwhile and showing any error. */
export function form(attrs: Attrs, action: (data: FormData, form: HTMLFormElement) => Promise<void>, ...children: Child[]): HTMLFormElement {
  const errorBox = h("div", { class: "form-error" });
  const el = h("form", attrs, ...children, errorBox);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    // Read the fields before disabling them: disabled fields are left out of FormData.
    const data = new FormData(el);
    const fieldset = el.querySelectorAll("button, input, select");
    fieldset.forEach((f) => ((f as HTMLButtonElement).disabled = true));
    errorBox.replaceChildren();
    try {
      await action(data, el);
    } catch (err) {
      errorBox.replaceChildren(notice(err instanceof Error ? err.message : String(err), "error"));
    } finally {
      fieldset.forEach((f) => ((f as HTMLButtonElement).disabled = false));
    }
  });
  return el;
}

/**
 * Rebuilds only what changed between two renders of a polled list: an item whose signature (its
 * JSON) is the same keeps its element, so images and players inside it are not reloaded.
 */
export function keyedRenderer<T>(key: (item: T) => string, build: (item: T) => HTMLElement): (items: T[]) => HTMLElement[] {
  let previous = new Map<string, { signature: string; el: HTMLElement }>();
  return (items) => {
    const next = new Map<string, { signature: string; el: HTMLElement }>();
    const elements = items.map((item) => {
      const signature = JSON.stringify(item);
      const kept = previous.get(key(item));
      const entry = kept && kept.signature === signature ? kept : { signature, el: build(item) };
      next.set(key(item), entry);
      return entry.el;
    });
    previous = next;
    return elements;
  };
}

/** Puts `elements` in `parent` unless they are already its children in that order (moving an iframe reloads it). */
export function updateChildren(parent: Element, elements: Element[]): void {
  const same = parent.children.length === elements.length && elements.every((el, i) => parent.children[i] === el);
  if (!same) parent.replaceChildren(...elements);
}
