/**
 * DER as an editable tree, for tests and the DER fuzzer (scripts/fuzz_der_cases.ts): read a
 * certificate, change one element (its tag, length octets, content, children), write it back
 * with every enclosing length recomputed. Independent of `core/pki/der_reader.ts` (the code
 * under test): it reads what that reader refuses too (high tag numbers, non-minimal lengths)
 * and writes what a mutation asks for (indefinite lengths, lengths that lie).
 *
 * @module
 */

/** One element of the tree: what it is, and how it is written when a mutation says so. */
export interface Node {
  /** Class (0 universal, 1 application, 2 context, 3 private). */
  cls: number;
  constructed: boolean;
  tag: number;
  /** Children of a constructed element. */
  children?: Node[];
  /** Content of a primitive element (or of a constructed one that did not parse). */
  content?: Uint8Array;
  /** DER inside an OCTET STRING or BIT STRING: `prefix` (BIT STRING's unused-bits octet) then nodes. */
  inner?: { prefix: Uint8Array; nodes: Node[] };
  /** Identifier octets written instead of the minimal ones. */
  id?: Uint8Array;
  /** Length octets written instead of the minimal ones. */
  length?: Uint8Array;
  /** Written with BER's indefinite length (0x80 … 00 00); `eoc` false leaves the end out. */
  indefinite?: { eoc: boolean };
  /** Wrapped in this many SEQUENCEs (deep nesting, written without recursion). */
  wrap?: number;
}

// --- reading (tolerant) ---

function readOne(b: Uint8Array, at: number): { node: Node; end: number } | undefined {
  if (at + 2 > b.length) return undefined;
  const id = b[at];
  let i = at + 1;
  let tag = id & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      if (i >= b.length || tag > 0xffffff) return undefined;
      const x = b[i++];
      tag = tag * 128 + (x & 0x7f);
      if (!(x & 0x80)) break;
    }
  }
  if (i >= b.length) return undefined;
  let len = b[i++];
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || i + n > b.length) return undefined;
    len = 0;
    for (let k = 0; k < n; k++) len = len * 256 + b[i++];
  }
  const end = i + len;
  if (end > b.length) return undefined;
  const content = b.subarray(i, end);
  const node: Node = { cls: id >> 6, constructed: (id & 0x20) !== 0, tag };
  if (node.constructed) {
    const kids = readAll(content);
    if (kids) node.children = kids;
    else node.content = content.slice();
  } else {
    node.content = content.slice();
    if (node.cls === 0 && (tag === 4 || tag === 3) && content.length >= 2) {
      const prefix = tag === 3 ? content.subarray(0, 1) : new Uint8Array(0);
      const nodes = tag === 3 && content[0] !== 0
        ? undefined
        : readAll(content.subarray(prefix.length));
      if (nodes && nodes.length > 0) node.inner = { prefix: prefix.slice(), nodes };
    }
  }
  return { node, end };
}

function readAll(b: Uint8Array): Node[] | undefined {
  const out: Node[] = [];
  for (let at = 0; at < b.length;) {
    const r = readOne(b, at);
    if (!r) return undefined;
    out.push(r.node);
    at = r.end;
  }
  return out;
}

/** Reads DER into a tree (throws when it is not one element). */
export function parseTree(der: Uint8Array): Node {
  const r = readOne(der, 0);
  if (!r || r.end !== der.length) throw new Error("seed is not one DER element");
  return r.node;
}

/** A deep copy of a tree. */
export function cloneNode(n: Node): Node {
  return {
    ...n,
    children: n.children?.map(cloneNode),
    inner: n.inner && { prefix: n.inner.prefix, nodes: n.inner.nodes.map(cloneNode) },
  };
}

// --- writing ---

/** Minimal identifier octets of a class, form and tag number. */
export function identifier(cls: number, constructed: boolean, tag: number): number[] {
  const first = (cls << 6) | (constructed ? 0x20 : 0);
  if (tag < 31) return [first | tag];
  const arcs: number[] = [];
  for (let v = tag;; v = Math.floor(v / 128)) {
    arcs.unshift(v % 128);
    if (v < 128) break;
  }
  return [first | 0x1f, ...arcs.map((a, i) => (i < arcs.length - 1 ? a | 0x80 : a))];
}

/** Minimal length octets. */
export function lengthOctets(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

class Writer {
  #chunks: Uint8Array[] = [];
  size = 0;
  push(b: Uint8Array | number[]): void {
    const u = b instanceof Uint8Array ? b : Uint8Array.from(b);
    this.#chunks.push(u);
    this.size += u.length;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let off = 0;
    for (const c of this.#chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}

/** The content octets of an element as written (children or encapsulated DER included). */
export function encodedContent(n: Node): Uint8Array {
  if (n.children) {
    const w = new Writer();
    for (const c of n.children) w.push(serialize(c));
    return w.bytes();
  }
  if (n.inner) {
    const w = new Writer();
    w.push(n.inner.prefix);
    for (const c of n.inner.nodes) w.push(serialize(c));
    return w.bytes();
  }
  return n.content ?? new Uint8Array(0);
}

/** Writes a tree: minimal encodings unless a node overrides its identifier or length. */
export function serialize(n: Node): Uint8Array {
  const content = encodedContent(n);
  const w = new Writer();
  w.push(n.id ?? identifier(n.cls, n.constructed, n.tag));
  if (n.indefinite) {
    w.push([0x80]);
    w.push(content);
    if (n.indefinite.eoc) w.push([0, 0]);
  } else {
    w.push(n.length ?? lengthOctets(content.length));
    w.push(content);
  }
  let out = w.bytes();
  if (n.wrap) {
    // Deep nesting without recursion: lengths from the inside out.
    const heads: number[][] = [];
    let len = out.length;
    for (let i = 0; i < n.wrap; i++) {
      const h = [0x30, ...lengthOctets(len)];
      heads.push(h);
      len += h.length;
    }
    const all = new Uint8Array(len);
    let off = 0;
    for (let i = heads.length - 1; i >= 0; i--) {
      all.set(heads[i], off);
      off += heads[i].length;
    }
    all.set(out, off);
    out = all;
  }
  return out;
}

/** A primitive universal element. */
export function prim(tag: number, content: Uint8Array | number[] | string): Node {
  return {
    cls: 0,
    constructed: false,
    tag,
    content: typeof content === "string"
      ? new TextEncoder().encode(content)
      : content instanceof Uint8Array
      ? content
      : Uint8Array.from(content),
  };
}

/** A SEQUENCE of elements. */
export function seq(...children: Node[]): Node {
  return { cls: 0, constructed: true, tag: 16, children };
}

/** `der` read, changed by `edit` (in place, on a copy) and written back. */
export function editDer(der: Uint8Array, edit: (root: Node) => void): Uint8Array {
  const root = parseTree(der);
  edit(root);
  return serialize(root);
}
