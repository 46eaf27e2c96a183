// WHILE, IF, CALL_ONCE, STABLEHLO_COMPOSITE and resource variables, on models from the builder.
// Conditions come from a small custom op so that these tests need nothing but control flow.
#include <gtest/gtest.h>

#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;

// Custom op "Below<N>": bool output = (first element of a float input < N), or
// (element count < N) for "CountBelow<N>".
OpRegistration BelowOp(const std::string& name, float limit, bool count) {
  OpRegistration r;
  r.name = name;
  r.prepare = [](OpContext& ctx) { return ctx.ResizeOutput(0, {}); };
  r.eval = [limit, count](OpContext& ctx) {
    const Tensor* in = ctx.input(0);
    const float value = count ? static_cast<float>(in->num_elements()) : in->data_as<float>()[0];
    *ctx.output(0)->data_as<bool>() = value < limit;
    return Status::Ok();
  };
  return r;
}

std::unique_ptr<Interpreter> BuildWith(const std::vector<uint8_t>& bytes, const std::vector<OpRegistration>& customs,
                                       InterpreterOptions options = {}, Status* error = nullptr) {
  auto model = Model::FromBufferCopy(bytes.data(), bytes.size(), "control_flow.tflite");
  if (!model.ok()) {  // the loader rejects some models (recursive subgraphs) before the interpreter
    EXPECT_NE(error, nullptr) << model.status().message();
    if (error) *error = model.status();
    return nullptr;
  }
  BuiltinOpResolver resolver;
  for (const auto& c : customs) resolver.AddCustom(c);
  auto interpreter = Interpreter::Create(*model, resolver, options);
  if (!interpreter.ok()) {
    if (error) *error = interpreter.status();
    return nullptr;
  }
  Status st = (*interpreter)->AllocateTensors();
  if (error) *error = st;
  if (!st.ok()) return nullptr;
  return std::move(*interpreter);
}

auto MulOptions() {
  return [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateMulOptions(fbb).Union(); };
}

// Subgraph 0: y = WHILE(x) with cond = Below(100) (subgraph 1), body = x * 2 (subgraph 2).
std::vector<uint8_t> DoublingLoop(int cond_index = 1, int body_index = 2) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {x}, {y}, tflite::BuiltinOptions_WhileOptions,
          [=](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateWhileOptions(fbb, cond_index, body_index).Union();
          });
  b.SetInputs({x});
  b.SetOutputs({y});
  b.AddSubgraph("cond");
  const int cx = b.AddTensor("x", TensorType::kFloat32, {1});
  const int keep = b.AddTensor("keep_going", TensorType::kBool, {});
  b.AddCustomOp("Below100", {cx}, {keep});
  b.SetInputs({cx});
  b.SetOutputs({keep});
  b.AddSubgraph("body");
  const int bx = b.AddTensor("x", TensorType::kFloat32, {1});
  const int two = b.AddConstant("two", TensorType::kFloat32, {1}, std::vector<float>{2});
  const int by = b.AddTensor("x2", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_MUL, {bx, two}, {by}, tflite::BuiltinOptions_MulOptions, MulOptions());
  b.SetInputs({bx});
  b.SetOutputs({by});
  return b.Finish();
}

TEST(While, LoopsUntilTheConditionFails) {
  auto interpreter = BuildWith(DoublingLoop(), {BelowOp("Below100", 100, false)});
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {3});
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{192}));  // 3,6,...,96,192
  SetInput<float>(*interpreter, 0, {500});  // the body never runs
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{500}));
}

TEST(While, IterationLimitIsAnError) {
  InterpreterOptions options;
  options.max_while_iterations = 50;
  auto interpreter = BuildWith(DoublingLoop(), {BelowOp("Below100", 1e30f, false)}, options);
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0});  // 0 * 2 stays 0: would loop forever
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("max_while_iterations"), std::string::npos) << st.message();
}

TEST(While, SubgraphCallingItselfIsAnError) {
  Status st;
  // The body is subgraph 0, the caller.
  EXPECT_FALSE(BuildWith(DoublingLoop(1, 0), {BelowOp("Below100", 100, false)}, {}, &st));
  // Refused by the loader's call-graph check (src/model/model.cc).
  EXPECT_NE(st.message().find("recursion is not allowed"), std::string::npos) << st.message();
}

TEST(While, IndirectRecursionIsAnError) {
  // Subgraph 0: WHILE(cond 1, body 2); subgraph 2 (body) has its own WHILE whose body is 2 again
  // through subgraph 3 -> 2: an endless chain of prepares without the guard.
  ModelBuilder b;
  auto add_while = [&](int cond, int body) {
    const int x = b.AddTensor("x", TensorType::kFloat32, {1});
    const int y = b.AddTensor("y", TensorType::kFloat32, {1});
    b.AddOp(tflite::BuiltinOperator_WHILE, {x}, {y}, tflite::BuiltinOptions_WhileOptions,
            [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateWhileOptions(fbb, cond, body).Union(); });
    b.SetInputs({x});
    b.SetOutputs({y});
  };
  add_while(1, 2);
  b.AddSubgraph("cond");
  const int cx = b.AddTensor("x", TensorType::kFloat32, {1});
  const int keep = b.AddTensor("keep", TensorType::kBool, {});
  b.AddCustomOp("Below100", {cx}, {keep});
  b.SetInputs({cx});
  b.SetOutputs({keep});
  b.AddSubgraph("body_a");
  add_while(1, 3);
  b.AddSubgraph("body_b");
  add_while(1, 2);
  Status st;
  EXPECT_FALSE(BuildWith(b.Finish(), {BelowOp("Below100", 100, false)}, {}, &st));
  EXPECT_NE(st.message().find("recursion is not allowed"), std::string::npos) << st.message();
}

TEST(While, LoopVariableThatGrowsMakesDynamicOutputs) {
  // body: x = concat(x, x); cond: count(x) < 8. [1] -> [2] -> [4] -> [8].
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_WHILE, {x}, {y}, tflite::BuiltinOptions_WhileOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateWhileOptions(fbb, 1, 2).Union(); });
  b.SetInputs({x});
  b.SetOutputs({y});
  b.AddSubgraph("cond");
  const int cx = b.AddTensor("x", TensorType::kFloat32, {1});
  const int keep = b.AddTensor("keep", TensorType::kBool, {});
  b.AddCustomOp("CountBelow8", {cx}, {keep});
  b.SetInputs({cx});
  b.SetOutputs({keep});
  b.AddSubgraph("body");
  const int bx = b.AddTensor("x", TensorType::kFloat32, {1});
  const int bxx = b.AddTensor("xx", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_CONCATENATION, {bx, bx}, {bxx}, tflite::BuiltinOptions_ConcatenationOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateConcatenationOptions(fbb, 0).Union(); });
  b.SetInputs({bx});
  b.SetOutputs({bxx});
  auto interpreter = BuildWith(b.Finish(), {BelowOp("CountBelow8", 8, true)});
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1.5f});
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{8}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), std::vector<float>(8, 1.5f));
}

TEST(If, RunsTheChosenBranch) {
  ModelBuilder b;
  const int c = b.AddTensor("c", TensorType::kBool, {});
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_IF, {c, x}, {y}, tflite::BuiltinOptions_IfOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateIfOptions(fbb, 1, 2).Union(); });
  b.SetInputs({c, x});
  b.SetOutputs({y});
  for (auto [op, value] : {std::pair{tflite::BuiltinOperator_ADD, 1.0f}, std::pair{tflite::BuiltinOperator_MUL, 3.0f}}) {
    b.AddSubgraph(op == tflite::BuiltinOperator_ADD ? "then" : "else");
    const int in = b.AddTensor("in", TensorType::kFloat32, {2});
    const int k = b.AddConstant("k", TensorType::kFloat32, {}, std::vector<float>{value});
    const int out = b.AddTensor("out", TensorType::kFloat32, {2});
    b.AddOp(op, {in, k}, {out});
    b.SetInputs({in});
    b.SetOutputs({out});
  }
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 1, {2, 5});
  interpreter->input(0)->data_as<bool>()[0] = true;
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{3, 6}));
  interpreter->input(0)->data_as<bool>()[0] = false;
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{6, 15}));
}

TEST(ResourceVariables, CallOnceInitialisesAnAccumulator) {
  // init (subgraph 1): v = [10, 20]. main: CALL_ONCE; out = read(v) + x; assign(v, out).
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2});
  const int handle = b.AddTensor("handle", TensorType::kResource, {});
  const int value = b.AddTensor("value", TensorType::kFloat32, {2});
  const int sum = b.AddTensor("sum", TensorType::kFloat32, {2});
  auto var_options = [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateVarHandleOptions(fbb, fbb.CreateString(""), fbb.CreateString("acc")).Union();
  };
  b.AddOp(tflite::BuiltinOperator_CALL_ONCE, {}, {}, tflite::BuiltinOptions_CallOnceOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateCallOnceOptions(fbb, 1).Union(); });
  b.AddOp(tflite::BuiltinOperator_VAR_HANDLE, {}, {handle}, tflite::BuiltinOptions_VarHandleOptions, var_options);
  b.AddOp(tflite::BuiltinOperator_READ_VARIABLE, {handle}, {value});
  b.AddOp(tflite::BuiltinOperator_ADD, {value, x}, {sum});
  b.AddOp(tflite::BuiltinOperator_ASSIGN_VARIABLE, {handle, sum}, {});
  b.SetInputs({x});
  b.SetOutputs({sum});
  b.AddSubgraph("init");
  const int h = b.AddTensor("handle", TensorType::kResource, {});
  const int init = b.AddConstant("init", TensorType::kFloat32, {2}, std::vector<float>{10, 20});
  b.AddOp(tflite::BuiltinOperator_VAR_HANDLE, {}, {h}, tflite::BuiltinOptions_VarHandleOptions, var_options);
  b.AddOp(tflite::BuiltinOperator_ASSIGN_VARIABLE, {h, init}, {});
  b.SetInputs({});
  b.SetOutputs({});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2});
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{11, 22}));
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{12, 24}));
}

TEST(ResourceVariables, ReadBeforeAssignIsAnError) {
  ModelBuilder b;
  const int handle = b.AddTensor("handle", TensorType::kResource, {});
  const int value = b.AddTensor("value", TensorType::kFloat32, {2});
  b.AddOp(tflite::BuiltinOperator_VAR_HANDLE, {}, {handle}, tflite::BuiltinOptions_VarHandleOptions,
          [](flatbuffers::FlatBufferBuilder& fbb) {
            return tflite::CreateVarHandleOptions(fbb, 0, fbb.CreateString("never")).Union();
          });
  b.AddOp(tflite::BuiltinOperator_READ_VARIABLE, {handle}, {value});
  b.SetInputs({});
  b.SetOutputs({value});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("before anything assigned"), std::string::npos) << st.message();
}

TEST(StablehloComposite, RunsItsDecomposition) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {3});
  const int y = b.AddTensor("y", TensorType::kFloat32, {3});
  b.AddOp2(tflite::BuiltinOperator_STABLEHLO_COMPOSITE, {x}, {y}, tflite::BuiltinOptions2_StableHLOCompositeOptions,
           [](flatbuffers::FlatBufferBuilder& fbb) {
             return tflite::CreateStableHLOCompositeOptions(fbb, fbb.CreateString("test.square"), 1).Union();
           });
  b.SetInputs({x});
  b.SetOutputs({y});
  b.AddSubgraph("decomposition");
  const int dx = b.AddTensor("x", TensorType::kFloat32, {3});
  const int dy = b.AddTensor("y", TensorType::kFloat32, {3});
  b.AddOp(tflite::BuiltinOperator_MUL, {dx, dx}, {dy});
  b.SetInputs({dx});
  b.SetOutputs({dy});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, -2, 3});
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 4, 9}));
}

}  // namespace
}  // namespace edgerun
