// Reading and writing tensors for the command line: raw .bin, .npy, text files of strings,
// seeded random inputs, and summaries (min/max/mean/top-k).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgerun/status.h"
#include "edgerun/tensor.h"

namespace edgerun::tools {

struct TensorFile {
  std::vector<uint8_t> data;
  bool has_shape = false;  // .npy files carry their shape and type
  Shape shape;
  TensorType type = TensorType::kFloat32;
  bool is_text = false;    // lines of a text file (string tensors)
  std::vector<std::string> lines;
};

Status ReadFileBytes(const std::string& path, std::vector<uint8_t>* bytes);
Status WriteFileBytes(const std::string& path, const void* data, size_t size);

// Reads a .npy file (little-endian, C order) or raw bytes; for string tensors, text lines.
Status ReadTensorFile(const std::string& path, bool want_text, TensorFile* file);
// The lines of a text file read as raw bytes (ReadTensorFile with want_text does the same), without
// their line ends (\n or \r\n); a last line without one counts too.
void SplitTextLines(const std::vector<uint8_t>& raw, TensorFile* file);
Status WriteNpy(const std::string& path, const Tensor& tensor);

// The shape that a raw file of `bytes` bytes gives to `tensor`: its current shape when the size
// matches, else the one -1 dimension of shape_signature inferred from the size.
Status InferShapeFromBytes(const Tensor& tensor, size_t bytes, Shape* shape);

// Fills a tensor like tools/oracle/run.mjs --seed: float in [-1, 1], int8/uint8/int16 over
// their range, int32/int64 in [0, 15], bool 0/1.
void FillRandom(Tensor* tensor, uint64_t seed);

struct TensorSummary {
  double min = 0, max = 0, mean = 0;
  int64_t count = 0;
  std::vector<std::pair<int64_t, double>> top;  // (flat index, value), highest first
};
// Summary of a numeric tensor (quantized tensors: the stored integers); count 0 for others.
TensorSummary Summarize(const Tensor& tensor, int top_k);

}  // namespace edgerun::tools
