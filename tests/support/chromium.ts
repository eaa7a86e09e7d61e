/**
 * Headless Chromium driven over the DevTools protocol (CDP) on a WebSocket, with no npm
 * dependency: launch with `--remote-debugging-port=0`, read the port from the profile's
 * `DevToolsActivePort` file, attach to a fresh tab and send commands (navigate, evaluate,
 * set files on an `<input type=file>`).
 *
 * @module
 */

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--remote-debugging-port=0",
];

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
}

/** A running browser with one tab. */
export class Chromium {
  readonly #child: Deno.ChildProcess;
  readonly #profile: string;
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners: ((method: string, params: Record<string, unknown>) => void)[] = [];
  #nextId = 1;
  #session = "";
  /** Console messages and uncaught exceptions of the page. */
  readonly console: string[] = [];

  private constructor(child: Deno.ChildProcess, profile: string, ws: WebSocket) {
    this.#child = child;
    this.#profile = profile;
    this.#ws = ws;
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data as string);
      if (msg.id !== undefined) {
        const p = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`CDP: ${msg.error.message}`));
        else p?.resolve(msg.result ?? {});
      } else if (msg.method) {
        for (const l of this.#listeners) l(msg.method, msg.params ?? {});
      }
    };
  }

  /** Launches Chromium and opens a blank tab. */
  static async launch(): Promise<Chromium> {
    const profile = await Deno.makeTempDir({ prefix: "kubeadm-chromium-" });
    const child = new Deno.Command(CHROMIUM, {
      args: [...FLAGS, `--user-data-dir=${profile}`, "about:blank"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    let active = "";
    for (let i = 0; i < 200 && !active.includes("\n"); i++) {
      try {
        active = await Deno.readTextFile(`${profile}/DevToolsActivePort`);
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!active.includes("\n")) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`${CHROMIUM} did not open its DevTools port`);
    }
    const [port, path] = active.trim().split("\n");
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("cannot connect to the DevTools WebSocket"));
    });
    const browser = new Chromium(child, profile, ws);
    const { targetId } = await browser.#send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await browser.#send("Target.attachToTarget", {
      targetId,
      flatten: true,
    });
    browser.#session = sessionId as string;
    browser.#listeners.push((method, params) => {
      if (method === "Runtime.consoleAPICalled") {
        const args = (params.args as { value?: unknown; description?: string }[]) ?? [];
        browser.console.push(args.map((a) => String(a.value ?? a.description)).join(" "));
      } else if (method === "Runtime.exceptionThrown") {
        const d = params.exceptionDetails as {
          exception?: { description?: string };
          text?: string;
        };
        browser.console.push(`uncaught: ${d.exception?.description ?? d.text}`);
      }
    });
    await browser.send("Page.enable");
    await browser.send("Runtime.enable");
    await browser.send("DOM.enable");
    return browser;
  }

  #send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const msg: Record<string, unknown> = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify(msg));
    });
  }

  /** Sends a command to the tab. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.#send(method, params, this.#session);
  }

  /** Navigates and waits for the load event. */
  async goto(url: string, timeoutMs = 20_000): Promise<void> {
    let onLoad: (method: string) => void = () => {};
    const loaded = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out loading ${url}`)), timeoutMs);
      onLoad = (method) => {
        if (method === "Page.loadEventFired") {
          clearTimeout(timer);
          resolve();
        }
      };
      this.#listeners.push(onLoad);
    });
    const r = await this.send("Page.navigate", { url });
    if (r.errorText) throw new Error(`navigation to ${url} failed: ${r.errorText}`);
    await loaded;
    this.#listeners.splice(this.#listeners.indexOf(onLoad), 1);
  }

  /** Evaluates an expression in the page (awaiting promises) and returns its JSON value. */
  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.send("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (r.exceptionDetails) {
      const d = r.exceptionDetails as { exception?: { description?: string }; text?: string };
      throw new Error(`page error: ${d.exception?.description ?? d.text}`);
    }
    return (r.result as { value: T }).value;
  }

  /** Polls `expression` until it is truthy; returns its value. */
  async waitFor<T>(expression: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.evaluate<T>(expression);
      if (v) return v;
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${expression}; console: ${this.console.join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Puts files into an `<input type=file>` (fires its change event). */
  async setInputFiles(selector: string, files: string[]): Promise<void> {
    const { root } = await this.send("DOM.getDocument", {}) as { root: { nodeId: number } };
    const { nodeId } = await this.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no element matches ${selector}`);
    await this.send("DOM.setFileInputFiles", { nodeId, files });
  }

  /** Closes the browser and removes its profile. */
  async close(): Promise<void> {
    try {
      await this.#send("Browser.close").catch(() => {});
      this.#ws.close();
    } finally {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = await Promise.race([
        this.#child.status.then(() => true),
        new Promise<boolean>((r) => timer = setTimeout(() => r(false), 5_000)),
      ]);
      clearTimeout(timer);
      if (!done) {
        this.#child.kill("SIGKILL");
        await this.#child.status;
      }
      await Deno.remove(this.#profile, { recursive: true }).catch(() => {});
    }
  }
}
