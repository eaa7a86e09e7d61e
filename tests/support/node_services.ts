/**
 * A small service manager for test nodes, driven like systemd: units with `Environment=`,
 * `EnvironmentFile=` (re-read at every start, later files and files over `Environment=`),
 * `ExecStart=` with `$VAR` word splitting, `Restart=always` after `RestartSec=`; and the
 * `systemctl` verbs kubeadm uses (`daemon-reload`, `start`, `stop`, `restart`, `enable`,
 * `disable`, `is-active`, `is-enabled`, `status`, `cat`), with systemctl's output and exit codes.
 *
 * It runs in the test process: processes are started inside the node through a `spawn`
 * function (the node's namespaces), and the node's `systemctl` (tests/support/node_systemctl.ts)
 * reaches it over a Unix socket, so kubeadm inside the node restarts the kubelet exactly as on
 * a real host.
 *
 * @module
 */

/** A unit, as far as kubeadm's use of systemd matters. */
export interface UnitSpec {
  /** `kubelet` (the unit is `kubelet.service`). */
  name: string;
  description: string;
  /** `Environment=` assignments. */
  environment: Record<string, string>;
  /** `EnvironmentFile=` paths (node paths; a leading `-` means optional). */
  environmentFiles: string[];
  /** `ExecStart=` words; a word `$NAME` expands to the variable split on whitespace. */
  execStart: string[];
  /** `RestartSec=` in ms (`Restart=always`). */
  restartSecMs: number;
  /** Started at boot (`systemctl is-enabled`). */
  enabled: boolean;
}

/** A process started for a unit. */
export interface UnitProcess {
  /** Resolves with the exit code when the process has ended. */
  readonly exited: Promise<number>;
  /** Sends a signal to the unit's main process. */
  kill(signal: Deno.Signal): void;
}

/** How the manager reaches the node. */
export interface ServiceHost {
  /** Reads a node file; `undefined` when it does not exist. */
  readFile(nodePath: string): Promise<string | undefined>;
  /** Starts argv inside the node with exactly `env`, output appended to the unit's log. */
  spawn(unit: string, argv: string[], env: Record<string, string>): Promise<UnitProcess>;
}

/** Output of one `systemctl` invocation. */
export interface SystemctlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`; waits for the exit. */
export async function terminate(proc: UnitProcess, graceMs: number): Promise<void> {
  const signal = (s: Deno.Signal) => {
    try {
      proc.kill(s);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Parses a systemd environment file: `KEY=VALUE` lines, `#`/`;` comments, quotes. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\(["\\$`])/g, "$1");
    }
    out[key] = value;
  }
  return out;
}

/** Expands `ExecStart=` words: `$NAME`/`${NAME}` alone is split into words, else substituted. */
export function expandExecStart(words: string[], env: Record<string, string>): string[] {
  const out: string[] = [];
  for (const w of words) {
    const whole = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(w);
    if (whole) {
      out.push(...(env[whole[1] ?? whole[2]] ?? "").split(/\s+/).filter(Boolean));
    } else {
      out.push(w.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, n) => env[n] ?? ""));
    }
  }
  return out;
}

interface UnitState {
  spec: UnitSpec;
  /** Whether the unit should run (started and not stopped). */
  wanted: boolean;
  process?: UnitProcess;
  /** Pending restart timer. */
  timer?: ReturnType<typeof setTimeout>;
  /** Starts so far. */
  starts: number;
  /** Bumped on every start/stop, so a stale exit handler does nothing. */
  generation: number;
}

/** The node's service manager. */
export class ServiceManager {
  readonly #host: ServiceHost;
  readonly #units = new Map<string, UnitState>();
  /** Every `systemctl` command line received, in order. */
  readonly history: string[][] = [];

  constructor(host: ServiceHost, units: UnitSpec[]) {
    this.#host = host;
    for (const spec of units) {
      this.#units.set(spec.name, { spec, wanted: false, starts: 0, generation: 0 });
    }
  }

  /** How many times a unit has been started. */
  starts(name: string): number {
    return this.#unit(name).starts;
  }

  #unit(name: string): UnitState {
    const u = this.#units.get(name.replace(/\.service$/, ""));
    if (!u) throw new Error(`unknown unit ${name}`);
    return u;
  }

  /** Whether the unit's process is running. */
  isActive(name: string): boolean {
    return this.#unit(name).process !== undefined;
  }

  async #environment(spec: UnitSpec): Promise<Record<string, string>> {
    const env: Record<string, string> = { ...spec.environment };
    for (const entry of spec.environmentFiles) {
      const optional = entry.startsWith("-");
      const path = optional ? entry.slice(1) : entry;
      const text = await this.#host.readFile(path);
      if (text === undefined) {
        if (optional) continue;
        throw new Error(`Failed to load environment files: ${path}: No such file or directory`);
      }
      Object.assign(env, parseEnvironmentFile(text));
    }
    return env;
  }

  async #spawn(u: UnitState): Promise<void> {
    const generation = ++u.generation;
    const env = await this.#environment(u.spec);
    const argv = expandExecStart(u.spec.execStart, env);
    u.starts++;
    const proc = await this.#host.spawn(u.spec.name, argv, env);
    u.process = proc;
    proc.exited.then(() => {
      if (u.generation !== generation) return;
      u.process = undefined;
      if (!u.wanted) return;
      u.timer = setTimeout(() => {
        u.timer = undefined;
        if (u.wanted && u.generation === generation) this.#spawn(u).catch(() => {});
      }, u.spec.restartSecMs);
    });
  }

  /** `systemctl start`: starts the unit unless it runs. */
  async start(name: string): Promise<void> {
    const u = this.#unit(name);
    u.wanted = true;
    if (u.process || u.timer !== undefined) return;
    await this.#spawn(u);
  }

  /** `systemctl stop`: SIGTERM, SIGKILL after `timeoutMs`, and waits for the exit. */
  async stop(name: string, timeoutMs = 15_000): Promise<void> {
    const u = this.#unit(name);
    u.wanted = false;
    u.generation++;
    if (u.timer !== undefined) clearTimeout(u.timer);
    u.timer = undefined;
    const proc = u.process;
    u.process = undefined;
    if (proc) await terminate(proc, timeoutMs);
  }

  /** `systemctl restart`. */
  async restart(name: string): Promise<void> {
    await this.stop(name);
    await this.start(name);
  }

  /** Stops every unit (the node's shutdown). */
  async stopAll(): Promise<void> {
    for (const name of [...this.#units.keys()].reverse()) await this.stop(name);
  }

  /** The unit file as `systemctl cat` shows it. */
  unitText(name: string): string {
    const { spec } = this.#unit(name);
    return [
      `# /etc/systemd/system/${spec.name}.service (kubeadm-ts test node)`,
      "[Unit]",
      `Description=${spec.description}`,
      "",
      "[Service]",
      ...Object.entries(spec.environment).map(([k, v]) => `Environment="${k}=${v}"`),
      ...spec.environmentFiles.map((f) => `EnvironmentFile=${f}`),
      `ExecStart=${spec.execStart.join(" ")}`,
      "Restart=always",
      `RestartSec=${spec.restartSecMs / 1000}`,
      "",
      "[Install]",
      "WantedBy=multi-user.target",
      "",
    ].join("\n");
  }

  /** Runs one `systemctl` command line. */
  async systemctl(args: string[]): Promise<SystemctlResult> {
    this.history.push(args);
    const words = args.filter((a) => !a.startsWith("-"));
    const [verb, ...names] = words;
    const ok = (stdout = ""): SystemctlResult => ({ code: 0, stdout, stderr: "" });
    const known = (n: string) => this.#units.has(n.replace(/\.service$/, ""));
    const notFound = (n: string): SystemctlResult => ({
      code: 5,
      stdout: "",
      stderr: `Failed to ${verb} ${n}: Unit ${n.replace(/\.service$/, "")}.service not found.\n`,
    });
    switch (verb) {
      case "daemon-reload":
        return ok();
      case "start":
      case "stop":
      case "restart":
      case "enable":
      case "disable": {
        for (const n of names) {
          if (!known(n)) return notFound(n);
          if (verb === "start") await this.start(n);
          else if (verb === "stop") await this.stop(n);
          else if (verb === "restart") await this.restart(n);
          else this.#unit(n).spec.enabled = verb === "enable";
        }
        return ok();
      }
      case "is-active": {
        const states = names.map((n) => {
          if (!known(n)) return "inactive";
          const u = this.#unit(n);
          return u.process ? "active" : u.timer !== undefined ? "activating" : "inactive";
        });
        return {
          code: states.every((s) => s === "active") ? 0 : 3,
          stdout: states.join("\n") + "\n",
          stderr: "",
        };
      }
      case "is-enabled": {
        const states = names.map((n) =>
          known(n) ? (this.#unit(n).spec.enabled ? "enabled" : "disabled") : "not-found"
        );
        return {
          code: states.every((s) => s === "enabled") ? 0 : 1,
          stdout: states.join("\n") + "\n",
          stderr: "",
        };
      }
      case "status": {
        const n = names[0] ?? "";
        if (!known(n)) {
          return {
            code: 4,
            stdout: "",
            stderr: `Unit ${n.replace(/\.service$/, "")}.service could not be found.\n`,
          };
        }
        const u = this.#unit(n);
        const active = u.process ? "active (running)" : "inactive (dead)";
        return {
          code: u.process ? 0 : 3,
          stdout: [
            `● ${u.spec.name}.service - ${u.spec.description}`,
            `     Loaded: loaded (/etc/systemd/system/${u.spec.name}.service; ${
              u.spec.enabled ? "enabled" : "disabled"
            }; preset: enabled)`,
            `     Active: ${active}`,
            "",
          ].join("\n"),
          stderr: "",
        };
      }
      case "cat": {
        const n = names[0] ?? "";
        if (!known(n)) return { code: 1, stdout: "", stderr: `No files found for ${n}.\n` };
        return ok(this.unitText(n));
      }
      default:
        return { code: 1, stdout: "", stderr: `Unknown command verb ${verb}.\n` };
    }
  }

  /**
   * Serves `systemctl` for the node on a Unix socket (POST a JSON array of arguments; the answer
   * is a {@link SystemctlResult} as JSON). Returns a function that stops serving.
   */
  serve(socketPath: string): { ready: Promise<void>; close: () => Promise<void> } {
    const listening = Promise.withResolvers<void>();
    const server = Deno.serve(
      { path: socketPath, onListen: () => listening.resolve() },
      async (req) => {
        let args: unknown;
        try {
          args = await req.json();
        } catch {
          return new Response("bad request", { status: 400 });
        }
        if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
          return new Response("bad request", { status: 400 });
        }
        let result: SystemctlResult;
        try {
          result = await this.systemctl(args);
        } catch (e) {
          result = { code: 1, stdout: "", stderr: `${e instanceof Error ? e.message : e}\n` };
        }
        return Response.json(result);
      },
    );
    return { ready: listening.promise, close: () => server.shutdown() };
  }
}
