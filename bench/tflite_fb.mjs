// Copied from ../shared/tools/oracle (the reference runner) for bench/litert_bench.mjs.
// Minimal read-only parser for the .tflite FlatBuffer (schema.fbs of TFLite /
// LiteRT). Only what the oracle reports is decoded: tensors (name, type,
// shape, quantization), subgraph inputs/outputs, signature defs, operator
// codes and a per-op histogram.

// BuiltinOperator enum names, index = enum value (from schema.fbs).
export const BUILTIN_OPS = [
  "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
  "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
  "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
  "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
  "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
  "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER",
  "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
  "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2",
  "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
  "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT",
  "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL",
  "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD",
  "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK",
  "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
  "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V",
  "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
  "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF",
  "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
  "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM",
  "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE",
  "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE",
  "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL",
  "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1",
  "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
  "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC",
  "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM",
  "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM",
  "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE",
  "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR",
  "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR", "STABLEHLO_POWER",
  "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT",
  "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE", "STABLEHLO_CONVERT",
  "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD", "STABLEHLO_IOTA",
  "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE",
  "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE", "STABLEHLO_RNG_BIT_GENERATOR",
  "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT", "STABLEHLO_CBRT",
  "STABLEHLO_CASE",
];

// TFLite TensorType enum (schema.fbs) -> name.
export const TFLITE_TYPES = ['float32', 'float16', 'int32', 'uint8', 'int64', 'string', 'bool',
  'int16', 'complex64', 'int8', 'float64', 'complex128', 'uint64', 'resource', 'variant',
  'uint32', 'uint16', 'int4', 'bfloat16', 'int2', 'uint4', 'float8_e4m3fn', 'float8_e5m2'];

class Fb {
  constructor(bytes) {
    this.b = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(p) { return this.dv.getUint8(p); }
  i8(p) { return this.dv.getInt8(p); }
  u16(p) { return this.dv.getUint16(p, true); }
  i32(p) { return this.dv.getInt32(p, true); }
  u32(p) { return this.dv.getUint32(p, true); }
  // Absolute position of field `idx` of the table at `t`, or 0 if absent.
  field(t, idx) {
    const vt = t - this.i32(t);
    const vtSize = this.u16(vt);
    const off = 4 + 2 * idx;
    if (off >= vtSize) return 0;
    const o = this.u16(vt + off);
    return o ? t + o : 0;
  }
  ref(p) { return p + this.u32(p); }
  table(t, idx) { const p = this.field(t, idx); return p ? this.ref(p) : 0; }
  scalar(t, idx, kind, dflt) {
    const p = this.field(t, idx);
    if (!p) return dflt;
    switch (kind) {
      case 'u8': return this.u8(p);
      case 'i8': return this.i8(p);
      case 'i32': return this.i32(p);
      case 'u32': return this.u32(p);
      default: throw new Error(kind);
    }
  }
  str(t, idx) {
    const p = this.field(t, idx);
    if (!p) return null;
    const s = this.ref(p);
    const n = this.u32(s);
    return new TextDecoder().decode(this.b.subarray(s + 4, s + 4 + n));
  }
  // Vector header: [start, length] or null.
  vec(t, idx) {
    const p = this.field(t, idx);
    if (!p) return null;
    const v = this.ref(p);
    return [v + 4, this.u32(v)];
  }
  vecI32(t, idx) {
    const v = this.vec(t, idx); if (!v) return null;
    const out = []; for (let i = 0; i < v[1]; i++) out.push(this.i32(v[0] + 4 * i)); return out;
  }
  vecF32(t, idx) {
    const v = this.vec(t, idx); if (!v) return null;
    const out = []; for (let i = 0; i < v[1]; i++) out.push(this.dv.getFloat32(v[0] + 4 * i, true)); return out;
  }
  vecI64(t, idx) {
    const v = this.vec(t, idx); if (!v) return null;
    const out = []; for (let i = 0; i < v[1]; i++) out.push(Number(this.dv.getBigInt64(v[0] + 8 * i, true))); return out;
  }
  vecTables(t, idx) {
    const v = this.vec(t, idx); if (!v) return [];
    const out = []; for (let i = 0; i < v[1]; i++) out.push(this.ref(v[0] + 4 * i)); return out;
  }
}

function parseTensor(fb, t, index) {
  const typeCode = fb.scalar(t, 1, 'i8', 0);
  const tensor = {
    index,
    name: fb.str(t, 3) ?? '',
    type: TFLITE_TYPES[typeCode] ?? `type${typeCode}`,
    shape: fb.vecI32(t, 0) ?? [],
  };
  const sig = fb.vecI32(t, 7);
  if (sig) tensor.shape_signature = sig;
  const q = fb.table(t, 4);
  if (q) {
    const scale = fb.vecF32(q, 2);
    const zp = fb.vecI64(q, 3);
    if (scale && scale.length) {
      tensor.quantization = {
        scale: scale.length === 1 ? scale[0] : scale,
        zero_point: zp && zp.length === 1 ? zp[0] : (zp ?? 0),
      };
      if (scale.length > 1) tensor.quantization.quantized_dimension = fb.scalar(q, 6, 'i32', 0);
    }
  }
  return tensor;
}

export function parseTflite(bytes) {
  const fb = new Fb(bytes);
  const ident = new TextDecoder().decode(bytes.subarray(4, 8));
  const root = fb.ref(0);
  const model = {
    file_identifier: ident,
    version: fb.scalar(root, 0, 'u32', 0),
    description: fb.str(root, 3),
    operator_codes: [],
    subgraphs: [],
    signature_defs: [],
  };
  for (const oc of fb.vecTables(root, 1)) {
    const dep = fb.scalar(oc, 0, 'i8', 0);
    const code = Math.max(dep, fb.scalar(oc, 3, 'i32', 0));
    const custom = fb.str(oc, 1);
    model.operator_codes.push({
      builtin_code: code,
      name: code === 32 && custom ? `CUSTOM:${custom}` : (BUILTIN_OPS[code] || `OP${code}`),
      version: fb.scalar(oc, 2, 'i32', 1),
    });
  }
  for (const sg of fb.vecTables(root, 2)) {
    const tensors = fb.vecTables(sg, 0).map((t, i) => parseTensor(fb, t, i));
    const ops = fb.vecTables(sg, 3).map((o) => fb.scalar(o, 0, 'u32', 0));
    const hist = {};
    for (const oi of ops) {
      const name = model.operator_codes[oi]?.name ?? `opcode${oi}`;
      hist[name] = (hist[name] ?? 0) + 1;
    }
    model.subgraphs.push({
      name: fb.str(sg, 4),
      tensors,
      inputs: fb.vecI32(sg, 1) ?? [],
      outputs: fb.vecI32(sg, 2) ?? [],
      num_operators: ops.length,
      op_histogram: hist,
    });
  }
  for (const sd of fb.vecTables(root, 7)) {
    const maps = (idx) => fb.vecTables(sd, idx).map((m) => ({
      name: fb.str(m, 0), tensor_index: fb.scalar(m, 1, 'u32', 0) }));
    model.signature_defs.push({
      key: fb.str(sd, 2),
      subgraph_index: fb.scalar(sd, 4, 'u32', 0),
      inputs: maps(0),
      outputs: maps(1),
    });
  }
  return model;
}
