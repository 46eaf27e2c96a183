// The interpreter: allocation, resizing, signatures, custom ops, dynamic tensors, errors.
#include <gtest/gtest.h>

#include <set>

#include "ops/registry.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

using testing::Build;
using testing::GetOutput;
using testing::SetInput;

// y = relu(x + c) with x of shape [-1, 2].
std::vector<uint8_t> AddReluModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 2}, {}, {-1, 2});
  const std::vector<float> cv = {1.0f, -1.0f};
  const int c = b.AddConstant("c", TensorType::kFloat32, {2}, cv);
  const int s = b.AddTensor("sum", TensorType::kFloat32, {1, 2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1, 2});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, c}, {s});
  b.AddOp(tflite::BuiltinOperator_RELU, {s}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

TEST(Interpreter, RunsTwoOps) {
  auto interpreter = Build(AddReluModel());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0.5f, 0.5f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1.5f, 0.0f}));
  EXPECT_GT(interpreter->arena_bytes(), 0u);
  EXPECT_EQ(interpreter->input_position("x"), 0);
  EXPECT_EQ(interpreter->output_position("y"), 0);
  EXPECT_EQ(interpreter->input_position("nope"), -1);
}

TEST(Interpreter, ResizesDynamicBatch) {
  auto interpreter = Build(AddReluModel());
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->ResizeInputTensor(0, {3, 2}).ok());
  EXPECT_FALSE(interpreter->Invoke().ok());  // AllocateTensors must come first
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  SetInput<float>(*interpreter, 0, {0, 0, 1, 1, -5, 5});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 0, 2, 0, 0, 4}));
}

TEST(Interpreter, RejectsResizeOutsideTheSignature) {
  auto interpreter = Build(AddReluModel());
  ASSERT_TRUE(interpreter);
  const Status st = interpreter->ResizeInputTensor(0, {3, 3});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[-1,2]"), std::string::npos) << st.message();
  EXPECT_FALSE(interpreter->ResizeInputTensor(5, {1, 2}).ok());
}

TEST(Interpreter, UnsupportedOpIsNamedWithVersionAndIndex) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  const int z = b.AddTensor("z", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_RELU, {x}, {y});
  b.AddOp(tflite::BuiltinOperator_RELU, {y}, {z}, tflite::BuiltinOptions_NONE, nullptr, /*version=*/99);
  b.SetInputs({x});
  b.SetOutputs({z});
  const Status st = testing::TryBuild(b.Finish());
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.unsupported());
  EXPECT_NE(st.message().find("op 1 (RELU v99)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("version"), std::string::npos) << st.message();
}

TEST(Interpreter, UnregisteredCustomOpIsALoadError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.AddCustomOp("MyOp", {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status st = testing::TryBuild(b.Finish());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'MyOp'"), std::string::npos) << st.message();
}

TEST(Interpreter, RunsARegisteredCustomOp) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {3});
  const int y = b.AddTensor("y", TensorType::kFloat32, {3});
  b.AddCustomOp("Double", {x}, {y}, {7});
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();

  OpRegistration reg;
  reg.name = "Double";
  reg.init = [](OpContext& ctx) -> void* {
    size_t size;
    const uint8_t* options = ctx.custom_options(&size);
    return new int(size == 1 ? options[0] : -1);
  };
  reg.free = [](void* p) { delete static_cast<int*>(p); };
  reg.prepare = [](OpContext& ctx) { return ctx.ResizeOutput(0, ctx.input(0)->shape); };
  reg.eval = [](OpContext& ctx) {
    const float* in = ctx.input(0)->data_as<float>();
    float* out = ctx.output(0)->data_as<float>();
    const int extra = *static_cast<int*>(ctx.user_data());
    for (int i = 0; i < 3; ++i) out[i] = 2 * in[i] + static_cast<float>(extra);
    return Status::Ok();
  };
  BuiltinOpResolver resolver;
  resolver.AddCustom(reg);
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  auto interpreter = Interpreter::Create(*model, resolver);
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
  SetInput<float>(**interpreter, 0, {1, 2, 3});
  ASSERT_TRUE((*interpreter)->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(**interpreter, 0), (std::vector<float>{9, 11, 13}));
}

// The resolver finds builtin ops by the code written on each line of builtin_ops.inc, without
// building the registration; the line and the Register function must agree.
TEST(Interpreter, EachRegistryLineNamesTheCodeItsOpRegisters) {
  std::set<int32_t> codes;
  for (const ops::BuiltinEntry& entry : ops::BuiltinTable()) {
    const OpRegistration made = entry.make();
    EXPECT_EQ(made.builtin_code, entry.code) << made.name;
    EXPECT_TRUE(codes.insert(entry.code).second) << "two registry lines for " << made.name;
    const OpRegistration* cached = ops::BuiltinRegistration(entry.code);
    ASSERT_NE(cached, nullptr) << made.name;
    EXPECT_EQ(cached, ops::BuiltinRegistration(entry.code)) << "built once";
    EXPECT_EQ(cached->name, made.name);
  }
  EXPECT_EQ(ops::BuiltinRegistrations().size(), ops::BuiltinTable().size());
  EXPECT_EQ(ops::BuiltinRegistration(-1), nullptr);
  EXPECT_EQ(ops::BuiltinRegistration(1 << 20), nullptr);
  int32_t missing = 0;
  while (codes.count(missing)) ++missing;
  BuiltinOpResolver resolver;
  std::string why;
  EXPECT_EQ(resolver.FindBuiltin(missing, 1, &why), nullptr);
  EXPECT_NE(why.find("no kernel"), std::string::npos) << why;
  EXPECT_EQ(resolver.FindBuiltin(tflite::BuiltinOperator_ADD, 99, &why), nullptr);
  EXPECT_NE(why.find("version 99"), std::string::npos) << why;
}

TEST(Interpreter, AddBuiltinReplacesTheKernelOfOneResolver) {
  OpRegistration sub = *ops::BuiltinRegistration(tflite::BuiltinOperator_SUB);
  sub.builtin_code = tflite::BuiltinOperator_ADD;
  sub.name = "ADD";
  BuiltinOpResolver replaced;
  replaced.AddBuiltin(sub);
  InterpreterOptions options;
  options.use_xnnpack = false;
  const std::vector<uint8_t> bytes = AddReluModel();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  for (bool replace : {true, false}) {
    BuiltinOpResolver plain;
    auto interpreter = Interpreter::Create(*model, replace ? replaced : plain, options);
    ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
    ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
    SetInput<float>(**interpreter, 0, {0.5f, 0.5f});
    ASSERT_TRUE((*interpreter)->Invoke().ok());
    // x - c = {-0.5, 1.5} with the replacement, x + c = {1.5, -0.5} without; then relu.
    EXPECT_EQ(GetOutput<float>(**interpreter, 0),
              replace ? (std::vector<float>{0.0f, 1.5f}) : (std::vector<float>{1.5f, 0.0f}));
  }
}

TEST(Interpreter, SignaturesRunTheirOwnSubgraph) {
  ModelBuilder b;
  // subgraph 0: add; subgraph 1: sub
  for (auto op : {tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_SUB}) {
    if (op == tflite::BuiltinOperator_SUB) b.AddSubgraph("sub");
    const int x = b.AddTensor("x", TensorType::kFloat32, {2});
    const int y = b.AddTensor("y", TensorType::kFloat32, {2});
    const int z = b.AddTensor("z", TensorType::kFloat32, {2});
    b.AddOp(op, {x, y}, {z});
    b.SetInputs({x, y});
    b.SetOutputs({z});
  }
  b.AddSignature("add", 0, {{"a", 0}, {"b", 1}}, {{"out", 2}});
  b.AddSignature("sub", 1, {{"a", 0}, {"b", 1}}, {{"out", 2}});
  auto interpreter = Build(b.Finish());
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->signature_keys(), (std::vector<std::string>{"add", "sub"}));
  EXPECT_EQ(interpreter->GetSignatureRunner("nope"), nullptr);
  SignatureRunner* sub = interpreter->GetSignatureRunner("sub");
  ASSERT_NE(sub, nullptr);
  ASSERT_TRUE(sub->AllocateTensors().ok());
  const float a[2] = {5, 7}, c[2] = {1, 2};
  std::memcpy(sub->input("a")->data, a, 8);
  std::memcpy(sub->input("b")->data, c, 8);
  ASSERT_TRUE(sub->Invoke().ok());
  EXPECT_EQ(sub->output("out")->data_as<float>()[0], 4.0f);
  EXPECT_EQ(sub->output("out")->data_as<float>()[1], 5.0f);
  EXPECT_EQ(sub->input("nope"), nullptr);
}

TEST(Interpreter, ReadingATensorNobodyWritesIsAnError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int ghost = b.AddTensor("ghost", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, ghost}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const Status st = testing::TryBuild(b.Finish());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'ghost'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("op 0 (ADD v1)"), std::string::npos) << st.message();
}

TEST(Interpreter, DynamicShapeFlowsDownstream) {
  // RESHAPE with a shape computed at run time: the ops after it are prepared at Invoke.
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2, 3});
  const int shape = b.AddTensor("shape", TensorType::kInt32, {2});
  const int r = b.AddTensor("r", TensorType::kFloat32, {3, 2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {3, 2});
  b.AddOp(tflite::BuiltinOperator_RESHAPE, {x, shape}, {r});
  b.AddOp(tflite::BuiltinOperator_RELU, {r}, {y});
  b.SetInputs({x, shape});
  b.SetOutputs({y});
  auto interpreter = Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-1, 2, -3, 4, -5, 6});
  SetInput<int32_t>(*interpreter, 1, {3, -1});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 2, 0, 4, 0, 6}));
  SetInput<int32_t>(*interpreter, 1, {1, 6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 6}));
  SetInput<int32_t>(*interpreter, 1, {4, 4});
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("RESHAPE"), std::string::npos) << st.message();
}

TEST(Interpreter, TensorLimitIsAnErrorNotAnAllocation) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1 << 20, 1 << 10});  // 4 GiB
  const int y = b.AddTensor("y", TensorType::kFloat32, {1 << 20, 1 << 10});
  b.AddOp(tflite::BuiltinOperator_RELU, {x}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const auto bytes = b.Finish();
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  InterpreterOptions options;
  options.max_tensor_bytes = 1 << 20;
  auto interpreter = Interpreter::Create(*model, options);
  ASSERT_TRUE(interpreter.ok());
  const Status st = (*interpreter)->AllocateTensors();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("max_tensor_bytes"), std::string::npos) << st.message();
}

TEST(Interpreter, VariablesStartAtZeroAndReset) {
  // acc = acc + x through ADD into a variable is not expressible without ASSIGN_VARIABLE, so
  // check the initial value and the reset of a variable read by an op.
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int v = b.AddVariable("state", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, v}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  auto interpreter = Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 2}));
  interpreter->tensor(v)->data_as<float>()[0] = 10;
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0)[0], 11.0f);
  ASSERT_TRUE(interpreter->ResetVariableTensors().ok());
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*interpreter, 0)[0], 1.0f);
}

}  // namespace
}  // namespace edgerun
