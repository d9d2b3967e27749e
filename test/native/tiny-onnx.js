// Hand-encoded ONNX models for the tests (protobuf wire format, no dependency):
//   Y = X + X   (X: float32 [N, 3], N dynamic)
//   J = K + K   (K: int64 [2])
// IR version 8, opset 13, with custom metadata {author: 'sawt-test'}.

function varint(value) {
  const bytes = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

const field = (number, wireType) => varint((number << 3) | wireType);
const int = (number, value) => Buffer.concat([field(number, 0), varint(value)]);
const bytes = (number, content) => Buffer.concat([field(number, 2), varint(content.length), content]);
const str = (number, text) => bytes(number, Buffer.from(text, 'utf8'));
const msg = (number, ...parts) => bytes(number, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

// ValueInfoProto: name(1), type(2: TypeProto.tensor_type(1): elem_type(1), shape(2: dim(1): value(1) | param(2)))
function valueInfo(number, name, elemType, dims) {
  const shape = dims.map((d) => (typeof d === 'string' ? msg(1, str(2, d)) : msg(1, int(1, d))));
  return msg(number, str(1, name), msg(2, msg(1, int(1, elemType), msg(2, ...shape))));
}

// NodeProto: input(1), output(2), name(3), op_type(4)
const addNode = (a, out, name) => msg(1, str(1, a), str(1, a), str(2, out), str(3, name), str(4, 'Add'));

/** Bytes of the model described above. */
export function tinyAddModel() {
  const graph = msg(
    7,
    addNode('X', 'Y', 'double_x'),
    addNode('K', 'J', 'double_k'),
    str(2, 'tiny'),
    valueInfo(11, 'X', FLOAT, ['N', 3]),
    valueInfo(11, 'K', INT64, [2]),
    valueInfo(12, 'Y', FLOAT, ['N', 3]),
    valueInfo(12, 'J', INT64, [2]),
  );
  return Buffer.concat([
    int(1, 8), // ir_version
    str(2, 'sawt-test'), // producer_name
    graph,
    msg(8, str(1, ''), int(2, 13)), // opset_import
    msg(14, str(1, 'author'), str(2, 'sawt-test')), // metadata_props
  ]);
}
