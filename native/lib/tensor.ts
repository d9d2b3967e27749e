/** Tensors as the addon's ONNX sessions exchange them (onnx_binding.cc). */
export type TensorType = 'float32' | 'float64' | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';
export type TensorData =
  | Float32Array | Float64Array | BigInt64Array | Int32Array | Int16Array | Int8Array | Uint8Array;

export interface Tensor {
  type: TensorType;
  dims: number[];
  data: TensorData;
}

/** A model input or output; `dims` holds -1 where a dimension is dynamic. */
export interface TensorDescription {
  name: string;
  /** A TensorType, or e.g. 'float16' | 'string' | 'sequence' for tensors this API cannot exchange. */
  type: string;
  dims: number[];
}
