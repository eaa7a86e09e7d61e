/**
 * The command line's crypto port: WebCrypto (`adapters/crypto/webcrypto.ts`) for everything
 * but the generation of RSA keys, which `./rsa_keygen.ts` does at about a third of the CPU time
 * (loaded when a run first makes an RSA key: it starts Deno's Node layer for `node:crypto`).
 *
 * @module
 */
import type { CryptoPort, KeyPair, KeySpec } from "../../core/ports/crypto.ts";
import type { RandomSource } from "../../core/ports/random.ts";
import { rsaKeyPairOfPkcs1, webCryptoPort } from "../crypto/webcrypto.ts";

/** WebCrypto, with RSA keys from {@link ./rsa_keygen.ts}. */
export const denoCryptoPort: CryptoPort = {
  ...webCryptoPort,
  async generateKeyPair(spec: KeySpec, random: RandomSource): Promise<KeyPair> {
    if (spec.type !== "RSA") return await webCryptoPort.generateKeyPair(spec, random);
    const { generateRsaPkcs1 } = await import("./rsa_keygen.ts");
    return rsaKeyPairOfPkcs1(await generateRsaPkcs1(spec.modulusLength));
  },
};
