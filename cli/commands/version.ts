/**
 * `kubeadm version`: prints the upstream kubeadm version this build matches, in upstream's formats.
 *
 * @module
 */
import type { Command } from "commander";
import { KUBERNETES_VERSION } from "../../core/versions.ts";
import { FlagError } from "../../core/errors.ts";
import { consolePrinter, stdout } from "../output.ts";
import { addFlags, type FlagName, type FlagValues, flagValues } from "../flags.ts";
import { runtimeInfo } from "../../adapters/deno/process.ts";

/** The version info object upstream prints (apimachinery version.Info). */
function versionInfo(): Record<string, string> {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, "").split(".");
  const runtime = runtimeInfo();
  return {
    major,
    minor,
    gitVersion: KUBERNETES_VERSION,
    gitCommit: "kubeadm-ts",
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
    goVersion: runtime.version,
    compiler: "deno",
    platform: runtime.platform,
  };
}

/** The flags of `kubeadm version` (the global ones aside). */
export const VERSION_FLAGS: readonly FlagName[] = ["output"];

/** Prints the version in the format `-o` asks for. */
export async function runVersion(flags: FlagValues): Promise<void> {
  consolePrinter.log?.(1, "version.ts", "[version] retrieving version info");
  const opts = { output: flags.output ?? "" };
  const info = versionInfo();
  switch (opts.output) {
    case "": {
      // Go's %#v of version.Info: every field, the empty emulation ones included (JSON and
      // YAML omit them).
      const { major, minor, ...rest } = info;
      const fields: Record<string, string> = {
        major,
        minor,
        emulationMajor: "",
        emulationMinor: "",
        minCompatibilityMajor: "",
        minCompatibilityMinor: "",
        ...rest,
      };
      stdout(
        `kubeadm version: &version.Info{${
          Object.entries(fields).map(([k, v]) => `${k[0].toUpperCase()}${k.slice(1)}:"${v}"`)
            .join(", ")
        }}`,
      );
      break;
    }
    case "short":
      stdout(info.gitVersion);
      break;
    case "json":
      stdout(JSON.stringify({ clientVersion: info }, null, 2));
      break;
    case "yaml": {
      const { toKubeYaml } = await import("../../core/yaml/kube_yaml.ts");
      stdout(toKubeYaml({ clientVersion: info }));
      break;
    }
    default:
      throw new FlagError(`invalid output format: ${opts.output}`, {
        field: "--output",
        value: opts.output,
        hint: "use one of: yaml, json, short",
      });
  }
}

/** Registers `version`. */
export function registerVersion(program: Command): void {
  addFlags(
    program.command("version").description("Print the version of kubeadm"),
    VERSION_FLAGS,
    "version",
  ).action((_opts: unknown, c: Command) => runVersion(flagValues(c)));
}
