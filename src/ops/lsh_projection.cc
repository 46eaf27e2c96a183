// LSH_PROJECTION: locality-sensitive hashing of the input's rows (dim 0; any type, a row is its
// raw bytes) into bits. For each seed in the float32 `hash` [num_hash, num_bits], the bit is the
// sign of sum_i weight[i] * Fingerprint64(seed bytes + row i bytes) (weights 1 when absent).
// SPARSE packs each hash's bits into one int32 plus num_hash_index << num_bits; DENSE outputs
// every bit. As in TFLite a row of a string input is its share of the whole buffer's bytes.
#include <cstring>

#include "kernels/reference/farmhash.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Tensor* hash = ctx.input(0);
  const Tensor* input = ctx.input(1);
  const Tensor* weight = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, hash, "hash", {TensorType::kFloat32}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, hash, "hash", 2, 2));
  if (hash->dim(1) > 32) return ctx.Error("hash ", Describe(hash), " has more than 32 bits per hash function");
  if (input->rank() < 1 || input->dim(0) < 1) return ctx.Error("input ", Describe(input), " must have rows");
  if (input->type != TensorType::kString && !IsFixedSizeType(input->type)) {
    return ctx.Unsupported("input ", Describe(input), ": type ", TensorTypeName(input->type), " is not supported");
  }
  if (weight != nullptr) {
    ER_RETURN_IF_ERROR(CheckType(ctx, weight, "weight", {TensorType::kFloat32}));
    ER_RETURN_IF_ERROR(CheckRank(ctx, weight, "weight", 1, 1));
    if (weight->dim(0) != input->dim(0)) {
      return ctx.Error("weight ", Describe(weight), " must have one value per input row (", input->dim(0), ")");
    }
  }
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kInt32}));
  const auto* o = Options<tflite::LSHProjectionOptions>(ctx);
  const auto type = o ? o->type() : tflite::LSHProjectionType_UNKNOWN;
  if (type == tflite::LSHProjectionType_SPARSE) return ctx.ResizeOutput(0, {hash->dim(0)});
  if (type == tflite::LSHProjectionType_DENSE) return ctx.ResizeOutput(0, {hash->dim(0) * hash->dim(1)});
  return ctx.Error("projection type must be SPARSE or DENSE");
}

// The sign bit of the weighted sum of the rows' fingerprints under `seed` (summed in double).
int SignBit(const Tensor* input, const float* weight, float seed, std::vector<uint8_t>& key) {
  const int64_t rows = input->dim(0);
  const size_t row_bytes = input->bytes / static_cast<size_t>(rows);
  key.resize(sizeof(float) + row_bytes);
  std::memcpy(key.data(), &seed, sizeof(float));
  const auto* data = input->data_as<uint8_t>();
  double score = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (row_bytes > 0) std::memcpy(key.data() + sizeof(float), data + i * row_bytes, row_bytes);
    const auto signature = static_cast<int64_t>(reference::farmhash::Fingerprint64(key.data(), key.size()));
    const double value = static_cast<double>(signature);
    score += weight ? weight[i] * value : value;
  }
  return score > 0 ? 1 : 0;
}

Status Eval(OpContext& ctx) {
  const Tensor* hash = ctx.input(0);
  const Tensor* input = ctx.input(1);
  const Tensor* weight = ctx.input(2);
  const float* seeds = hash->data_as<float>();
  const float* w = weight ? weight->data_as<float>() : nullptr;
  int32_t* out = ctx.output(0)->data_as<int32_t>();
  const int num_hash = hash->dim(0), num_bits = hash->dim(1);
  const bool sparse = Options<tflite::LSHProjectionOptions>(ctx)->type() == tflite::LSHProjectionType_SPARSE;
  std::vector<uint8_t> key;
  for (int i = 0; i < num_hash; ++i) {
    uint32_t signature = 0;
    for (int j = 0; j < num_bits; ++j) {
      const int bit = SignBit(input, w, seeds[i * num_bits + j], key);
      if (sparse) signature = (signature << 1) | static_cast<uint32_t>(bit);
      else *out++ = bit;
    }
    // Offset each hash function's signatures by i << num_bits so that they do not collide
    // (wrapping as int32; no offset fits with 32 bits).
    const uint32_t stride = num_bits < 32 ? uint32_t{1} << num_bits : 0;
    if (sparse) *out++ = static_cast<int32_t>(signature + static_cast<uint32_t>(i) * stride);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterLshProjection() {
  return MakeBuiltin(tflite::BuiltinOperator_LSH_PROJECTION, 1, "float32 hash, any input type -> int32", Prepare,
                     Eval);
}

}  // namespace edgerun::ops
