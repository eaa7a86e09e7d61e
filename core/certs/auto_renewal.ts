/**
 * Automatic certificate renewal on a control-plane node (beyond upstream, whose renewal happens
 * only when someone runs `certs renew` or `upgrade apply`): a schedule that runs
 * `kubeadm certs auto-renewal run` — renew what expires within a window, restart what uses it —
 * installed, removed and reported by `kubeadm certs auto-renewal install|remove|status`.
 *
 * - systemd: `/etc/systemd/system/kubeadm-certs-renewal.service` (a oneshot whose output goes to
 *   the journal under the identifier `kubeadm-certs-renewal`) and `kubeadm-certs-renewal.timer`
 *   (`OnCalendar=` the schedule, a randomized delay so that the control planes do not all start
 *   together, `Persistent=true` so that a run missed while the machine was off happens at the
 *   next boot), enabled and started with `systemctl enable --now`.
 * - OpenRC (no timers): a script in `/etc/periodic/<schedule>/`, which the cron daemon's
 *   `run-parts` runs (Alpine's `crond` does out of the box), logging through `logger` to syslog
 *   under the same tag; the cron daemon (`crond`) is enabled and started if it is not.
 *
 * `kubeadm init` and `kubeadm join --control-plane` install it at their end when given
 * `--certificate-auto-renewal` (their `certs-auto-renewal` phase, with the default
 * settings; a worker join is refused).
 *
 * Installing writes only files whose content differs and enables what is not enabled, so a
 * second install changes nothing; installing with other settings replaces the files (and, on
 * OpenRC, removes the script from the previous schedule's folder). Removing stops and disables
 * the timer and deletes the files; with nothing installed it does nothing. `kubeadm reset`
 * removes it too.
 *
 * @module
 */
import { errorMessage, FlagError, KubeadmError } from "../errors.ts";
import type { CertificateExpiration, CertificateExpirationInfo } from "./expiration.ts";
import { expiringWithin } from "./expiration.ts";
import {
  KUBELET_CONF_TARGET,
  kubeletClientLine,
  type KubeletClientState,
  kubeletClientState,
  kubeletConfDue,
} from "./kubelet_conf.ts";
import type { FileReader, PlannedFile } from "../ports/files.ts";
import type { InitSystem } from "../ports/services.ts";
import type { NodeHost } from "../ports/node.ts";
import type { Printer } from "../ports/printer.ts";
import { formatDurationNs, parseDurationNs } from "../text/duration.ts";
import { utf8 } from "../text/utf8.ts";

/** The name of the units (systemd) and of the script (OpenRC), and the log identifier. */
export const AUTO_RENEWAL_NAME = "kubeadm-certs-renewal";

/** Where systemd unit files of the administrator live. */
const SYSTEMD_UNIT_DIR = "/etc/systemd/system";
/** Where the cron daemon's periodic scripts live on OpenRC hosts (Alpine's layout). */
const PERIODIC_DIR = "/etc/periodic";
/** The cron daemon an OpenRC host runs the periodic scripts with. */
const CRON_SERVICE = "crond";

/** How often the renewal runs: the periods systemd's calendar and `/etc/periodic` share. */
export const RENEWAL_SCHEDULES = ["hourly", "daily", "weekly", "monthly"] as const;
/** One of {@link RENEWAL_SCHEDULES}. */
export type RenewalSchedule = typeof RENEWAL_SCHEDULES[number];

/** The default schedule. */
export const DEFAULT_RENEWAL_SCHEDULE: RenewalSchedule = "daily";
/** The default window: renew what expires within 30 days. */
export const DEFAULT_RENEWAL_WINDOW = "720h0m0s";
/** The shortest window: a window below the schedule's period could miss an expiry. */
const MIN_WINDOW_NS = 3_600_000_000_000n;

/** What a schedule runs, and when. */
export interface AutoRenewalSettings {
  /** Renew what expires within this Go duration (normalized, `720h0m0s`). */
  window: string;
  schedule: RenewalSchedule;
  /** Also approve the kubelets' serving certificate requests (`serverTLSBootstrap: true`). */
  approveKubeletServing: boolean;
  /** The kubeadm command the schedule runs (an absolute path, then any leading arguments). */
  command: readonly string[];
}

/**
 * Parses and checks a renewal window (`--within`): a Go duration of at least one hour, and
 * shorter than the certificates' validity (`certificateValidityPeriod`, default 8760h), since
 * a window as long as the validity would renew every certificate at every run. Returns it
 * normalized.
 */
export function parseRenewalWindow(
  text: string,
  certificateValidityPeriod: string | undefined,
): string {
  let ns: bigint;
  try {
    ns = parseDurationNs(text);
  } catch (e) {
    throw new FlagError(
      `invalid argument ${JSON.stringify(text)} for "--within" flag: ${errorMessage(e)}`,
      {
        field: "--within",
        value: text,
        hint: "give a Go duration of at least 1h, e.g. 720h (30 days)",
      },
    );
  }
  // Unset: upstream's 8760h, as the renewal takes it.
  const validity = parseDurationNs(certificateValidityPeriod ?? "8760h");
  if (ns < MIN_WINDOW_NS || ns >= validity) {
    throw new FlagError(
      `invalid argument ${
        JSON.stringify(text)
      } for "--within" flag: the window must be at least 1h and shorter than the certificates' validity (${
        formatDurationNs(validity)
      })`,
      {
        field: "--within",
        value: text,
        hint: ns >= validity
          ? "a window as long as the validity would renew every certificate at every run; 720h (30 days) is the default"
          : "the schedule runs at most hourly: give a window of at least 1h, e.g. 720h",
      },
    );
  }
  return formatDurationNs(ns);
}

/** Checks `--schedule`. */
export function parseRenewalSchedule(text: string): RenewalSchedule {
  const found = RENEWAL_SCHEDULES.find((s) => s === text);
  if (!found) {
    throw new FlagError(
      `invalid argument ${JSON.stringify(text)} for "--schedule" flag: must be one of ${
        RENEWAL_SCHEDULES.join(", ")
      }`,
      { field: "--schedule", value: text, hint: `the default is ${DEFAULT_RENEWAL_SCHEDULE}` },
    );
  }
  return found;
}

/** The arguments of the scheduled run, after the command. */
export function autoRenewalRunArgs(settings: AutoRenewalSettings): string[] {
  return [
    "certs",
    "auto-renewal",
    "run",
    "--within",
    settings.window,
    ...(settings.approveKubeletServing ? ["--approve-kubelet-serving"] : []),
  ];
}

/** A word of `ExecStart=` as systemd reads it back (quoted, `%` and `$` escaped). */
function systemdWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  if (/^[A-Za-z0-9_@+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** A word of a POSIX shell command line. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The randomized delay of a schedule: a tenth of the period at most, one hour at most. */
function randomizedDelay(schedule: RenewalSchedule): string {
  return schedule === "hourly" ? "5min" : "1h";
}

const HEADER = (comment: string) => [
  `${comment} Installed by 'kubeadm certs auto-renewal install'; remove it with 'kubeadm certs auto-renewal remove'.`,
];

function describe(settings: AutoRenewalSettings): string {
  return `renew the control plane's certificates expiring within ${settings.window} and restart what uses them${
    settings.approveKubeletServing ? ", approve the kubelets' serving certificates" : ""
  }`;
}

/** The systemd service and timer. */
function systemdFiles(settings: AutoRenewalSettings): PlannedFile[] {
  const exec = [...settings.command, ...autoRenewalRunArgs(settings)].map(systemdWord).join(" ");
  const service = [
    ...HEADER("#"),
    "[Unit]",
    `Description=kubeadm: ${describe(settings)}`,
    "Documentation=https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-certs/",
    "After=kubelet.service",
    "",
    "[Service]",
    "Type=oneshot",
    `ExecStart=${exec}`,
    `SyslogIdentifier=${AUTO_RENEWAL_NAME}`,
    "",
  ].join("\n");
  const timer = [
    ...HEADER("#"),
    "[Unit]",
    `Description=kubeadm: ${settings.schedule} certificate renewal`,
    "",
    "[Timer]",
    `OnCalendar=${settings.schedule}`,
    `RandomizedDelaySec=${randomizedDelay(settings.schedule)}`,
    "Persistent=true",
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n");
  return [
    {
      path: `${SYSTEMD_UNIT_DIR}/${AUTO_RENEWAL_NAME}.service`,
      data: service,
      mode: 0o644,
      kind: "service",
    },
    {
      path: `${SYSTEMD_UNIT_DIR}/${AUTO_RENEWAL_NAME}.timer`,
      data: timer,
      mode: 0o644,
      kind: "service",
    },
  ];
}

/** The OpenRC host's periodic script. */
function openrcFiles(settings: AutoRenewalSettings): PlannedFile[] {
  const exec = [...settings.command, ...autoRenewalRunArgs(settings)].map(shellWord).join(" ");
  const script = [
    "#!/bin/sh",
    ...HEADER("#"),
    `# Run ${settings.schedule} by the cron daemon: ${describe(settings)}.`,
    `# Its output goes to syslog with the tag ${AUTO_RENEWAL_NAME}.`,
    `{ ${exec} 2>&1; echo "exit status $?"; } | logger -t ${AUTO_RENEWAL_NAME}`,
    "",
  ].join("\n");
  return [{
    path: `${PERIODIC_DIR}/${settings.schedule}/${AUTO_RENEWAL_NAME}`,
    data: script,
    mode: 0o755,
    kind: "service",
  }];
}

/** The files of a schedule on this init system (`systemd` or `openrc`). */
export function autoRenewalFiles(initSystem: string, settings: AutoRenewalSettings): PlannedFile[] {
  if (!settings.command[0]?.startsWith("/")) {
    throw new KubeadmError(
      `the command a certificate renewal schedule runs must start with an absolute path, not ${
        JSON.stringify(settings.command[0] ?? "")
      }`,
      { field: "command", hint: "give kubeadm's absolute path, e.g. /usr/bin/kubeadm" },
    );
  }
  switch (initSystem) {
    case "systemd":
      return systemdFiles(settings);
    case "openrc":
      return openrcFiles(settings);
  }
  throw unsupported(initSystem);
}

function unsupported(initSystem: string | undefined): KubeadmError {
  return new KubeadmError(
    `certificate auto-renewal needs systemd or OpenRC; ${
      initSystem ? `this machine runs ${initSystem}` : "neither was found on this machine"
    }`,
    { hint: "run 'kubeadm certs auto-renewal run' from the scheduler this machine has" },
  );
}

/** Every path a schedule of this init system may have written (OpenRC: each period's). */
function candidatePaths(initSystem: string): string[] {
  return initSystem === "systemd"
    ? [
      `${SYSTEMD_UNIT_DIR}/${AUTO_RENEWAL_NAME}.service`,
      `${SYSTEMD_UNIT_DIR}/${AUTO_RENEWAL_NAME}.timer`,
    ]
    : RENEWAL_SCHEDULES.map((s) => `${PERIODIC_DIR}/${s}/${AUTO_RENEWAL_NAME}`);
}

/** The unit that is enabled: systemd's timer, OpenRC's cron daemon. */
export function scheduledUnit(initSystem: string): string {
  return initSystem === "systemd" ? `${AUTO_RENEWAL_NAME}.timer` : CRON_SERVICE;
}

/** The flag of `init` and `join` that installs the schedule at their end (beyond upstream). */
export const AUTO_RENEWAL_FLAG = "--certificate-auto-renewal";
export { AUTO_RENEWAL_PHASE } from "../constants.ts";

/** What `init` and `join` hand their phase when asked: the kubeadm the schedule runs. */
export interface AutoRenewalRequest {
  /** An absolute path, then any leading arguments. */
  command: readonly string[];
}

/**
 * Checks `--certificate-auto-renewal` before anything is done: a worker join has no control
 * plane to renew, and a `--rootfs` for another machine is not the machine whose service
 * manager would run the schedule.
 */
export function checkAutoRenewalRequest(o: { controlPlane: boolean; foreignRoot?: string }) {
  if (!o.controlPlane) {
    throw new FlagError(
      `${AUTO_RENEWAL_FLAG} installs a schedule that renews a control plane's certificates, and this join adds a worker`,
      {
        field: AUTO_RENEWAL_FLAG,
        hint:
          "give it with --control-plane, or leave it out: a worker's kubelet rotates its own client certificate",
      },
    );
  }
  if (o.foreignRoot !== undefined) {
    throw new FlagError(
      `${AUTO_RENEWAL_FLAG} sets the schedule up on the running machine, and --rootfs names another root (${o.foreignRoot})`,
      {
        field: AUTO_RENEWAL_FLAG,
        hint: "leave it out and run 'kubeadm certs auto-renewal install' on the node itself",
      },
    );
  }
}

/**
 * The settings `--certificate-auto-renewal` installs: the defaults (daily, renew what expires
 * within 720h, no serving-certificate approval), the window checked against the cluster's
 * `certificateValidityPeriod`; a refusal names the flag.
 */
export function requestedAutoRenewalSettings(
  request: AutoRenewalRequest,
  certificateValidityPeriod: string | undefined,
): AutoRenewalSettings {
  let window: string;
  try {
    window = parseRenewalWindow(DEFAULT_RENEWAL_WINDOW, certificateValidityPeriod);
  } catch (e) {
    throw new FlagError(
      `${AUTO_RENEWAL_FLAG} renews what expires within ${DEFAULT_RENEWAL_WINDOW}, which is not shorter than the cluster's certificateValidityPeriod (${certificateValidityPeriod})`,
      {
        field: AUTO_RENEWAL_FLAG,
        cause: e,
        hint:
          "leave it out and run 'kubeadm certs auto-renewal install --within <a shorter window>' afterwards",
      },
    );
  }
  return {
    window,
    schedule: DEFAULT_RENEWAL_SCHEDULE,
    approveKubeletServing: false,
    command: request.command,
  };
}

/** What installing, removing or reporting needs of the node. */
export interface AutoRenewalNode {
  /** The node's files (writes atomic); a dry run's records them. */
  files: FileReader & { write(file: PlannedFile): Promise<void> };
  /** Removes a file; missing is not an error. */
  removeFile(path: string): Promise<void>;
  /** The init system (`undefined`: neither systemd nor OpenRC). */
  init: InitSystem | undefined;
  out: { info(line: string): void; warn(line: string): void };
  /** Say what would be done, change nothing. */
  dryRun: boolean;
}

async function readText(files: FileReader, path: string): Promise<string | undefined> {
  const data = await files.read(path);
  return data === undefined ? undefined : utf8(data);
}

/**
 * Installs the schedule (see the module documentation); idempotent. Checks that the init
 * system is supported (and on OpenRC that a cron daemon is installed) before any write.
 */
export async function installAutoRenewal(
  node: AutoRenewalNode,
  settings: AutoRenewalSettings,
): Promise<void> {
  const { init, out } = node;
  if (!init) throw unsupported(undefined);
  const files = autoRenewalFiles(init.name, settings);
  if (init.name === "openrc" && !(await init.serviceExists(CRON_SERVICE))) {
    throw new KubeadmError(
      `certificate auto-renewal on OpenRC runs from the cron daemon's ${PERIODIC_DIR} folders, and this machine has no ${CRON_SERVICE} service`,
      {
        hint:
          "install a cron daemon (Alpine: busybox's crond, 'rc-update add crond'), then install again",
      },
    );
  }
  const verb = node.dryRun ? "[dryrun] Would" : "[certs/auto-renewal]";
  const wanted = new Set(files.map((f) => f.path));
  for (const path of candidatePaths(init.name)) {
    if (wanted.has(path) || (await node.files.read(path)) === undefined) continue;
    out.info(`${verb} ${node.dryRun ? "remove" : "Removing"} ${path} (another schedule's)`);
    if (!node.dryRun) await node.removeFile(path);
  }
  let changed = false;
  for (const f of files) {
    if ((await readText(node.files, f.path)) === f.data) {
      out.info(`[certs/auto-renewal] ${f.path} is up to date`);
      continue;
    }
    changed = true;
    out.info(`${verb} ${node.dryRun ? "write" : "Writing"} ${f.path}`);
    // A dry run's files port records the write (its report shows the content).
    await node.files.write(f);
  }
  const unit = scheduledUnit(init.name);
  if (node.dryRun) {
    out.info(`[dryrun] Would enable and start ${unit}`);
    return;
  }
  if (changed) await init.reload();
  if (!(await init.serviceIsEnabled(unit)) || !(await init.serviceIsActive(unit))) {
    out.info(`[certs/auto-renewal] Enabling and starting ${unit}`);
    await init.serviceEnableNow(unit);
  }
  out.info(
    `[certs/auto-renewal] The control plane's certificates expiring within ${settings.window} are renewed ${settings.schedule}, and what uses them restarted${
      settings.approveKubeletServing
        ? "; the kubelets' serving certificate requests are approved"
        : ""
    }. Logs: ${
      init.name === "systemd"
        ? `journalctl -u ${AUTO_RENEWAL_NAME}`
        : `syslog, tag ${AUTO_RENEWAL_NAME}`
    }`,
  );
}

/** What the `certs-auto-renewal` phase of `init` and `join` gets from its workflow. */
export interface AutoRenewalPhaseInput {
  request: AutoRenewalRequest;
  /** The cluster's `certificateValidityPeriod` (bounds the window). */
  certificateValidityPeriod: string | undefined;
  /** The node (a plan without one is refused). */
  node: Pick<NodeHost, "machine" | "removeFile"> | undefined;
  files: FileReader & { write(file: PlannedFile): Promise<void> };
  out: Printer;
  dryRun: boolean;
}

/** The phase's work: installs the requested schedule with the default settings; idempotent. */
export async function installRequestedAutoRenewal(o: AutoRenewalPhaseInput): Promise<void> {
  const settings = requestedAutoRenewalSettings(o.request, o.certificateValidityPeriod);
  const node = o.node;
  if (!node) {
    throw new KubeadmError("certificate auto-renewal needs the node's service manager", {
      hint: "a plan carries the schedule's files: see planCertificateAutoRenewal",
    });
  }
  await installAutoRenewal({
    files: o.files,
    removeFile: (path) => node.removeFile(path),
    init: await node.machine.initSystem(),
    out: o.out,
    dryRun: o.dryRun,
  }, settings);
}

/**
 * Removes the schedule: stops and disables the timer (systemd), deletes the files, reloads.
 * Nothing installed: nothing done. Returns the paths removed.
 */
export async function removeAutoRenewal(
  node: Omit<AutoRenewalNode, "files"> & { files: FileReader },
): Promise<string[]> {
  const { init, out } = node;
  if (!init) return [];
  const present: string[] = [];
  for (const path of candidatePaths(init.name)) {
    if ((await node.files.read(path)) !== undefined) present.push(path);
  }
  if (present.length === 0) return [];
  if (node.dryRun) {
    out.info(`[dryrun] Would remove the certificate auto-renewal: ${present.join(", ")}`);
    return present;
  }
  if (init.name === "systemd") await init.serviceDisableNow(`${AUTO_RENEWAL_NAME}.timer`);
  for (const path of present) await node.removeFile(path);
  await init.reload();
  out.info(`[certs/auto-renewal] Removed the certificate auto-renewal: ${present.join(", ")}`);
  return present;
}

/** The schedule as `certs auto-renewal status` reports it. */
export interface AutoRenewalStatus {
  /** `systemd`, `openrc`, or `none`. */
  initSystem: string;
  /** Whether the schedule's files are there. */
  installed: boolean;
  /** The schedule's files and their state (`modified`: not what install writes). */
  files: { path: string; state: "present" | "missing" | "modified" }[];
  /** The installed settings, read back from the files. */
  schedule?: RenewalSchedule;
  window?: string;
  approveKubeletServing?: boolean;
  command?: string[];
  /** Whether the timer (systemd) or the cron daemon (OpenRC) is enabled and running. */
  enabled?: boolean;
  active?: boolean;
  /** systemd only: the timer's next and last trigger, the last run's result. */
  nextRun?: string;
  lastRun?: string;
  lastResult?: string;
  /**
   * The kubelet's client certificate in kubelet.conf: `rotated` (by the kubelet, left alone),
   * `embedded` (renewed by the runs when due, its end of validity in `notAfter`) or `missing`.
   */
  kubeletClient: {
    kubeconfig: string;
    state: KubeletClientState["kind"];
    certificateFile?: string;
    notAfter?: string;
    /** What a run does with it, in words. */
    message: string;
  };
}

/** Splits `ExecStart=` (systemd) or a shell command line back into words. */
function splitWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'])*)'|(\S+)/g;
  for (const m of line.matchAll(re)) {
    words.push(
      m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2] !== undefined ? m[2] : m[3],
    );
  }
  return words.map((w) => w.replaceAll("%%", "%").replaceAll("$$", "$"));
}

/** The settings a schedule's exec line holds, or `undefined` when it is not ours. */
function settingsOf(words: string[], schedule: RenewalSchedule): AutoRenewalSettings | undefined {
  const at = words.findIndex((w, i) =>
    w === "certs" && words[i + 1] === "auto-renewal" && words[i + 2] === "run"
  );
  const within = words.indexOf("--within");
  if (at < 1 || within < 0) return undefined;
  return {
    command: words.slice(0, at),
    window: words[within + 1] ?? "",
    schedule,
    approveKubeletServing: words.includes("--approve-kubelet-serving"),
  };
}

/** Reads the installed schedule back (see {@link AutoRenewalStatus}). */
export async function autoRenewalStatus(
  files: FileReader,
  init: InitSystem | undefined,
  kubeconfigDir: string,
): Promise<AutoRenewalStatus> {
  const kubelet = await kubeletClientState(files, kubeconfigDir);
  const kubeletClient = {
    kubeconfig: kubelet.path,
    state: kubelet.kind,
    ...(kubelet.kind === "rotated" ? { certificateFile: kubelet.certificateFile } : {}),
    ...(kubelet.kind === "embedded" ? { notAfter: kubelet.cert.notAfter.toISOString() } : {}),
    message: kubeletClientLine(kubelet),
  };
  if (!init) return { initSystem: "none", installed: false, files: [], kubeletClient };
  const status: AutoRenewalStatus = {
    initSystem: init.name,
    installed: false,
    files: [],
    kubeletClient,
  };
  let settings: AutoRenewalSettings | undefined;
  if (init.name === "systemd") {
    const [servicePath, timerPath] = candidatePaths("systemd");
    const service = await readText(files, servicePath);
    const timer = await readText(files, timerPath);
    const exec = /^ExecStart=(.*)$/m.exec(service ?? "")?.[1];
    const calendar = /^OnCalendar=(.*)$/m.exec(timer ?? "")?.[1] ?? DEFAULT_RENEWAL_SCHEDULE;
    const schedule = RENEWAL_SCHEDULES.find((s) => s === calendar);
    settings = exec && schedule ? settingsOf(splitWords(exec), schedule) : undefined;
    status.installed = service !== undefined || timer !== undefined;
    const expected = settings ? systemdFiles(settings) : [];
    for (const [path, content] of [[servicePath, service], [timerPath, timer]]) {
      status.files.push({
        path: path!,
        state: content === undefined
          ? "missing"
          : expected.find((f) => f.path === path)?.data === content
          ? "present"
          : "modified",
      });
    }
  } else {
    for (const schedule of RENEWAL_SCHEDULES) {
      const path = `${PERIODIC_DIR}/${schedule}/${AUTO_RENEWAL_NAME}`;
      const script = await readText(files, path);
      if (script === undefined) continue;
      const exec = script.split("\n").find((l) => l.startsWith("{ "))?.slice(2).split(" 2>&1;")[0];
      settings = exec ? settingsOf(splitWords(exec), schedule) : undefined;
      status.installed = true;
      status.files.push({
        path,
        state: settings && openrcFiles(settings)[0].data === script ? "present" : "modified",
      });
    }
  }
  if (settings) {
    status.schedule = settings.schedule;
    status.window = settings.window;
    status.approveKubeletServing = settings.approveKubeletServing;
    status.command = [...settings.command];
  }
  if (!status.installed) return status;
  const unit = scheduledUnit(init.name);
  status.enabled = await init.serviceIsEnabled(unit);
  status.active = await init.serviceIsActive(unit);
  if (init.name === "systemd") {
    const timer = await init.unitProperties(unit, ["NextElapseUSecRealtime", "LastTriggerUSec"]);
    const service = await init.unitProperties(`${AUTO_RENEWAL_NAME}.service`, ["Result"]);
    const set = (v: string | undefined) => v && v !== "n/a" && v !== "0" ? v : undefined;
    status.nextRun = set(timer.NextElapseUSecRealtime);
    status.lastRun = set(timer.LastTriggerUSec);
    status.lastResult = status.lastRun ? set(service.Result) : undefined;
  }
  return status;
}

/** The status as text lines. */
export function autoRenewalStatusLines(status: AutoRenewalStatus): string[] {
  if (status.initSystem === "none") {
    return ["Certificate auto-renewal: not supported here (neither systemd nor OpenRC)"];
  }
  if (!status.installed) return ["Certificate auto-renewal: not installed"];
  const lines = [
    `Certificate auto-renewal: installed (${status.initSystem})`,
    `  schedule:  ${status.schedule ?? "unknown"}`,
    `  window:    ${status.window ?? "unknown"}`,
    `  kubelet serving certificates approved: ${status.approveKubeletServing ? "yes" : "no"}`,
    `  enabled:   ${status.enabled ? "yes" : "no"}, ${status.active ? "active" : "inactive"}`,
  ];
  if (status.nextRun) lines.push(`  next run:  ${status.nextRun}`);
  if (status.lastRun) {
    lines.push(`  last run:  ${status.lastRun} (${status.lastResult ?? "unknown"})`);
  }
  for (const f of status.files) lines.push(`  ${f.path}: ${f.state}`);
  lines.push(`  ${status.kubeletClient.message}`);
  return lines;
}

/** What a scheduled run has to do, from the `check-expiration` report. */
export interface DueForRenewal {
  /** Renewable certificates expiring within the window (or expired), by target name. */
  renew: string[];
  /** Those signed by an external CA: reported, not renewed. */
  external: CertificateExpiration[];
  /** CAs expiring within the window: a renewal cannot help, a rotation can. */
  authorities: CertificateExpiration[];
  /** The certificate expiring first when nothing is due (for the log). */
  next?: CertificateExpiration;
}

/**
 * Sorts the report's entries into what a run renews and what it only reports; with `kubelet`
 * (kubelet.conf's state, read at `now`), kubelet.conf last when it embeds a certificate
 * expiring within the window (`kubelet_conf.ts`).
 */
export function dueForRenewal(
  info: CertificateExpirationInfo,
  windowMs: number,
  kubelet?: { state: KubeletClientState; now: Date },
): DueForRenewal {
  const due = expiringWithin(info, windowMs);
  const leaves = due.filter((c) => info.certificates.includes(c));
  const next = [...info.certificates].filter((c) => !c.missing)
    .sort((a, b) => a.residualTime - b.residualTime)[0];
  return {
    renew: [
      ...leaves.filter((c) => !c.externallyManaged).map((c) => c.name),
      ...(kubelet && kubeletConfDue(kubelet.state, windowMs, kubelet.now)
        ? [KUBELET_CONF_TARGET.name]
        : []),
    ],
    external: leaves.filter((c) => c.externallyManaged),
    authorities: due.filter((c) => info.certificateAuthorities.includes(c)),
    next,
  };
}
