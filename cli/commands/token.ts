/**
 * `kubeadm token`: bootstrap token management.
 *
 * @module
 */
import type { Command } from "commander";
import { stdout } from "../output.ts";

/** Registers `token` and its sub-commands. */
export function registerToken(program: Command): void {
  const token = program.command("token").description("Manage bootstrap tokens");
  token.command("generate")
    .description("Generate and print a bootstrap token, but do not create it on the server")
    .action(async () => {
      const { generateToken } = await import("../../core/bootstraptoken/token.ts");
      const { webRandom } = await import("../../core/host/ports.ts");
      stdout(generateToken(webRandom));
    });
}
