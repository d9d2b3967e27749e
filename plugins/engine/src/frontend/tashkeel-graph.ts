/**
 * A load-time rewrite of the libtashkeel diacritizer's graph: the same computation in fewer operations.
 * - The relative position bias (O(length²)), one module the exported graph computes once per attention
 *   layer: where every layer's copy is node for node the same, the layers share the first copy.
 * - Attention's Einsum products become MatMul: ONNX Runtime's Einsum is generic and slow on these shapes.
 * Patterns not found are left alone; only the graph's nodes are rewritten (the rest is copied byte for byte).
 */
import { concatSamples } from '@sawt/core';

/** What was rewritten, for logs and tests. */
export interface GraphRewrite {
  bytes: Uint8Array;
  /** Attention layers now sharing the first layer's position bias (0: none). */
  sharedPositionBias: number;
  /** Einsum nodes replaced by MatMul. */
  einsumToMatMul: number;
}

interface Field {
  no: number;
  wire: number;
  /** The whole field (key included). */
  start: number;
  end: number;
  /** Where a length-delimited field's payload starts. */
  value: number;
}

interface GraphNode {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  /** Fields other than input, output, name and op_type (attributes, domain…), as encoded. */
  rest: Uint8Array[];
  /** The node as encoded, while unchanged. */
  raw: Uint8Array | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

function readVarint(buf: Uint8Array, pos: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, pos];
    scale *= 128;
  }
  throw new Error('varint too long');
}

function parseFields(buf: Uint8Array, start = 0, end = buf.length): Field[] {
  const out: Field[] = [];
  let pos = start;
  while (pos < end) {
    const fieldStart = pos;
    const [key, next] = readVarint(buf, pos);
    pos = next;
    const wire = key % 8;
    let value = pos;
    if (wire === 0) pos = readVarint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, at] = readVarint(buf, pos);
      value = at;
      pos = at + len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (pos > end) throw new Error('truncated protobuf field');
    out.push({ no: Math.floor(key / 8), wire, start: fieldStart, end: pos, value });
  }
  return out;
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

const concat = (parts: Uint8Array[]) => concatSamples(parts, new Uint8Array(0));

function lenField(no: number, payload: Uint8Array): Uint8Array {
  return concat([Uint8Array.from([...varint(no * 8 + 2), ...varint(payload.length)]), payload]);
}

const stringField = (no: number, s: string) => lenField(no, encoder.encode(s));
const payload = (buf: Uint8Array, f: Field) => buf.subarray(f.value, f.end);
const text = (buf: Uint8Array, f: Field) => utf8.decode(payload(buf, f));

function decodeNode(buf: Uint8Array, f: Field): GraphNode {
  const node: GraphNode = { input: [], output: [], name: '', opType: '', rest: [], raw: buf.subarray(f.start, f.end) };
  for (const g of parseFields(buf, f.value, f.end)) {
    if (g.no === 1 && g.wire === 2) node.input.push(text(buf, g));
    else if (g.no === 2 && g.wire === 2) node.output.push(text(buf, g));
    else if (g.no === 3 && g.wire === 2) node.name = text(buf, g);
    else if (g.no === 4 && g.wire === 2) node.opType = text(buf, g);
    else node.rest.push(buf.subarray(g.start, g.end));
  }
  return node;
}

function encodeNode(node: GraphNode): Uint8Array {
  if (node.raw) return node.raw;
  return lenField(1, concat([
    ...node.input.map((s) => stringField(1, s)),
    ...node.output.map((s) => stringField(2, s)),
    stringField(3, node.name),
    stringField(4, node.opType),
    ...node.rest,
  ]));
}

/** A node's string attribute (AttributeProto name = 1, s = 4). */
function stringAttribute(node: GraphNode, name: string): string | undefined {
  for (const field of node.rest) {
    const [f] = parseFields(field);
    if (f?.no !== 5 || f.wire !== 2) continue;
    const parts = parseFields(field, f.value, f.end);
    const n = parts.find((p) => p.no === 1 && p.wire === 2);
    const s = parts.find((p) => p.no === 4 && p.wire === 2);
    if (n && s && text(field, n) === name) return text(field, s);
  }
  return undefined;
}

/** AttributeProto { name, ints, type: INTS } for a small list of non-negative integers. */
function intsAttribute(name: string, ints: number[]): Uint8Array {
  return lenField(5, concat([stringField(1, name), Uint8Array.from(ints.flatMap((i) => [8 * 8, ...varint(i)])), Uint8Array.from([...varint(20 * 8), 7])]));
}

function newNode(name: string, opType: string, input: string[], output: string[], rest: Uint8Array[] = []): GraphNode {
  return { name, opType, input, output, rest, raw: null };
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined) => !!a && !!b && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

const REL_POS_ADD = /^(\/attn_layers\/layers\.\d+\.1\/)attend\/Add$/u;

/**
 * Layers whose position bias can be the first layer's: each rel_pos node has its counterpart (name, operator,
 * attributes) reading the same tensors, initializers of the same contents, or the layer's sequence length.
 */
function sharePositionBias(nodes: GraphNode[], initializers: Map<string, Uint8Array[]>): number {
  const producer = new Map<string, GraphNode>();
  for (const n of nodes) for (const o of n.output) producer.set(o, n);
  const adds = nodes.flatMap((n) => {
    const m = n.opType === 'Add' ? REL_POS_ADD.exec(n.name) : null;
    return m && n.input[1] === `${m[1]}rel_pos/Mul_2_output_0` ? [{ node: n, prefix: m[1]! }] : [];
  });
  if (adds.length < 2) return 0;
  const [first, ...others] = adds;
  // Names carry the layer's prefix (some twice: QDQ nodes name the tensor and its consumer).
  const generic = (name: string, prefix: string) => name.split(prefix).join('\u0000');
  const subgraph = (prefix: string) => new Map(nodes.filter((n) => n.name.startsWith(`${prefix}rel_pos/`)).map((n) => [generic(n.name, prefix), n]));
  const reference = subgraph(first!.prefix);
  const sameInput = (x: string, y: string, prefix: string): boolean => {
    if (x === y) return true;
    if (initializers.has(x) || initializers.has(y)) {
      const [a, b] = [initializers.get(x), initializers.get(y)];
      return !!a && !!b && a.length === b.length && a.every((part, i) => sameBytes(part, b[i]));
    }
    if (!x.startsWith(prefix) || generic(x, prefix) !== generic(y, first!.prefix)) return false;
    if (x.startsWith(`${prefix}rel_pos/`)) return true; // checked as its own node pair
    // The layer's sequence length: Gather(Shape(q or k), same index).
    const [gx, gy] = [producer.get(x), producer.get(y)];
    return gx?.opType === 'Gather' && gy?.opType === 'Gather' && sameInput(gx.input[1]!, gy.input[1]!, prefix) &&
      producer.get(gx.input[0]!)?.opType === 'Shape' && producer.get(gy.input[0]!)?.opType === 'Shape';
  };
  let shared = 0;
  for (const { node, prefix } of others) {
    const copy = subgraph(prefix);
    const same = copy.size === reference.size && [...copy].every(([suffix, n]) => {
      const r = reference.get(suffix);
      return r && r.opType === n.opType && r.input.length === n.input.length && r.rest.length === n.rest.length &&
        r.rest.every((a, i) => sameBytes(a, n.rest[i])) && n.input.every((x, i) => sameInput(x, r.input[i]!, prefix));
    });
    if (!same) continue;
    node.input[1] = first!.node.input[1]!;
    node.raw = null;
    shared++;
  }
  return shared;
}

/** `bhid,bhjd->bhij` → 'transposeB', `bhij,bhjd->bhid` → 'plain' (any letters, same two batch axes). */
function einsumAsMatMul(equation: string): 'plain' | 'transposeB' | null {
  const m = /^(\w{4}),(\w{4})->(\w{4})$/u.exec(equation.replace(/\s+/gu, ''));
  if (!m) return null;
  const [a, b, c] = [m[1]!, m[2]!, m[3]!];
  const batch = a.slice(0, 2);
  if (b.slice(0, 2) !== batch || c.slice(0, 2) !== batch || new Set(a + b + c).size !== 5) return null;
  const [i, k] = [a[2]!, a[3]!];
  if (b === batch + k + b[3] && c === batch + i + b[3] && b[3] !== i && b[3] !== k) return 'plain';
  if (b === batch + b[2] + k && c === batch + i + b[2] && b[2] !== i && b[2] !== k) return 'transposeB';
  return null;
}

function replaceEinsums(nodes: GraphNode[]): { nodes: GraphNode[]; count: number } {
  let count = 0;
  const out = nodes.flatMap((n) => {
    const kind = n.opType === 'Einsum' && n.input.length === 2 && n.rest.every(defaultDomainOrAttribute) ? einsumAsMatMul(stringAttribute(n, 'equation') ?? '') : null;
    if (!kind) return [n];
    count++;
    if (kind === 'plain') return [newNode(`${n.name}/sawt_matmul`, 'MatMul', [...n.input], [...n.output])];
    const transposed = `${n.input[1]}/sawt_transposed`;
    return [
      newNode(`${n.name}/sawt_transpose`, 'Transpose', [n.input[1]!], [transposed], [intsAttribute('perm', [0, 1, 3, 2])]),
      newNode(`${n.name}/sawt_matmul`, 'MatMul', [n.input[0]!, transposed], [...n.output]),
    ];
  });
  return { nodes: out, count };
}

/** A NodeProto field that is an attribute (5), a doc string (6) or the default domain (7, empty). */
function defaultDomainOrAttribute(field: Uint8Array): boolean {
  const [f] = parseFields(field);
  return f?.no === 5 || f?.no === 6 || (f?.no === 7 && f.end === f.value);
}

/** Drops nodes whose outputs nothing reads (graph outputs count as read), and what only they read. */
function dropUnused(nodes: GraphNode[], graphOutputs: Set<string>): GraphNode[] {
  const readers = new Map<string, number>();
  for (const n of nodes) for (const i of n.input) readers.set(i, (readers.get(i) ?? 0) + 1);
  const producer = new Map<string, GraphNode>();
  for (const n of nodes) for (const o of n.output) producer.set(o, n);
  const dead = new Set<GraphNode>();
  const isDead = (n: GraphNode) => !dead.has(n) && n.output.every((o) => o === '' || (!graphOutputs.has(o) && !readers.get(o)));
  const work = nodes.filter(isDead);
  while (work.length) {
    const n = work.pop()!;
    if (!isDead(n)) continue;
    dead.add(n);
    for (const i of n.input) {
      readers.set(i, readers.get(i)! - 1);
      const p = producer.get(i);
      if (p && isDead(p)) work.push(p);
    }
  }
  return nodes.filter((n) => !dead.has(n));
}

/** Rewrites a libtashkeel ONNX model (ModelProto bytes); see the module comment. */
export function rewriteTashkeelGraph(model: Uint8Array): GraphRewrite {
  const unchanged = { bytes: model, sharedPositionBias: 0, einsumToMatMul: 0 };
  const top = parseFields(model);
  const graphField = top.filter((f) => f.no === 7 && f.wire === 2);
  if (graphField.length !== 1) return unchanged;
  const gf = graphField[0]!;
  const graph = parseFields(model, gf.value, gf.end);
  let nodes = graph.filter((f) => f.no === 1 && f.wire === 2).map((f) => decodeNode(model, f));
  // Initializers by name, as their TensorProto fields other than the name (8), compared only where needed.
  const initializers = new Map<string, Uint8Array[]>();
  for (const f of graph.filter((g) => g.no === 5 && g.wire === 2)) {
    const parts = parseFields(model, f.value, f.end);
    const name = parts.find((p) => p.no === 8 && p.wire === 2);
    if (name) initializers.set(text(model, name), parts.filter((p) => p !== name).map((p) => model.subarray(p.start, p.end)));
  }
  const outputs = new Set(graph.filter((f) => f.no === 12 && f.wire === 2).flatMap((f) => {
    const name = parseFields(model, f.value, f.end).find((p) => p.no === 1 && p.wire === 2);
    return name ? [text(model, name)] : [];
  }));
  const sharedPositionBias = sharePositionBias(nodes, initializers);
  const einsums = replaceEinsums(nodes);
  if (sharedPositionBias === 0 && einsums.count === 0) return unchanged;
  nodes = dropUnused(einsums.nodes, outputs);
  const graphBytes = concat([...nodes.map(encodeNode), ...graph.filter((f) => !(f.no === 1 && f.wire === 2)).map((f) => model.subarray(f.start, f.end))]);
  const bytes = concat(top.map((f) => (f === gf ? lenField(7, graphBytes) : model.subarray(f.start, f.end))));
  return { bytes, sharedPositionBias, einsumToMatMul: einsums.count };
}
