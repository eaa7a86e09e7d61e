/**
 * The seed corpus of the DER fuzzer (scripts/fuzz_der.ts): real certificates, written once
 * into `scripts/fuzz_der_seeds.pem` by `scripts/fuzz-der --write-seeds` and committed, so the
 * same `--seed` and case index always mutate the same bytes.
 *
 * - What our PKI writes: `init phase certs all` and `init phase kubeconfig all` in RSA-2048
 *   and in ECDSA-P256 (CAs, serving certificates with DNS and IP SANs, client certificates
 *   with organizations), the way `pkiFixture` makes them.
 * - What openssl makes: a v3 RSA-3072 CA with every extension Go's parser handles (name
 *   constraints, policies, CRL distribution points, AIA, policy constraints, inhibitAnyPolicy,
 *   a full AuthorityKeyIdentifier, SANs of every type, a critical unknown extension) and a
 *   notAfter past 2049 (GeneralizedTime); ECDSA P-384 and P-521 certificates (SHA-384/512,
 *   multi-valued RDNs, UTF8 and BMPString names); a v1 certificate; Ed25519; RSA-PSS (an
 *   AlgorithmIdentifier with parameters); a certificate with serial 0 and 300 SANs.
 *
 * @module
 */
import { parseCertificatesPEM } from "../core/pki/cert.ts";
import { encodePem } from "../core/pki/pem.ts";
import { base64Decode } from "../core/text/base64.ts";
import { pkiFixture } from "../tests/support/pki_fixture.ts";
import { runTool } from "../tests/support/openssl.ts";

/** Where the corpus lives. */
export const SEEDS_FILE = new URL("./fuzz_der_seeds.pem", import.meta.url).pathname;

/** One seed certificate and where it came from. */
export interface Seed {
  name: string;
  der: Uint8Array;
}

/** Reads the committed corpus: each block's name is the comment line above it. */
export function readSeeds(text: string = Deno.readTextFileSync(SEEDS_FILE)): Seed[] {
  const out: Seed[] = [];
  const re = /# (.+)\n-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=\n]+)-----END CERTIFICATE-----/g;
  for (const m of text.matchAll(re)) {
    out.push({ name: m[1], der: base64Decode(m[2].replace(/\n/g, "")) });
  }
  return out;
}

const OUR_FILES = [
  "pki/ca.crt",
  "pki/apiserver.crt",
  "pki/apiserver-kubelet-client.crt",
  "pki/front-proxy-client.crt",
  "pki/etcd/peer.crt",
];

async function ourSeeds(): Promise<Seed[]> {
  const out: Seed[] = [];
  for (const alg of ["RSA-2048", "ECDSA-P256"] as const) {
    const { files } = await pkiFixture({
      edit: (cfg) => {
        cfg.cluster.encryptionAlgorithm = alg;
      },
    });
    for (const f of OUR_FILES) {
      const [cert] = parseCertificatesPEM(files.text(`/etc/kubernetes/${f}`)!);
      out.push({ name: `kubeadm-ts ${alg} ${f}`, der: cert.der });
    }
    const admin = files.text("/etc/kubernetes/admin.conf")!;
    const data = /client-certificate-data: (\S+)/.exec(admin)![1];
    out.push({
      name: `kubeadm-ts ${alg} admin.conf client certificate`,
      der: parseCertificatesPEM(atob(data))[0].der,
    });
  }
  return out;
}

const EXTENSIONS_CNF = `[req]
distinguished_name = dn
prompt = no
string_mask = nombstr
[dn]
C = DE
ST = Berlin
L = Kreuzberg
O = Acme & Co
OU = Platform
CN = *.weird.example
emailAddress = ca@example.com
[ext]
basicConstraints = critical, CA:TRUE, pathlen:3
keyUsage = critical, digitalSignature, nonRepudiation, keyEncipherment, dataEncipherment, keyAgreement, keyCertSign, cRLSign, encipherOnly, decipherOnly
extendedKeyUsage = serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, OCSPSigning, 1.2.3.4.5.6.7.8.9.10.11.12.123456789
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always, issuer:always
subjectAltName = @san
nameConstraints = permitted;DNS:.example.com, permitted;IP:10.0.0.0/255.0.0.0, excluded;email:.bad.example, permitted;URI:.example.org
certificatePolicies = 2.23.140.1.2.1, 1.3.6.1.4.1.99999.1.2.3
crlDistributionPoints = URI:http://crl.example.com/ca.crl, URI:ldap://ldap.example.com/cn=ca
authorityInfoAccess = OCSP;URI:http://ocsp.example.com, caIssuers;URI:http://ca.example.com/ca.crt
policyConstraints = requireExplicitPolicy:2, inhibitPolicyMapping:1
inhibitAnyPolicy = 0
1.2.3.4.5 = critical, ASN1:UTF8String:an unknown critical extension
1.3.6.1.4.1.11129.2.4.2 = DER:04:03:01:02:03
[san]
DNS.1 = weird.example
DNS.2 = *.weird.example
IP.1 = 10.0.0.1
IP.2 = fd00::1
email.1 = admin@example.com
URI.1 = spiffe://cluster.local/ns/default/sa/x
RID.1 = 1.2.3.4
dirName.1 = dirsec
otherName.1 = 1.3.6.1.4.1.311.20.2.3;UTF8:upn@example.com
[dirsec]
CN = dir name
O = dir org
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth, 1.3.6.1.4.1.311.20.2.2
authorityKeyIdentifier = keyid
1.2.3.4.6 = ASN1:SEQUENCE:nested
[nested]
a = INTEGER:0x7fffffffffffffffffffffff
b = BOOLEAN:TRUE
c = GENERALIZEDTIME:20991231235959Z
d = BITSTRING:hello
[many]
subjectAltName = @many_san
`;

async function run(dir: string, args: string[]): Promise<void> {
  const r = await runTool("sh", ["-c", `cd '${dir}' && openssl ${args.join(" ")}`]);
  if (r.code !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr}`);
}

async function opensslSeeds(): Promise<Seed[]> {
  const dir = await Deno.makeTempDir({ prefix: "kts-der-seeds-" });
  try {
    const many = Array.from({ length: 300 }, (_, i) => `DNS.${i + 1} = n${i}.many.example`);
    await Deno.writeTextFile(
      `${dir}/x.cnf`,
      `${EXTENSIONS_CNF}[many_san]\n${many.join("\n")}\nIP.1 = 192.168.0.1\n`,
    );
    await Deno.writeTextFile(
      `${dir}/bmp.cnf`,
      "[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n",
    );
    const steps: [string, string[]][] = [
      ["openssl RSA-3072 CA, every extension Go parses, notAfter 2136", [
        "req -x509 -newkey rsa:3072 -nodes -keyout rsa.key -config x.cnf -extensions ext",
        "-days 40000 -out rsa.crt",
      ]],
      ["openssl ECDSA P-384 CA, UTF8 names, multi-valued RDN", [
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout p384.key -sha384",
        "-utf8 -multivalue-rdn -subj '/O=Ünïcødé Org+OU=ops/CN=p384 root ✓' -days 365",
        "-addext 'basicConstraints=critical,CA:TRUE,pathlen:0' -out p384.crt",
      ]],
      ["openssl ECDSA P-521 leaf signed by the P-384 CA, SHA-512, nested unknown extension", [
        "req -new -newkey ec -pkeyopt ec_paramgen_curve:P-521 -nodes -keyout p521.key",
        "-subj '/CN=leaf521' -out p521.csr &&",
        "openssl x509 -req -in p521.csr -CA p384.crt -CAkey p384.key -set_serial 0x7fffffffffffffff",
        "-sha512 -days 30 -extfile x.cnf -extensions leaf -out p521.crt",
      ]],
      ["openssl ECDSA P-256, BMPString names (string_mask default)", [
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout bmp.key",
        "-utf8 -subj '/CN=Grüße/O=日本' -days 10 -config bmp.cnf -addext keyUsage=digitalSignature",
        "-out bmp.crt",
      ]],
      ["openssl RSA-2048 v1 certificate (no extensions)", [
        "req -new -newkey rsa:2048 -nodes -keyout v1.key -subj '/C=US/O=Old/CN=v1 cert'",
        "-out v1.csr && openssl x509 -req -in v1.csr -signkey v1.key -days 2 -out v1.crt",
      ]],
      ["openssl Ed25519 self-signed", [
        "req -x509 -newkey ed25519 -nodes -keyout ed.key -subj '/CN=ed25519' -days 5 -out ed.crt",
      ]],
      ["openssl RSA-PSS self-signed (AlgorithmIdentifier parameters)", [
        "req -x509 -newkey rsa-pss -pkeyopt rsa_keygen_bits:2048 -nodes -keyout pss.key",
        "-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sha256",
        "-subj '/CN=pss' -days 5 -out pss.crt",
      ]],
      ["openssl ECDSA P-256, serial 0, 300 DNS SANs", [
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout many.key",
        "-subj '/CN=many' -set_serial 0 -days 5 -config x.cnf -extensions many -out many.crt",
      ]],
    ];
    const out: Seed[] = [];
    for (const [name, args] of steps) {
      await run(dir, args);
      const file = /-out (\S+)\s*$/.exec(args.join(" "))![1];
      const pem = await Deno.readTextFile(`${dir}/${file}`);
      out.push({ name, der: parseCertificatesPEM(pem)[0].der });
    }
    return out;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Makes the corpus and writes it to {@link SEEDS_FILE}; returns the seeds. */
export async function writeSeeds(): Promise<Seed[]> {
  const seeds = [...await ourSeeds(), ...await opensslSeeds()];
  const text = seeds.map((s) => `# ${s.name}\n${encodePem("CERTIFICATE", s.der)}`).join("");
  await Deno.writeTextFile(
    SEEDS_FILE,
    `# Seed corpus of scripts/fuzz_der.ts, made by \`scripts/fuzz-der --write-seeds\` (never edited).\n${text}`,
  );
  return seeds;
}
