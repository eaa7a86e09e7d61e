/**
 * The adapters of the library face, chosen here once. A plan runs on the offline set
 * (`adapters/offline/`: the recording file system, the offline cluster, virtual time); where
 * the caller passes none, a plan, a verdict or a discovery uses the web platform's clock, sleep
 * and CSPRNG (`adapters/web/`) and WebCrypto (`adapters/crypto/webcrypto.ts`), as the command
 * line does; a plan given a random source is reproducible on the deterministic port
 * (`adapters/crypto/noble.ts`); the WebAssembly component passes the pure-JavaScript one
 * (`adapters/crypto/pure_js.ts`).
 *
 * @module
 */
import type { CryptoPort } from "../core/ports/crypto.ts";
import type { RandomSource } from "../core/ports/random.ts";
import { webCryptoPort } from "../adapters/crypto/webcrypto.ts";
import { deterministicCryptoPort } from "../adapters/crypto/noble.ts";

export { realSleep, systemClock } from "../adapters/web/clock.ts";
export { webRandom } from "../adapters/web/random.ts";
export { webCryptoPort, webHashing } from "../adapters/crypto/webcrypto.ts";
export { deterministicCryptoPort } from "../adapters/crypto/noble.ts";
export { pureJsCryptoPort } from "../adapters/crypto/pure_js.ts";
export { seededRandom } from "../adapters/offline/random.ts";
export { virtualTime } from "../adapters/offline/clock.ts";
export { RecordingFileSystem } from "../adapters/offline/files.ts";
export {
  offlineCluster,
  withBootstrapSignatures,
  writtenObjects,
} from "../adapters/offline/cluster.ts";
export { planNode, planPreflight } from "../adapters/offline/node.ts";

/**
 * The crypto port of a run: the caller's, else the deterministic one when a random source is
 * given (a reproducible plan), else WebCrypto.
 */
export function cryptoFor(random?: RandomSource, crypto?: CryptoPort): CryptoPort {
  return crypto ?? (random ? deterministicCryptoPort : webCryptoPort);
}
