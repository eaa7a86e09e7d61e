/**
 * A small service manager for test nodes, driven like systemd: units with `Environment=`,
 * `EnvironmentFile=` (re-read at every start, later files and files over `Environment=`),
 * `ExecStart=` with `$VAR` word splitting, `Restart=always` after `RestartSec=`; and the
 * `systemctl` verbs kubeadm uses (`daemon-reload`, `start`, `stop`, `restart`, `enable`,
 * `disable` (both with `--now`), `is-active`, `is-enabled`, `status`, `cat`, `show`), with
 * systemctl's output and exit codes.
 *
 * `daemon-reload` also loads the unit files written to the node's `/etc/systemd/system`: a
 * `Type=oneshot` service (started, it runs `ExecStart=` to completion and records its
 * `Result=`) and a `.timer` for it (enabled and started, it waits). Time does not pass here:
 * a test fires a timer ({@link ServiceManager.fireTimer}), which runs its service as systemd
 * would when the calendar elapses, output in the unit's log (the node's journal).
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
  /** `Type=oneshot`: runs to completion when started, never restarted. */
  oneshot?: boolean;
  /** A timer (`<name>.timer`): `timer` is the service it starts. */
  timer?: string;
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
  /** The names of the files in a node directory (none when it does not exist). */
  listFiles(nodeDir: string): Promise<string[]>;
  /**
   * The `PATH` systemd gives every service that sets none (the node's bin dir standing in for
   * `/usr/bin`); like systemd, no `HOME` for a root service.
   */
  defaultPath: string;
}

/** Where administrators' unit files are (what `daemon-reload` loads). */
const UNIT_DIR = "/etc/systemd/system";

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

/** Splits `ExecStart=` as systemd does: words, double-quoted words with `\\` escapes. */
export function splitExecStart(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    words.push((m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]).replaceAll("%%", "%"));
  }
  return words;
}

/** A unit file's settings (`Key=value` lines; the last wins). */
function unitSettings(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

/** A unit from its file in `/etc/systemd/system`, or `undefined` when it is not one we run. */
export function unitFromFile(file: string, text: string): UnitSpec | undefined {
  const settings = unitSettings(text);
  const base = {
    description: settings.get("Description") ?? "",
    environment: {},
    environmentFiles: [],
    restartSecMs: 0,
    enabled: false,
  };
  if (file.endsWith(".timer")) {
    const name = file.slice(0, -".timer".length);
    return {
      ...base,
      name: file,
      execStart: [],
      timer: settings.get("Unit")?.replace(/\.service$/, "") ?? name,
    };
  }
  if (!file.endsWith(".service") || settings.get("Type") !== "oneshot") return undefined;
  return {
    ...base,
    name: file.slice(0, -".service".length),
    execStart: splitExecStart(settings.get("ExecStart") ?? ""),
    oneshot: true,
  };
}

/** What a oneshot service's last run ended with (`systemctl show -p Result,ExecMainStatus`). */
export interface OneshotResult {
  /** `success`, or `exit-code` when ExecStart failed. */
  result: string;
  exitCode: number;
}

interface UnitState {
  spec: UnitSpec;
  /** A oneshot's last run, a timer's last trigger. */
  last?: OneshotResult;
  lastTrigger?: Date;
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

  /** `daemon-reload`: (re)loads the oneshot services and timers of `/etc/systemd/system`. */
  async #reload(): Promise<void> {
    const found = new Set<string>();
    for (const file of await this.#host.listFiles(UNIT_DIR)) {
      const text = await this.#host.readFile(`${UNIT_DIR}/${file}`);
      const spec = text === undefined ? undefined : unitFromFile(file, text);
      if (!spec) continue;
      found.add(spec.name);
      const u = this.#units.get(spec.name);
      if (u) u.spec = { ...spec, enabled: u.spec.enabled };
      else this.#units.set(spec.name, { spec, wanted: false, starts: 0, generation: 0 });
    }
    for (const [name, u] of this.#units) {
      if ((u.spec.oneshot || u.spec.timer) && !found.has(name)) this.#units.delete(name);
    }
  }

  /**
   * Fires a started timer as systemd does when its calendar elapses: runs its service once and
   * resolves with how that run ended.
   */
  async fireTimer(timer: string): Promise<OneshotResult> {
    const t = this.#unit(timer);
    if (!t.spec.timer) throw new Error(`${timer} is not a timer`);
    if (!t.wanted) throw new Error(`${timer} is not started`);
    t.lastTrigger = new Date();
    await this.start(t.spec.timer);
    return this.#unit(t.spec.timer).last!;
  }

  /** Whether the unit's process is running. */
  isActive(name: string): boolean {
    return this.#unit(name).process !== undefined;
  }

  async #environment(spec: UnitSpec): Promise<Record<string, string>> {
    const env: Record<string, string> = { PATH: this.#host.defaultPath, ...spec.environment };
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
    if (u.spec.oneshot) {
      // systemctl start of a oneshot returns when it has run.
      const code = await proc.exited;
      u.process = undefined;
      u.wanted = false;
      u.last = { result: code === 0 ? "success" : "exit-code", exitCode: code };
      return;
    }
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

  /** `systemctl start`: starts the unit unless it runs (a timer starts waiting). */
  async start(name: string): Promise<void> {
    const u = this.#unit(name);
    u.wanted = true;
    if (u.spec.timer || u.process || u.timer !== undefined) return;
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
    if (spec.oneshot || spec.timer) {
      return `# /etc/systemd/system/${spec.timer ? spec.name : `${spec.name}.service`}\n`;
    }
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
    const now = args.includes("--now");
    switch (verb) {
      case "daemon-reload":
        await this.#reload();
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
          else {
            this.#unit(n).spec.enabled = verb === "enable";
            if (now && verb === "enable") await this.start(n);
            if (now && verb === "disable") await this.stop(n);
          }
        }
        return ok();
      }
      case "show": {
        const n = names[0] ?? "";
        const wanted = args.find((a) => a.startsWith("--property="))?.slice(11).split(",") ?? [];
        const props: Record<string, string> = { LoadState: known(n) ? "loaded" : "not-found" };
        if (known(n)) {
          const u = this.#unit(n);
          props.ActiveState = u.process || (u.spec.timer && u.wanted) ? "active" : "inactive";
          props.UnitFileState = u.spec.enabled ? "enabled" : "disabled";
          props.Result = u.last?.result ?? "success";
          props.ExecMainStatus = String(u.last?.exitCode ?? 0);
          props.LastTriggerUSec = u.lastTrigger?.toUTCString() ?? "n/a";
          props.NextElapseUSecRealtime = u.spec.timer && u.wanted ? "(fired by the test)" : "n/a";
        }
        const shown = wanted.length > 0 ? wanted : Object.keys(props);
        return ok(shown.map((p) => `${p}=${props[p] ?? ""}\n`).join(""));
      }
      case "is-active": {
        const states = names.map((n) => {
          if (!known(n)) return "inactive";
          const u = this.#unit(n);
          if (u.spec.timer) return u.wanted ? "active" : "inactive";
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
