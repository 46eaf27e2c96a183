// STABLEHLO_RNG_BIT_GENERATOR: fills `output` (int32/int64/uint32/uint64, static shape) with
// random bits from the counter-based generator named by `algorithm` (THREEFRY: Threefry2x32,
// state u64[2]; PHILOX / DEFAULT: Philox4x32-10, state u64[2] or u64[3]) and outputs the
// advanced state. The key is the first state word, the counter the rest, exactly as TFLite
// lays them out (only the low 64 bits of the counter advance).
#include <array>
#include <cstring>

#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

std::array<uint32_t, 2> Threefry2x32(uint32_t key0, uint32_t key1, std::array<uint32_t, 2> ctr) {
  constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t key2 = key0 ^ key1 ^ 0x1BD11BDA;
  ctr[0] += key0;
  ctr[1] += key1;
  auto round = [&](int r, uint32_t ks0, uint32_t ks1, uint32_t injection) {
    for (int rot : kRotations[r]) {
      ctr[0] += ctr[1];
      ctr[1] = (ctr[1] << rot) | (ctr[1] >> (32 - rot));
      ctr[1] ^= ctr[0];
    }
    ctr[0] += ks0;
    ctr[1] += ks1 + injection;
  };
  round(0, key1, key2, 1);
  round(1, key2, key0, 2);
  round(0, key0, key1, 3);
  round(1, key1, key2, 4);
  round(0, key2, key0, 5);
  return ctr;
}

std::array<uint32_t, 4> Philox4x32(uint32_t key0, uint32_t key1, std::array<uint32_t, 4> ctr) {
  for (int i = 0; i < 10; ++i) {
    const uint64_t p0 = uint64_t{0xD2511F53} * ctr[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key0, static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key1, static_cast<uint32_t>(p0)};
    key0 += 0x9E3779B9;
    key1 += 0xBB67AE85;
  }
  return ctr;
}

// Writes `words` 32-bit values, one generator block at a time, then the final state.
template <size_t K, class Generator>
void Fill(Generator generate, uint32_t key0, uint32_t key1, std::array<uint32_t, K> ctr, uint32_t* out, int64_t words,
          uint32_t* state) {
  for (int64_t i = 0; i < words;) {
    const std::array<uint32_t, K> block = generate(key0, key1, ctr);
    const int64_t n = std::min<int64_t>(K, words - i);
    std::memcpy(out + i, block.data(), n * sizeof(uint32_t));
    i += n;
    if (++ctr[0] == 0) ++ctr[1];
  }
  state[0] = key0;
  state[1] = key1;
  state[2] = ctr[0];
  state[3] = ctr[1];
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 2));
  const Tensor* state = ctx.input(0);
  Tensor* output = ctx.output(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, state, "initial_state", {TensorType::kUInt64}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, state, "initial_state", 1, 1));
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output_state", {TensorType::kUInt64}));
  ER_RETURN_IF_ERROR(CheckType(ctx, output, "output",
                               {TensorType::kInt32, TensorType::kInt64, TensorType::kUInt32, TensorType::kUInt64}));
  const auto* o = Options2<tflite::StablehloRngBitGeneratorOptions>(ctx);
  const auto algorithm = o ? o->algorithm() : tflite::RngAlgorithm_DEFAULT;
  const int size = state->dim(0);
  if (algorithm == tflite::RngAlgorithm_THREEFRY) {
    if (size != 2) return ctx.Error("THREEFRY needs a u64[2] state, got ", Describe(state));
  } else if (algorithm == tflite::RngAlgorithm_PHILOX || algorithm == tflite::RngAlgorithm_DEFAULT) {
    if (size != 2 && size != 3) return ctx.Error("PHILOX needs a u64[2] or u64[3] state, got ", Describe(state));
  } else {
    return ctx.Error("unknown RNG algorithm ", static_cast<int>(algorithm));
  }
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, state->shape));
  return ctx.ResizeOutput(1, output->shape);  // the output's shape is static, from the model
}

Status Eval(OpContext& ctx) {
  const Tensor* state = ctx.input(0);
  Tensor* output = ctx.output(1);
  const auto* o = Options2<tflite::StablehloRngBitGeneratorOptions>(ctx);
  const auto algorithm = o ? o->algorithm() : tflite::RngAlgorithm_DEFAULT;
  const int size = state->dim(0);
  // The state as 32-bit words (little-endian halves of the u64s).
  uint32_t words[6] = {};
  std::memcpy(words, state->data, static_cast<size_t>(size) * sizeof(uint64_t));
  const int64_t out_words = output->num_elements() * static_cast<int64_t>(TensorTypeSize(output->type) / 4);
  auto* out = output->data_as<uint32_t>();
  uint32_t* new_state = ctx.output(0)->data_as<uint32_t>();
  if (algorithm == tflite::RngAlgorithm_THREEFRY) {
    Fill<2>(Threefry2x32, words[0], words[1], std::array<uint32_t, 2>{words[2], words[3]}, out, out_words, new_state);
  } else {
    std::memcpy(new_state, words, static_cast<size_t>(size) * sizeof(uint64_t));
    const std::array<uint32_t, 4> ctr{words[2], words[3], words[size == 3 ? 4 : 0], words[size == 3 ? 5 : 1]};
    Fill<4>(Philox4x32, words[0], words[1], ctr, out, out_words, new_state);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterStablehloRngBitGenerator() {
  return MakeBuiltin(tflite::BuiltinOperator_STABLEHLO_RNG_BIT_GENERATOR, 1,
                     "u64 state -> int32, int64, uint32, uint64 bits", Prepare, Eval);
}

}  // namespace edgerun::ops
