/**
 * The DER fuzzer's case generator (scripts/fuzz_der.ts): from a seed and an index, one input
 * for the certificate readers, made by structure-aware mutation of a seed certificate.
 *
 * A seed is read into a tree of its own (this module never uses the reader under test):
 * every element with its identifier, length and content, constructed elements as children,
 * and OCTET STRING / BIT STRING contents that are DER themselves (extension values, public
 * keys) as encapsulated children, so mutations reach the extension parsers. Mutations edit
 * the tree (lengths, tags, nesting, integers, OIDs, BIT STRINGs, times, strings, booleans,
 * extensions, sizes), it is written back (lengths recomputed unless a mutation set one), and
 * sometimes the bytes are then cut or flipped. The case is fed to one target: the DER
 * certificate parser, the PEM bundle reader, or token discovery's offline check of a signed
 * `cluster-info` whose CA bundle carries it.
 *
 * The same seed corpus, seed and index always give the same case (`--case I` reproduces it).
 *
 * @module
 */

import { base64Encode } from "../core/text/base64.ts";
import {
  cloneNode,
  encodedContent,
  identifier,
  lengthOctets,
  type Node,
  parseTree,
  prim,
  seq,
  serialize,
} from "../tests/support/der_tree.ts";

export { type Node, parseTree } from "../tests/support/der_tree.ts";

/** A small fast PRNG (sfc32), seeded from the run's seed and the case index. */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number, index: number) {
    let s = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index >>> 0, 0x85ebca6b)) >>> 0;
    const next = () => {
      // splitmix32
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
      return (z ^ (z >>> 15)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 0x100000000) * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() / 0x100000000 < p;
  }

  /** One element of a list. */
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  /** n random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** A size, mostly small, sometimes large: [0, max]. */
  size(max: number): number {
    const r = this.int(10);
    if (r < 6) return this.int(Math.min(max, 16) + 1);
    if (r < 9) return this.int(Math.min(max, 300) + 1);
    return this.int(max + 1);
  }
}

// --- what mutations reach ---

/** A node with where it sits. */
interface Slot {
  node: Node;
  /** The array holding it (undefined for the root). */
  parent?: Node[];
  index: number;
  path: string;
  depth: number;
}

function slots(root: Node): Slot[] {
  const out: Slot[] = [];
  const walk = (
    node: Node,
    parent: Node[] | undefined,
    index: number,
    path: string,
    depth: number,
  ) => {
    out.push({ node, parent, index, path, depth });
    const kids = node.children ?? node.inner?.nodes;
    kids?.forEach((k, i) => walk(k, kids, i, `${path}.${i}`, depth + 1));
  };
  walk(root, undefined, 0, "0", 0);
  return out;
}

const text = (s: string) => new TextEncoder().encode(s);

function oidBytes(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map(BigInt);
  const values = [arcs[0] * 40n + arcs[1], ...arcs.slice(2)];
  const out: number[] = [];
  for (const v of values) {
    const groups: number[] = [];
    for (let x = v;; x >>= 7n) {
      groups.unshift(Number(x & 0x7fn));
      if (x < 128n) break;
    }
    out.push(...groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g)));
  }
  return Uint8Array.from(out);
}

/** OIDs a certificate's structures look for: swapping one for another confuses parsers. */
const KNOWN_OIDS = [
  "2.5.29.14", // subjectKeyIdentifier
  "2.5.29.15", // keyUsage
  "2.5.29.17", // subjectAltName
  "2.5.29.19", // basicConstraints
  "2.5.29.30", // nameConstraints
  "2.5.29.31", // cRLDistributionPoints
  "2.5.29.32", // certificatePolicies
  "2.5.29.33", // policyMappings
  "2.5.29.35", // authorityKeyIdentifier
  "2.5.29.36", // policyConstraints
  "2.5.29.37", // extKeyUsage
  "2.5.29.54", // inhibitAnyPolicy
  "1.3.6.1.5.5.7.1.1", // authorityInfoAccess
  "1.2.840.113549.1.1.1", // rsaEncryption
  "1.2.840.113549.1.1.10", // RSASSA-PSS
  "1.2.840.113549.1.1.11", // sha256WithRSAEncryption
  "1.2.840.10045.2.1", // ecPublicKey
  "1.2.840.10045.4.3.2", // ecdsa-with-SHA256
  "1.2.840.10045.3.1.7", // P-256
  "1.3.132.0.34", // P-384
  "1.3.132.0.35", // P-521
  "1.3.101.112", // Ed25519
  "1.3.101.110", // X25519
  "1.2.840.10040.4.1", // DSA
  "2.5.4.3", // CN
  "2.5.4.10", // O
  "1.3.6.1.5.5.7.3.1", // serverAuth
  "2.5.29.37.0", // anyExtendedKeyUsage
];

/** Bytes that are a valid OID but at an edge, or not valid at all. */
function edgeOid(r: Rng): Uint8Array {
  switch (r.int(12)) {
    case 0:
      return new Uint8Array(0); // empty
    case 1:
      return Uint8Array.from([0x2a, 0x86]); // last arc unterminated
    case 2:
      return Uint8Array.from([0x2a, 0x80, 0x01]); // non-minimal arc (leading 0x80)
    case 3:
      return Uint8Array.from([0x80, 0x01]); // non-minimal first arc
    case 4: // an arc of 2^31, 2^53, 2^64, 2^100
      return oidBytes(
        `1.2.${
          r.pick([
            "2147483648",
            "9007199254740993",
            "18446744073709551616",
            (1n << 100n).toString(),
          ])
        }`,
      );
    case 5:
      return oidBytes(
        `2.${r.pick(["39", "40", "47", "999", "4294967295", "18446744073709551615"])}.1`,
      ); // 2.x: large second arc
    case 6:
      return Uint8Array.from([0x7f]); // 2.47 in one octet
    case 7: // long OIDs
      return oidBytes(
        ["1.2", ...Array.from({ length: r.size(5000) }, () => String(r.int(1000)))].join("."),
      );
    case 8:
      return Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    case 9:
      return Uint8Array.from([0x00]); // 0.0
    case 10:
      return r.bytes(r.range(1, 12));
    default:
      return oidBytes(r.pick(KNOWN_OIDS));
  }
}

function integerContent(r: Rng): Uint8Array {
  switch (r.int(11)) {
    case 0:
      return new Uint8Array(0);
    case 1:
      return Uint8Array.from([0x00, r.int(0x80)]); // non-minimal positive
    case 2:
      return Uint8Array.from([0xff, 0x80 | r.int(0x80)]); // non-minimal negative
    case 3:
      return Uint8Array.from([0x80 | r.int(0x80), ...r.bytes(r.range(0, 20))]); // negative
    case 4:
      return Uint8Array.from([0x00]);
    case 5: { // huge
      const b = r.bytes(r.pick([9, 33, 257, 1025, 4097, 20000, 100000]));
      b[0] = 1 + r.int(0x7f);
      return b;
    }
    case 6:
      return Uint8Array.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]); // 2^63-1
    case 7:
      return Uint8Array.from([0x00, 0x80, 0, 0, 0, 0, 0, 0, 0]); // 2^63
    case 8:
      return Uint8Array.from([0x01, 0, 0, 0, 0, 0, 0, 0, 0]); // 2^64
    case 9:
      return Uint8Array.from([r.int(3)]); // 0, 1, 2: versions
    default:
      return r.bytes(r.range(1, 10));
  }
}

const pad2 = (n: number) => String(n).padStart(2, "0");

function timeContent(r: Rng, utc: boolean): string {
  const year = utc
    ? pad2(r.int(100))
    : String(r.pick([1, 1949, 1950, 2049, 2050, 2026, 9999, r.int(10000)])).padStart(4, "0");
  const f = [
    pad2(r.pick([1, 12, 0, 13, 99, r.range(1, 12)])),
    pad2(r.pick([1, 28, 29, 30, 31, 0, 32, r.range(1, 28)])),
    pad2(r.pick([0, 23, 24, 99, r.int(24)])),
    pad2(r.pick([0, 59, 60, r.int(60)])),
  ];
  const secs = r.pick(["", pad2(r.pick([0, 59, 60, 61, r.int(60)]))]);
  const frac = r.pick(["", "", ".5", ".000", ".1234567890123", "."]);
  const zone = r.pick(["Z", "Z", "Z", "z", "+0000", "-0130", "+2400", "+9999", "", "GMT"]);
  switch (r.int(12)) {
    case 0:
      return "";
    case 1:
      return year + f.join("") + "Z".repeat(r.range(2, 5)); // repeated zone
    case 2:
      return `${year}${f.join("")}${secs}${zone}`.replace(/\d/, "a"); // a letter for a digit
    case 3:
      return year + f.join("") + secs + "Z" + "0".repeat(r.range(1, 10000)); // trailing data
    case 4:
      return ` ${year}${f.join("")}${secs}Z`;
    default:
      return `${year}${f.join("")}${secs}${frac}${zone}`;
  }
}

const STRING_TAGS = [12, 18, 19, 20, 21, 22, 25, 26, 27, 28, 30];

function stringContent(r: Rng, tag: number): Uint8Array {
  switch (r.int(12)) {
    case 0:
      return new Uint8Array(0);
    case 1:
      return Uint8Array.from([0xc3, 0x28]); // invalid UTF-8
    case 2:
      return Uint8Array.from([0xed, 0xa0, 0x80]); // UTF-8 surrogate
    case 3:
      return Uint8Array.from([0x00, 0x61, 0x00]); // odd BMPString length
    case 4:
      return Uint8Array.from([0xd8, 0x00, 0x00, 0x61]); // BMP surrogate
    case 5:
      return Uint8Array.from([0x00, 0x11, 0x00, 0x00]); // UniversalString beyond U+10FFFF
    case 6:
      return Uint8Array.from([0xff, 0xff, 0xff, 0xff]); // UniversalString way beyond
    case 7:
      return Uint8Array.from([0x61, 0x00, 0x62, 0x0a, 0x7f, 0x1b]); // NUL, controls
    case 8: { // huge: 64 KiB to 1 MiB of one character (memory, argument-count limits)
      const n = r.pick([65536, 131072, 262144, 1048576]);
      return new Uint8Array(n).fill(tag === 30 ? 0 : 0x61).map((
        v,
        i,
      ) => (tag === 30 && i % 2 ? 0x61 : v));
    }
    case 9:
      return text("*.example.com&'()+,-./:=? ");
    case 10:
      return r.bytes(r.size(64));
    default:
      return text("ñ漢字 ✓");
  }
}

/** One random element (for insertions and extension values). */
function randomElement(r: Rng, depth = 0): Node {
  const k = r.int(depth > 3 ? 6 : 9);
  switch (k) {
    case 0:
      return prim(2, integerContent(r));
    case 1:
      return prim(6, edgeOid(r));
    case 2:
      return prim(1, r.pick([[0xff], [0x00], [0x01], [], [0xff, 0xff]]));
    case 3:
      return prim(r.pick([23, 24]), text(timeContent(r, r.chance(0.5))));
    case 4: {
      const tag = r.pick(STRING_TAGS);
      return prim(tag, stringContent(r, tag));
    }
    case 5:
      return { cls: 2, constructed: false, tag: r.int(10), content: r.bytes(r.size(40)) };
    case 6:
      return seq(...Array.from({ length: r.size(4) }, () => randomElement(r, depth + 1)));
    case 7:
      return { cls: 2, constructed: true, tag: r.int(10), children: [randomElement(r, depth + 1)] };
    default:
      return {
        ...prim(4, new Uint8Array(0)),
        inner: { prefix: new Uint8Array(0), nodes: [randomElement(r, depth + 1)] },
      };
  }
}

/** A plausible extension: a known OID with a value shaped like its type, or mangled. */
function randomExtension(r: Rng): Node {
  const oid = r.pick(KNOWN_OIDS.slice(0, 13).concat(["1.3.6.1.4.1.11129.2.4.2", "1.2.3.4"]));
  const gn = () =>
    ({
      cls: 2,
      constructed: false,
      tag: r.pick([1, 2, 6, 7, 8]),
      content: r.chance(0.5)
        ? r.bytes(r.pick([4, 16, 5, 0, 8, 32]))
        : text(r.pick(["a.example", "*.x", "http://[::1", "a@b", "\u00ff.example", ""])),
    }) as Node;
  const values: (() => Node)[] = [
    () => prim(3, [r.int(9), ...r.bytes(r.int(3))]), // keyUsage
    () =>
      seq(
        ...(r.chance(0.7) ? [prim(1, [r.pick([0xff, 0x00, 0x01])])] : []),
        ...(r.chance(0.5) ? [prim(2, integerContent(r))] : []),
      ), // basicConstraints
    () => seq(...Array.from({ length: r.size(20) }, gn)), // SAN
    () =>
      seq(
        ...Array.from({ length: r.size(6) }, () =>
          prim(6, r.chance(0.8) ? oidBytes(r.pick(KNOWN_OIDS)) : edgeOid(r))),
      ), // EKU
    () => prim(4, r.bytes(r.size(40))), // SKI
    () => seq({ cls: 2, constructed: false, tag: r.int(3), content: r.bytes(r.size(30)) }), // AKI
    () => seq({ cls: 2, constructed: true, tag: r.int(2), children: [seq(gn())] }), // nameConstraints
    () => randomElement(r),
  ];
  const critical = r.chance(0.4) ? [prim(1, [r.pick([0xff, 0x00, 0x01])])] : [];
  const value = r.pick(values)();
  return seq(prim(6, oidBytes(oid)), ...critical, {
    ...prim(4, new Uint8Array(0)),
    inner: { prefix: new Uint8Array(0), nodes: [value] },
  });
}

/** The extensions SEQUENCE of a certificate tree, if it has one. */
function extensionsOf(root: Node): Node | undefined {
  const tbs = root.children?.[0];
  const ext = tbs?.children?.find((c) => c.cls === 2 && c.tag === 3);
  return ext?.children?.[0];
}

function contentOf(n: Node): Uint8Array {
  return n.content ?? new Uint8Array(0);
}

/** What one mutation did, for the case's description. */
type Mutator = (r: Rng, root: Node, all: Slot[], donors: readonly Node[]) => string;

function of(all: Slot[], r: Rng, want?: (n: Node) => boolean): Slot | undefined {
  const pool = want ? all.filter((s) => want(s.node)) : all;
  return pool.length ? r.pick(pool) : undefined;
}

const isPrimitive = (tag: number) => (n: Node) => n.cls === 0 && n.tag === tag && !n.constructed;

const MUTATORS: [number, string, Mutator][] = [
  [10, "length", (r, _root, all) => {
    const s = of(all, r)!;
    const len = encodedContent(s.node).length;
    const variants: number[][] = [
      lengthOctets(Math.max(0, len + r.range(-3, 3))),
      [0],
      [0x81, len & 0xff], // long form for a short length (non-minimal when < 128)
      [0x82, 0x00, len & 0xff], // leading zero
      [0x84, 0, 0, (len >> 8) & 0xff, len & 0xff],
      [0x85, 0, 0, 0, 0, len & 0xff], // five length octets
      [0x88, 0, 0, 0, 0, 0, 0, (len >> 8) & 0xff, len & 0xff],
      [0x84, 0xff, 0xff, 0xff, 0xff],
      [0x83, 0xff, 0xff, 0xff],
      [0xff],
      [0x80], // indefinite, no EOC
      [0x81], // long form, octets missing
    ];
    const v = r.pick(variants);
    s.node.length = Uint8Array.from(v);
    return `length@${s.path}=${v.map((x) => x.toString(16)).join(" ")}`;
  }],
  [4, "indefinite", (r, _root, all) => {
    const s = of(all, r)!;
    s.node.indefinite = { eoc: r.chance(0.8) };
    return `indefinite@${s.path}`;
  }],
  [8, "tag", (r, _root, all) => {
    const s = of(all, r)!;
    const n = s.node;
    switch (r.int(7)) {
      case 0:
        n.tag = r.pick([0, 1, 2, 3, 4, 5, 6, 12, 16, 17, 19, 23, 24, 30, r.int(31)]);
        break;
      case 1:
        n.constructed = !n.constructed;
        break;
      case 2:
        n.cls = r.int(4);
        break;
      case 3: { // high-tag-number form for a low tag (non-minimal)
        n.id = Uint8Array.from([(identifier(n.cls, n.constructed, 0)[0]) | 0x1f, n.tag]);
        break;
      }
      case 4: // a real high tag number, sometimes huge
        n.tag = r.pick([31, 127, 128, 16383, 16384, 0xffffff, 2 ** 31, 2 ** 35]);
        break;
      case 5: // high-tag form with a leading 0x80 (non-minimal) or cut short
        n.id = Uint8Array.from([
          (identifier(n.cls, n.constructed, 0)[0]) | 0x1f,
          ...r.pick([[0x80, 0x1f], [0x80, 0x80, 0x81, 0x00], [0x9f]]),
        ]);
        break;
      default:
        n.id = r.bytes(r.range(1, 3));
    }
    return `tag@${s.path}`;
  }],
  [8, "nest", (r, _root, all) => {
    const s = of(all, r, () => true)!;
    if (!s.parent) return "nest:root";
    switch (r.int(4)) {
      case 0: { // wrap in SEQUENCE, SET, [n] or OCTET STRING
        const kind = r.int(4);
        const w: Node = kind === 3
          ? { ...prim(4, new Uint8Array(0)), inner: { prefix: new Uint8Array(0), nodes: [s.node] } }
          : {
            cls: kind === 2 ? 2 : 0,
            constructed: true,
            tag: kind === 0 ? 16 : kind === 1 ? 17 : r.int(4),
            children: [s.node],
          };
        s.parent[s.index] = w;
        return `wrap@${s.path}`;
      }
      case 1: { // unwrap: the children take the element's place
        const kids = s.node.children ?? s.node.inner?.nodes;
        if (!kids) return "unwrap:leaf";
        s.parent.splice(s.index, 1, ...kids);
        return `unwrap@${s.path}`;
      }
      case 2: // deep nesting
        s.node.wrap = r.pick([2, 10, 100, 1000, 20000]);
        return `deep@${s.path}x${s.node.wrap}`;
      default: { // many siblings
        const n = r.pick([10, 100, 1000, 5000]);
        const copy = serialize(s.node).length < 64 ? s.node : prim(5, []);
        s.parent.splice(s.index, 0, ...Array.from({ length: n }, () => cloneNode(copy)));
        return `many@${s.path}x${n}`;
      }
    }
  }],
  [10, "structure", (r, _root, all, donors) => {
    const s = of(all, r)!;
    if (!s.parent) return "structure:root";
    switch (r.int(5)) {
      case 0:
        s.parent.splice(s.index, 1);
        return `delete@${s.path}`;
      case 1:
        s.parent.splice(s.index, 0, cloneNode(s.node));
        return `duplicate@${s.path}`;
      case 2: {
        const j = r.int(s.parent.length);
        [s.parent[s.index], s.parent[j]] = [s.parent[j], s.parent[s.index]];
        return `swap@${s.path}<->${j}`;
      }
      case 3:
        s.parent.splice(r.int(s.parent.length + 1), 0, randomElement(r));
        return `insert@${s.path}`;
      default: { // splice a subtree of another seed in
        const donor = r.pick(slots(r.pick(donors)));
        s.parent[s.index] = cloneNode(donor.node);
        return `splice@${s.path}<-${donor.path}`;
      }
    }
  }],
  [6, "integer", (r, _root, all) => {
    const s = of(all, r, isPrimitive(2)) ?? of(all, r)!;
    s.node.content = integerContent(r);
    delete s.node.children;
    delete s.node.inner;
    return `integer@${s.path}(${s.node.content.length})`;
  }],
  [6, "oid", (r, _root, all) => {
    const s = of(all, r, isPrimitive(6)) ?? of(all, r)!;
    s.node.content = r.chance(0.4) ? oidBytes(r.pick(KNOWN_OIDS)) : edgeOid(r);
    delete s.node.children;
    delete s.node.inner;
    return `oid@${s.path}`;
  }],
  [5, "bitstring", (r, _root, all) => {
    const s = of(all, r, isPrimitive(3));
    if (!s) return "bitstring:none";
    const n = s.node;
    const data = n.inner
      ? serialize({ ...seq(), children: n.inner.nodes }).subarray(2)
      : contentOf(n).subarray(1);
    delete n.inner;
    switch (r.int(4)) {
      case 0:
        n.content = Uint8Array.from([r.pick([1, 7, 8, 9, 255]), ...data]);
        break;
      case 1: { // padding bits set
        const last = data.length ? data[data.length - 1] | 1 : 0;
        n.content = Uint8Array.from([r.range(1, 7), ...data.subarray(0, -1), last]);
        break;
      }
      case 2:
        n.content = new Uint8Array(0);
        break;
      default:
        n.content = Uint8Array.from([r.int(8)]);
    }
    return `bitstring@${s.path}`;
  }],
  [6, "time", (r, _root, all) => {
    const s = of(all, r, (n) => n.cls === 0 && (n.tag === 23 || n.tag === 24));
    if (!s) return "time:none";
    if (r.chance(0.2)) s.node.tag = s.node.tag === 23 ? 24 : 23;
    s.node.content = text(timeContent(r, s.node.tag === 23));
    return `time@${s.path}=${new TextDecoder().decode(s.node.content.subarray(0, 24))}`;
  }],
  [6, "string", (r, _root, all) => {
    const s = of(all, r, (n) => n.cls === 0 && STRING_TAGS.includes(n.tag)) ?? of(all, r)!;
    const n = s.node;
    if (r.chance(0.3)) n.tag = r.pick([...STRING_TAGS, 4, 2, 5, 1]);
    n.content = stringContent(r, n.tag);
    delete n.children;
    delete n.inner;
    n.constructed = false;
    return `string@${s.path}(${n.tag},${n.content.length})`;
  }],
  [3, "boolean", (r, _root, all) => {
    const s = of(all, r, isPrimitive(1));
    if (!s) return "boolean:none";
    s.node.content = Uint8Array.from(r.pick([[0x00], [0x01], [0x7f], [], [0xff, 0xff]]));
    return `boolean@${s.path}`;
  }],
  [8, "extension", (r, root, _all) => {
    const exts = extensionsOf(root);
    if (!exts?.children) return "extension:none";
    const list = exts.children;
    switch (r.int(4)) {
      case 0:
        list.splice(r.int(list.length + 1), 0, randomExtension(r));
        return "extension:add";
      case 1: {
        if (!list.length) return "extension:empty";
        const i = r.int(list.length);
        list.splice(i, 0, cloneNode(list[i]));
        return `extension:duplicate ${i}`;
      }
      case 2: { // replace one's value with another's (keyUsage read as SAN, ...)
        if (list.length < 2) return "extension:few";
        const a = r.int(list.length);
        const b = r.int(list.length);
        const va = list[a].children?.at(-1);
        const vb = list[b].children?.at(-1);
        if (va && vb) list[a].children![list[a].children!.length - 1] = cloneNode(vb);
        return `extension:value ${a}<-${b}`;
      }
      default: { // flip criticality
        if (!list.length) return "extension:empty";
        const e = list[r.int(list.length)];
        const kids = e.children;
        if (!kids) return "extension:raw";
        if (kids.length === 3) kids.splice(1, 1);
        else kids.splice(1, 0, prim(1, [0xff]));
        return "extension:critical";
      }
    }
  }],
  [4, "content", (r, _root, all) => {
    const s = of(all, r)!;
    const n = s.node;
    const c = encodedContent(n);
    const cut = r.int(c.length + 1);
    delete n.children;
    delete n.inner;
    n.content = r.chance(0.5)
      ? c.slice(0, cut)
      : Uint8Array.from([...c.subarray(0, cut), ...r.bytes(r.range(1, 8)), ...c.subarray(cut)]);
    return `content@${s.path}`;
  }],
];

const TOTAL_WEIGHT = MUTATORS.reduce((n, [w]) => n + w, 0);

function pickMutator(r: Rng): [string, Mutator] {
  let x = r.int(TOTAL_WEIGHT);
  for (const [w, name, m] of MUTATORS) {
    if (x < w) return [name, m];
    x -= w;
  }
  throw new Error("unreachable");
}

/** Byte-level damage after writing: cut, flip, insert, delete. */
function damage(r: Rng, b: Uint8Array): { bytes: Uint8Array; label: string } {
  if (b.length === 0) return { bytes: b, label: "empty" };
  const at = r.int(b.length);
  switch (r.int(4)) {
    case 0:
      return { bytes: b.slice(0, at), label: `truncate@${at}` };
    case 1: {
      const out = b.slice();
      for (let k = r.range(1, 4); k > 0; k--) out[r.int(out.length)] ^= 1 << r.int(8);
      return { bytes: out, label: "flip" };
    }
    case 2:
      return {
        bytes: Uint8Array.from([
          ...b.subarray(0, at),
          ...r.bytes(r.range(1, 4)),
          ...b.subarray(at),
        ]),
        label: `insert@${at}`,
      };
    default:
      return {
        bytes: Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + r.range(1, 4))]),
        label: `delete@${at}`,
      };
  }
}

/** Where a case goes. */
export type Target = "der" | "pem" | "cluster-info";

/** One generated case. */
export interface DerCase {
  index: number;
  target: Target;
  /** The seed certificate it came from. */
  seed: number;
  /** The mutated certificate bytes. */
  der: Uint8Array;
  /** For `pem`: the whole PEM text (the mutated certificate among others). */
  pem?: string;
  /** For `cluster-info`: whether the case pins the seed's key (else unsafe skip). */
  pinned?: boolean;
  /** What was done, in order. */
  mutations: string[];
}

function pemBlock(label: string, der: Uint8Array, r?: Rng): string {
  let body = base64Encode(der);
  let width = 64;
  let nl = "\n";
  const head: string[] = [];
  if (r) {
    if (r.chance(0.2)) nl = "\r\n";
    if (r.chance(0.1)) width = r.pick([1, 63, 65, 76, 1000000]);
    if (r.chance(0.05)) head.push("Proc-Type: 4,ENCRYPTED", "");
    if (r.chance(0.05)) body = body.replace(/=+$/, ""); // padding dropped
    if (r.chance(0.05)) body = body.slice(0, r.int(body.length)); // cut
    if (r.chance(0.05)) body = body.replace(/(.{10})/, "$1 \t"); // blanks inside
    if (r.chance(0.03)) body += "!";
  }
  const lines = [];
  for (let i = 0; i < body.length; i += width) lines.push(body.slice(i, i + width));
  return [`-----BEGIN ${label}-----`, ...head, ...lines, `-----END ${label}-----`, ""].join(nl);
}

function pemText(r: Rng, der: Uint8Array, seeds: readonly Uint8Array[]): string {
  const blocks = [pemBlock("CERTIFICATE", der, r)];
  for (let k = r.int(3); k > 0; k--) {
    blocks.splice(
      r.int(blocks.length + 1),
      0,
      pemBlock(r.pick(["CERTIFICATE", "CERTIFICATE", "PRIVATE KEY", "X509 CRL"]), r.pick(seeds)),
    );
  }
  let out = blocks.join(r.pick(["", "\n", "junk between blocks\n", "\r\n\r\n"]));
  switch (r.int(14)) {
    case 0:
      out = out.replace("-----END CERTIFICATE-----", "-----END CERTIFICATE----");
      break;
    case 1:
      out = out.replace("-----END CERTIFICATE-----", "-----END CERTIFICATES-----");
      break;
    case 2:
      out = "-----BEGIN CERTIFICATE-----\n".repeat(r.pick([2, 1000, 20000])) + out; // unterminated BEGINs
      break;
    case 3:
      out = `-----BEGIN CERTIFICATE-----\n${"A".repeat(r.pick([100, 100000, 1000000]))}\n` + out;
      break;
    case 4:
      out = "\uFEFF" + out;
      break;
    case 6: // unterminated blocks only
      out = "-----BEGIN CERTIFICATE-----\nQUJD\n".repeat(r.pick([100, 5000, 30000]));
      break;
    case 7: // blocks whose end names another type
      out = "-----BEGIN A-----\n".repeat(r.pick([100, 5000, 30000])) + "-----END B-----\n" + out;
      break;
    case 5: // many blocks
      out = out.repeat(
        Math.max(2, Math.min(r.pick([2, 50, 500]), Math.floor(200000 / out.length))),
      );
      break;
  }
  return out;
}

/** Generates case `index` of run `seed` from the corpus (DER of each seed certificate). */
export function generateDerCase(
  seed: number,
  index: number,
  corpus: readonly Uint8Array[],
  trees: readonly Node[] = corpus.map(parseTree),
): DerCase {
  const r = new Rng(seed, index);
  const which = r.int(corpus.length);
  const root = cloneNode(trees[which]);
  const mutations: string[] = [];
  const count = r.pick([1, 1, 1, 2, 2, 3, 4, 6]);
  for (let k = 0; k < count; k++) {
    const [, m] = pickMutator(r);
    mutations.push(m(r, root, slots(root), trees));
  }
  let der = serialize(root);
  if (r.chance(0.15)) {
    const d = damage(r, der);
    der = d.bytes;
    mutations.push(d.label);
  }
  const t = r.int(10);
  const target: Target = t < 7 ? "der" : t < 9 ? "pem" : "cluster-info";
  const out: DerCase = { index, target, seed: which, der, mutations };
  if (target === "pem") out.pem = pemText(r, der, corpus);
  if (target === "cluster-info") out.pinned = r.chance(0.5);
  return out;
}
