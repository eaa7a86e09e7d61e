/**
 * How the tests make keys when what they test is not the crypto port: WebCrypto and the
 * platform's CSPRNG, the command line's choice.
 *
 * @module
 */
import type { KeyOptions } from "../../core/pki/keys.ts";
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { webRandom } from "../../adapters/web/random.ts";

/** WebCrypto keys from the platform's CSPRNG. */
export const webKeys: KeyOptions = { crypto: webCryptoPort, random: webRandom };
