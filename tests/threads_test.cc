// Which nodes split their work over the interpreter's threads (Subgraph::NodeThreads,
// core/node_work.h): an op of a few microseconds runs on the calling thread alone, since handing
// it out would cost more than sharing it saves.
#include <gtest/gtest.h>

#include "core/node_work.h"
#include "core/subgraph.h"
#include "core/thread_pool.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

std::vector<uint8_t> UnaryOrBinaryModel(tflite::BuiltinOperator code, int inputs, const Shape& shape) {
  testing::SingleOp op(code);
  for (int i = 0; i < inputs; ++i) op.Input(TensorType::kFloat32, shape);
  op.Output(TensorType::kFloat32);
  return op.Bytes();
}

InterpreterOptions Threads(int n) {
  InterpreterOptions options;
  options.num_threads = n;
  options.use_xnnpack = false;
  return options;
}

// The model of ParallelFor's schedule that the kernels cut their work by: contiguous shares,
// then stealing from the end of the nearest thread before.
TEST(Threads, ScheduledFinishFollowsSharesThenStealing) {
  const std::vector<double> nine(9, 1.0), eight(8, 1.0);
  EXPECT_DOUBLE_EQ(ScheduledFinish(nine.data(), 9, 2), 5.0);
  EXPECT_DOUBLE_EQ(ScheduledFinish(eight.data(), 8, 2), 4.0);
  EXPECT_DOUBLE_EQ(ScheduledFinish(eight.data(), 8, 1), 8.0);
  EXPECT_DOUBLE_EQ(ScheduledFinish(eight.data(), 3, 8), 1.0);  // more threads than tasks
  EXPECT_DOUBLE_EQ(ScheduledFinish(nine.data(), 0, 2), 0.0);
  // Shares {5, 1} and {1, 1}: the second thread takes the first's unstarted 1, not its 5.
  const std::vector<double> uneven{5, 1, 1, 1};
  EXPECT_DOUBLE_EQ(ScheduledFinish(uneven.data(), 4, 2), 5.0);
  // Shares {3, 3} and {1, 1}: the second, free at 2, takes the first's unstarted 3.
  const std::vector<double> steal{3, 3, 1, 1};
  EXPECT_DOUBLE_EQ(ScheduledFinish(steal.data(), 4, 2), 5.0);
  // Shares {1, 1, 4} and {1, 1}: the first has started its 4 when the second is free.
  const std::vector<double> started{1, 1, 4, 1, 1};
  EXPECT_DOUBLE_EQ(ScheduledFinish(started.data(), 5, 2), 6.0);
}

TEST(Threads, AHandOffPaysOnlyForWorkLargerThanItCosts) {
  EXPECT_FALSE(WorthSplitting(8000, 1, 2));  // saves 4 us, costs 5
  EXPECT_TRUE(WorthSplitting(12000, 1, 2));
  EXPECT_TRUE(WorthSplitting(8000, 1, 4));  // saves 6 us
  EXPECT_FALSE(WorthSplitting(1e6, 1, 1));  // one thread: nothing to share
  // A delegate's node hands out each of the operators it runs.
  EXPECT_FALSE(WorthSplitting(100000, 20, 2));
  EXPECT_TRUE(WorthSplitting(100000, 9, 2));
}

TEST(Threads, SmallNodesRunOnTheCallingThread) {
  const auto small_add = UnaryOrBinaryModel(tflite::BuiltinOperator_ADD, 2, {1, 8, 8, 4});       // 768 values
  const auto large_add = UnaryOrBinaryModel(tflite::BuiltinOperator_ADD, 2, {1, 128, 128, 32});  // 512 K
  auto small = testing::Build(small_add, Threads(2));
  auto large = testing::Build(large_add, Threads(2));
  ASSERT_TRUE(small && large);
  EXPECT_EQ(small->subgraph(0)->NodeThreads(0), 1);
  EXPECT_EQ(large->subgraph(0)->NodeThreads(0), 2);
  // Kernels see it as a null pool, which ParallelFor runs on the caller.
  EXPECT_EQ(OpContext(small->subgraph(0), 0).thread_pool(), nullptr);
  EXPECT_EQ(OpContext(large->subgraph(0), 0).thread_pool(), large->thread_pool());

  // Re-judged when the shapes change.
  ASSERT_TRUE(small->ResizeInputTensor(0, {1, 128, 128, 32}).ok());
  ASSERT_TRUE(small->ResizeInputTensor(1, {1, 128, 128, 32}).ok());
  ASSERT_TRUE(small->AllocateTensors().ok());
  EXPECT_EQ(small->subgraph(0)->NodeThreads(0), 2);

  // One thread: the pool of one is what kernels get, as before.
  auto single = testing::Build(small_add, Threads(1));
  ASSERT_TRUE(single);
  EXPECT_EQ(single->subgraph(0)->NodeThreads(0), 1);
  EXPECT_EQ(OpContext(single->subgraph(0), 0).thread_pool(), single->thread_pool());
}

TEST(Threads, OpsWithoutACostModelKeepThePool) {
  // TANH's time per value depends on the kernel and the type; it is not judged small.
  auto tanh = testing::Build(UnaryOrBinaryModel(tflite::BuiltinOperator_TANH, 1, {1, 4}), Threads(2));
  ASSERT_TRUE(tanh);
  EXPECT_LT(EstimateSerialNs(*tanh->subgraph(0), 0), 0);
  EXPECT_EQ(tanh->subgraph(0)->NodeThreads(0), 2);
}

TEST(Threads, SmallAndLargeNodesGiveTheSameResultsOnAnyThreadCount) {
  // Element-wise ops of equal shapes: a large one is split into blocks over the pool.
  struct Op {
    tflite::BuiltinOperator code;
    float (*fn)(float, float);
  };
  const Op ops[] = {{tflite::BuiltinOperator_ADD, [](float a, float b) { return a + b; }},
                    {tflite::BuiltinOperator_SUB, [](float a, float b) { return a - b; }},
                    {tflite::BuiltinOperator_MUL, [](float a, float b) { return a * b; }}};
  for (const Op& op : ops) {
    for (const Shape& shape : {Shape{1, 8, 8, 4}, Shape{1, 128, 128, 32}, Shape{1, 7, 7, 513}}) {
      const auto bytes = UnaryOrBinaryModel(op.code, 2, shape);
      auto one = testing::Build(bytes, Threads(1));
      auto two = testing::Build(bytes, Threads(2));
      ASSERT_TRUE(one && two);
      const size_t n = static_cast<size_t>(NumElements(shape));
      const std::vector<float> a = testing::RandomFloats(n, 1), b = testing::RandomFloats(n, 2);
      for (Interpreter* interpreter : {one.get(), two.get()}) {
        testing::SetInput<float>(*interpreter, 0, a);
        testing::SetInput<float>(*interpreter, 1, b);
        ASSERT_TRUE(interpreter->Invoke().ok());
      }
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) want[i] = op.fn(a[i], b[i]);
      EXPECT_EQ(testing::GetOutput<float>(*one, 0), want) << tflite::EnumNameBuiltinOperator(op.code);
      EXPECT_EQ(testing::GetOutput<float>(*two, 0), want) << tflite::EnumNameBuiltinOperator(op.code);
    }
  }
}

}  // namespace
}  // namespace edgerun
