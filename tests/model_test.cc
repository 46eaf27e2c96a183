// The loader: verification, validation of indices and sizes, zero-copy weights, metadata.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "edgerun/model.h"
#include "model/flatbuffer_read.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

using testing::Build;

std::vector<uint8_t> AddModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const std::vector<float> w = {1.5f, -2.0f};
  const int c = b.AddConstant("c", TensorType::kFloat32, {2}, w);
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, c}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  b.AddMetadata("min_runtime_version", {'1', '.', '5', 0});
  return b.Finish();
}

TEST(Model, ReadsMisalignedInt64Vectors) {
  // The verifier lets a [long] vector's elements sit 4 bytes off an 8-byte boundary (fuzz_model
  // found one in a zero_point vector); reading them must not load a misaligned int64_t, which
  // UBSan reports in the sanitizer build.
  const uint32_t size = 2;
  const int64_t values[2] = {-3, int64_t{1} << 40};
  alignas(8) uint8_t aligned[8 + sizeof(values)] = {};  // length at 4, elements at 8
  std::memcpy(aligned + 4, &size, 4);
  std::memcpy(aligned + 8, values, sizeof(values));
  alignas(8) uint8_t misaligned[4 + sizeof(values)] = {};  // length at 0, elements at 4
  std::memcpy(misaligned, &size, 4);
  std::memcpy(misaligned + 4, values, sizeof(values));
  for (const uint8_t* vector : {static_cast<const uint8_t*>(aligned + 4), static_cast<const uint8_t*>(misaligned)}) {
    const auto* v = reinterpret_cast<const flatbuffers::Vector<int64_t>*>(vector);
    EXPECT_EQ(ReadInt64Vector(v), std::vector<int64_t>(values, values + 2));
  }
  EXPECT_TRUE(ReadInt64Vector(nullptr).empty());
}

TEST(Model, ViewsAlignedQuantizationValuesAndCopiesMisalignedOnes) {
  const uint32_t size = 2;
  const int64_t values[2] = {-3, int64_t{1} << 40};
  alignas(8) uint8_t aligned[8 + sizeof(values)] = {};
  std::memcpy(aligned + 4, &size, 4);
  std::memcpy(aligned + 8, values, sizeof(values));
  alignas(8) uint8_t misaligned[4 + sizeof(values)] = {};
  std::memcpy(misaligned, &size, 4);
  std::memcpy(misaligned + 4, values, sizeof(values));
  const QuantValues<int64_t> view = ViewOrCopy(reinterpret_cast<const flatbuffers::Vector<int64_t>*>(aligned + 4));
  EXPECT_TRUE(view.is_view());
  EXPECT_EQ(static_cast<const void*>(view.data()), static_cast<const void*>(aligned + 8));
  const QuantValues<int64_t> copy = ViewOrCopy(reinterpret_cast<const flatbuffers::Vector<int64_t>*>(misaligned));
  EXPECT_FALSE(copy.is_view());
  EXPECT_EQ(view, copy);
  EXPECT_EQ(copy.ToVector(), std::vector<int64_t>(values, values + 2));
  EXPECT_TRUE(ViewOrCopy<int64_t>(nullptr).empty());
}

TEST(Model, QuantValuesCopyOnWrite) {
  const float file[3] = {0.5f, 0.25f, 0.125f};
  QuantValues<float> a = QuantValues<float>::View(file, 3);
  QuantValues<float> b = a;  // still the file's bytes
  EXPECT_TRUE(b.is_view());
  EXPECT_EQ(b.data(), file);
  b.set(1, 9.0f);  // a tensor of its own now; the file and the other tensor keep theirs
  EXPECT_FALSE(b.is_view());
  EXPECT_EQ(file[1], 0.25f);
  EXPECT_EQ(a[1], 0.25f);
  EXPECT_EQ(b.ToVector(), (std::vector<float>{0.5f, 9.0f, 0.125f}));
  b.push_back(1.0f);
  EXPECT_EQ(b.size(), 4u);
  a.assign(a.begin() + 1, a.end());  // from its own values
  EXPECT_EQ(a.ToVector(), (std::vector<float>{0.25f, 0.125f}));
  QuantValues<float> owned = std::vector<float>{1, 2};
  QuantValues<float> owned_copy = owned;
  owned.set(0, 5);
  EXPECT_EQ(owned_copy[0], 1.0f);  // copies of owned values are independent
  QuantValues<float> moved = std::move(owned);
  EXPECT_EQ(moved.ToVector(), (std::vector<float>{5, 2}));
  EXPECT_TRUE(owned.empty());  // NOLINT(bugprone-use-after-move): a moved-from value is empty
  moved = QuantValues<float>::View(file, 2);
  EXPECT_TRUE(moved.is_view());
  moved.clear();
  EXPECT_TRUE(moved.empty());
  EXPECT_FALSE(moved.is_view());
}

TEST(Model, LoadsFromBufferAndReadsFields) {
  const auto bytes = AddModel();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "add.tflite");
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ((*model)->version(), 3u);
  EXPECT_EQ((*model)->num_subgraphs(), 1);
  EXPECT_EQ((*model)->weight_bytes(), 8u);
  ASSERT_EQ((*model)->metadata_names().size(), 1u);
  Model::Bytes md;
  ASSERT_TRUE((*model)->metadata("min_runtime_version", &md));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(md.data)), "1.5");
}

TEST(Model, LoadsFromFileZeroCopy) {
  const auto bytes = AddModel();
  const std::string path = ::testing::TempDir() + "/edgerun_model_test.tflite";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto interpreter = Interpreter::Create(*model);
  ASSERT_TRUE(interpreter.ok());
  // The constant points into the mapped file, not into a copy.
  const Tensor* c = (*interpreter)->tensor(1);
  ASSERT_EQ(c->name, "c");
  EXPECT_TRUE(c->is_constant());
  const auto* base = (*model)->data();
  EXPECT_GE(static_cast<const uint8_t*>(c->data), base);
  EXPECT_LT(static_cast<const uint8_t*>(c->data), base + (*model)->size());
  std::remove(path.c_str());
}

TEST(Model, ReleasesResidentPagesOfTheFileOnlyAndReadsThemBack) {
  // 64 KiB of weights: releasing them drops whole pages of the mapping; reading afterwards gives
  // the file's bytes again. A model in memory, or a range outside the file, is left alone.
  ModelBuilder b;
  std::vector<float> w(16384);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) * 0.25f - 7.0f;
  const int x = b.AddTensor("x", TensorType::kFloat32, {16384});
  const int c = b.AddConstant("c", TensorType::kFloat32, {16384}, w);
  const int y = b.AddTensor("y", TensorType::kFloat32, {16384});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, c}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();
  const std::string path = ::testing::TempDir() + "/edgerun_release_test.tflite";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto interpreter = Interpreter::Create(*model);
  ASSERT_TRUE(interpreter.ok());
  const Tensor* weights = (*interpreter)->tensor(c);
  ASSERT_EQ(weights->bytes, w.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(weights->data, w.data(), weights->bytes), 0);
  const size_t released = (*model)->ReleaseResidentPages(weights->data, weights->bytes);
  EXPECT_GE(released, weights->bytes);
  EXPECT_EQ(released % 4096, 0u);
  EXPECT_EQ(std::memcmp(weights->data, w.data(), weights->bytes), 0);  // read back from the file
  EXPECT_EQ((*model)->ReleaseResidentPages(w.data(), 16), 0u);         // not in the mapping
  EXPECT_EQ((*model)->ReleaseResidentPages(weights->data, (*model)->size() + 1), 0u);  // runs past it
  std::remove(path.c_str());

  auto in_memory = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(in_memory.ok());
  auto second = Interpreter::Create(*in_memory);
  ASSERT_TRUE(second.ok());
  const Tensor* copied = (*second)->tensor(c);
  EXPECT_EQ((*in_memory)->ReleaseResidentPages(copied->data, copied->bytes), 0u);
  EXPECT_EQ(std::memcmp(copied->data, w.data(), copied->bytes), 0);
}

// Whole pages inside [data, data + bytes) that this process has mapped now (/proc/self/pagemap's
// "present" bit; mincore would report the page cache, which keeps the file's pages).
size_t PresentPages(const void* data, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + page - 1) / page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page;
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return SIZE_MAX;
  size_t present = 0;
  for (uintptr_t p = first; p < end; ++p) {
    uint64_t entry = 0;
    if (pread(fd, &entry, sizeof(entry), static_cast<off_t>(p * sizeof(entry))) != sizeof(entry)) present = SIZE_MAX;
    if (present != SIZE_MAX && (entry >> 63) != 0) ++present;
  }
  close(fd);
  return present;
}

TEST(Model, ReadingBytesNextToReleasedWeightsLeavesTheWeightsOut) {
  // Two 4 MiB filters with a small bias between them, as a converter lays out conv layers. After
  // both filters are released, the kernels still read the bias every run: that must map a few
  // pages around it, not the filters back. Kernels from 6.18 map a whole large page-cache folio
  // (up to 2 MiB) per read fault as far as the mapping reaches (seen here: 11.6 of a 13.3 MiB
  // model's pages back after its biases were read).
  ModelBuilder b;
  const std::vector<float> filter(1 << 20, 0.5f), bias(16, 0.25f);
  const int x = b.AddTensor("x", TensorType::kFloat32, {1 << 20});
  const int first = b.AddConstant("first", TensorType::kFloat32, {1 << 20}, filter);
  const int small = b.AddConstant("bias", TensorType::kFloat32, {16}, bias);
  const int second = b.AddConstant("second", TensorType::kFloat32, {1 << 20}, filter);
  const int y = b.AddTensor("y", TensorType::kFloat32, {1 << 20});
  const int z = b.AddTensor("z", TensorType::kFloat32, {1 << 20});
  const int s = b.AddTensor("s", TensorType::kFloat32, {16});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, first}, {y});
  b.AddOp(tflite::BuiltinOperator_ADD, {y, second}, {z});
  b.AddOp(tflite::BuiltinOperator_ADD, {small, small}, {s});
  b.SetInputs({x});
  b.SetOutputs({z, s});
  const auto bytes = b.Finish();
  const std::string path = ::testing::TempDir() + "/edgerun_release_neighbours_test.tflite";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto model = Model::FromFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto interpreter = Interpreter::Create(*model);
  ASSERT_TRUE(interpreter.ok());
  const Tensor* a = (*interpreter)->tensor(first);
  const Tensor* c = (*interpreter)->tensor(second);
  const Tensor* between = (*interpreter)->tensor(small);
  if (PresentPages(a->data, a->bytes) == SIZE_MAX) GTEST_SKIP() << "/proc/self/pagemap cannot be read";
  const auto range = [](const Tensor* t) {
    const auto* begin = static_cast<const uint8_t*>(t->data);
    return std::make_pair(begin, begin + t->bytes);
  };
  EXPECT_GE((*model)->ReleaseResidentPages({range(a), range(c)}), a->bytes + c->bytes);
  EXPECT_EQ(PresentPages(a->data, a->bytes) + PresentPages(c->data, c->bytes), 0u);
  float sum = 0;
  for (int i = 0; i < 16; ++i) sum += static_cast<const volatile float*>(between->data_as<float>())[i];
  EXPECT_EQ(sum, 4.0f);
  // Each filter has 1024 pages; a read fault maps at most 64 KiB (16 pages) around the bias.
  EXPECT_LE(PresentPages(a->data, a->bytes) + PresentPages(c->data, c->bytes), 32u);
  EXPECT_EQ(static_cast<const volatile float*>(c->data_as<float>())[12345], 0.5f);  // read back
}

// Weights that kernels packed into their own memory are not read from the file again: after
// AllocateTensors and the first Invoke, which release them in batches, the process no longer
// maps their pages, with the builtin kernels and with XNNPACK. The outputs are those of the same
// model run from memory, also after packing again from the released pages.
TEST(Model, PackedWeightsLeaveTheProcessAfterTheFirstRun) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 4, 4, 64});
  const int f1 = b.AddConstant("f1", TensorType::kFloat32, {256, 1, 1, 64}, testing::RandomFloats(256 * 64, 1));
  const int h = b.AddTensor("h", TensorType::kFloat32, {1, 4, 4, 256});
  const int f2 = b.AddConstant("f2", TensorType::kFloat32, {64, 1, 1, 256}, testing::RandomFloats(64 * 256, 2));
  const int y = b.AddTensor("y", TensorType::kFloat32, {1, 4, 4, 64});
  for (auto [in, filter, out] : {std::tuple{x, f1, h}, std::tuple{h, f2, y}}) {
    b.AddOp(tflite::BuiltinOperator_CONV_2D, {in, filter, -1}, {out}, tflite::BuiltinOptions_Conv2DOptions,
            ER_OPTIONS(tflite::CreateConv2DOptions(fbb, tflite::Padding_SAME, 1, 1)));
  }
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();
  const std::string path = ::testing::TempDir() + "/edgerun_packed_release_test.tflite";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const auto input = testing::RandomFloats(4 * 4 * 64, 3);
  for (bool xnnpack : {false, true}) {
    SCOPED_TRACE(xnnpack ? "XNNPACK" : "builtin");
    InterpreterOptions options;
    options.use_xnnpack = xnnpack;
    options.builtin_float_gemm_min_macs = 0;  // XNNPACK takes both convolutions
    std::vector<float> outputs[2];
    for (bool from_file : {true, false}) {
      auto model = from_file ? Model::FromFile(path) : Model::FromBufferCopy(bytes.data(), bytes.size());
      ASSERT_TRUE(model.ok()) << model.status().message();
      auto interpreter = Interpreter::Create(*model, options);
      ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
      ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
      testing::SetInput<float>(**interpreter, 0, input);
      ASSERT_TRUE((*interpreter)->Invoke().ok());
      outputs[from_file] = testing::GetOutput<float>(**interpreter, 0);
      if (!from_file) continue;
      for (int t : {f1, f2}) {
        const Tensor* filter = (*interpreter)->tensor(t);
        EXPECT_EQ(PresentPages(filter->data, filter->bytes), 0u) << filter->name;
      }
      // Released weights read back as the file's bytes when they are packed again: XNNPACK
      // builds a new runtime (and packs anew) after SetNumThreads.
      ASSERT_TRUE((*interpreter)->SetNumThreads(2).ok());
      ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
      testing::SetInput<float>(**interpreter, 0, input);
      ASSERT_TRUE((*interpreter)->Invoke().ok());
      EXPECT_EQ(testing::GetOutput<float>(**interpreter, 0), outputs[1]) << "packed again from the released pages";
    }
    EXPECT_EQ(outputs[0], outputs[1]);
  }
  std::remove(path.c_str());
}

TEST(Model, RejectsMissingFileWithItsName) {
  auto model = Model::FromFile("/nonexistent/dir/m.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("/nonexistent/dir/m.tflite"), std::string::npos);
}

TEST(Model, RejectsTextAndEmptyAndShortBuffers) {
  const std::string text = "this is not a flatbuffer at all";
  auto m1 = Model::FromBufferCopy(text.data(), text.size(), "text.tflite");
  ASSERT_FALSE(m1.ok());
  EXPECT_NE(m1.status().message().find("not a TFLite model"), std::string::npos) << m1.status().message();
  auto m2 = Model::FromBufferCopy("", 0, "empty");
  EXPECT_FALSE(m2.ok());
  auto m3 = Model::FromBufferCopy("TFL3", 4, "short");
  EXPECT_FALSE(m3.ok());
}

TEST(Model, RejectsEveryTruncation) {
  const auto bytes = AddModel();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto model = Model::FromBufferCopy(bytes.data(), n, "cut.tflite");
    if (!model.ok()) continue;
    // A cut that the verifier accepts (only trailing padding removed) must still run.
    EXPECT_TRUE(testing::TryBuild(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n)).ok()) << n;
  }
}

TEST(Model, SurvivesBitFlips) {
  const auto bytes = AddModel();
  for (size_t i = 8; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      auto copy = bytes;
      copy[i] ^= mask;
      // Any outcome but a crash is acceptable: an error, or a model that still runs.
      std::unique_ptr<Interpreter> interpreter;
      if (testing::TryBuild(copy, &interpreter).ok()) (void)interpreter->Invoke();
    }
  }
}

TEST(Model, RejectsWrongSchemaVersion) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1});
  b.SetInputs({x});
  b.SetOutputs({x});
  b.SetVersion(2);
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "v2.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("schema version 2"), std::string::npos);
}

TEST(Model, RejectsConstantOfWrongSize) {
  ModelBuilder b;
  const std::vector<float> w = {1, 2, 3};
  const int c = b.AddConstant("c", TensorType::kFloat32, {2}, w);  // 12 bytes for 2 floats
  b.SetInputs({});
  b.SetOutputs({c});
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "bad.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("tensor 0 'c'"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("needs 8"), std::string::npos) << model.status().message();
}

TEST(Model, RejectsOutOfRangeTensorIndexInOp) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_RELU, {x}, {7});
  b.SetInputs({x});
  b.SetOutputs({x});
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "bad.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("subgraph 0, op 0"), std::string::npos) << model.status().message();
}

TEST(Model, RejectsPerChannelScalesThatDoNotMatchTheShape) {
  ModelBuilder b;
  QuantizationParams q;
  q.scale = {0.1f, 0.2f, 0.3f};
  q.zero_point = {0, 0, 0};
  q.quantized_dimension = 0;
  const std::vector<int8_t> w = {1, 2};
  const int c = b.AddConstant("w", TensorType::kInt8, {2}, w, q);
  b.SetOutputs({c});
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "bad.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("per-channel"), std::string::npos) << model.status().message();
}

TEST(Model, ReadsBuiltinCodesAbove127) {
  // CUMSUM (128) is stored in builtin_code with deprecated_builtin_code = 127.
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {3});
  const int y = b.AddTensor("y", TensorType::kFloat32, {3});
  b.AddOp(tflite::BuiltinOperator_CUMSUM, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "cumsum.tflite");
  ASSERT_TRUE(model.ok());
  const auto* code = (*model)->fb()->operator_codes()->Get(0);
  EXPECT_EQ(code->deprecated_builtin_code(), 127);
  auto interpreter = Interpreter::Create(*model);
  if (!interpreter.ok()) {  // until CUMSUM exists: the error must name it, not "PLACEHOLDER"
    EXPECT_NE(interpreter.status().message().find("CUMSUM"), std::string::npos) << interpreter.status().message();
  }
}

}  // namespace
}  // namespace edgerun
