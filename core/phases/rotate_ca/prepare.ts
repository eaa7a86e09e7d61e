/**
 * The rotate-ca `prepare` phase: keeps the CA in use as `<dir>/old-ca` and the new one
 * (`--ca-cert`/`--ca-key`, else generated as `init` generates that CA: same subject, the
 * cluster's CA validity and key type) as `<dir>/new-ca`, in the CA's rotation folder
 * (`ca-rotation/`, `front-proxy-ca-rotation/`). Nothing reads them yet. On the other control
 * planes, copy the folder from the first before `trust`.
 *
 * @module
 */
import type { Phase } from "../../workflow/phase.ts";
import { certConfigFor, certSpec } from "../../certs/certlist.ts";
import { caPairFiles, newCAPath, oldCAPath, rotationState } from "../../certs/ca_rotation.ts";
import { createSelfSignedCACert } from "../../pki/cert.ts";
import { generateKeyPair } from "../../pki/keys.ts";
import type { CertAndKey } from "../../certs/pki_dir.ts";
import type { RotateCaData } from "./data.ts";

async function generateCA(data: RotateCaData): Promise<CertAndKey> {
  const spec = certSpec(data.ca.name);
  const cfg = certConfigFor(spec, data.cfg, data.now, (l) => data.out.warn(l));
  const key = await generateKeyPair(data.cfg.cluster.encryptionAlgorithm, {
    crypto: data.pki.crypto,
    random: data.random,
  });
  return { cert: await createSelfSignedCACert(cfg, key, data.random, data.pki.crypto), key };
}

/** The `prepare` phase. */
export const preparePhase: Phase<RotateCaData> = {
  name: "prepare",
  short: "Keep the CA in use and make (or take) the new one, in its rotation folder",
  run: async (data) => {
    const { pki, out, ca } = data;
    const state = await rotationState(pki, ca);
    if (state.stage !== "none") {
      out.info(`[rotate-ca] A rotation is under way (stage ${state.stage}): its new CA is kept`);
      return;
    }
    const old = await pki.loadCA(ca.baseName);
    const next = data.newCA ?? await generateCA(data);
    const files = [
      ...await caPairFiles(pki, oldCAPath(ca), old),
      ...await caPairFiles(pki, newCAPath(ca), next),
    ];
    if (data.dryRun) {
      for (const f of files) out.info(`[dryrun] Would write ${f.path}`);
      return;
    }
    // The new CA last: its certificate is what says a rotation is under way.
    for (const f of files) await pki.files.write(f);
    out.info(
      `[rotate-ca] The new CA is in ${pki.certPath(newCAPath(ca))} (${
        data.newCA ? "given" : "generated"
      }); the CA in use is kept in ${pki.certPath(oldCAPath(ca))}`,
    );
  },
};
