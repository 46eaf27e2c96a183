// ThreadPool's parallel regions (ThreadPool::RunRegion): inside one, each ParallelFor is a phase
// that the pool's other threads, spinning between phases, share with the calling thread. Every
// task must run exactly once per call, whoever runs it and however late a thread joins; calls
// that cannot be phases (nested, from another thread) run inline; the interpreter keeps delegates
// that use the pool's pthreadpool (XNNPACK) outside regions.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/subgraph.h"
#include "core/thread_pool.h"
#include "model/model_builder.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

int AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

TEST(ThreadPool, InterpretersStartNoMoreThreadsThanCpus) {
  EXPECT_EQ(UsableCpus(), AffinityCpus());
  EXPECT_EQ(ThreadsToStart(1), 1);
  EXPECT_EQ(ThreadsToStart(0), 1);
  EXPECT_EQ(ThreadsToStart(AffinityCpus() + 2), AffinityCpus());
  // The interpreter keeps the number asked for in its options and starts what the CPUs allow.
  testing::SingleOp op(tflite::BuiltinOperator_EXP);
  op.Input(TensorType::kFloat32, {1, 64});
  op.Output(TensorType::kFloat32);
  InterpreterOptions options;
  options.num_threads = AffinityCpus() + 1;
  auto interpreter = op.Build(options);
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->thread_pool()->num_threads(), AffinityCpus());
  EXPECT_EQ(interpreter->options().num_threads, AffinityCpus() + 1);
  ASSERT_TRUE(interpreter->SetNumThreads(AffinityCpus() + 3).ok());
  EXPECT_EQ(interpreter->thread_pool()->num_threads(), AffinityCpus());
}

// Runs ParallelFor(n) and checks that each task ran once.
void ExpectEachTaskOnce(ThreadPool& pool, int64_t n) {
  std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
  pool.ParallelFor(n, [&](int64_t t) { runs[static_cast<size_t>(t)].fetch_add(1, std::memory_order_relaxed); });
  int64_t wrong = 0;
  for (auto& r : runs) wrong += r.load() != 1;
  EXPECT_EQ(wrong, 0) << n << " tasks";
}

TEST(ThreadPoolRegion, EnabledWithSeveralThreadsOnEnoughCpus) {
  EXPECT_FALSE(ThreadPool(1).regions_enabled());
  EXPECT_EQ(ThreadPool(2).regions_enabled(), AffinityCpus() >= 2);
  // More threads than CPUs: a spinning thread would hold the CPU that the one it waits for needs.
  EXPECT_FALSE(ThreadPool(AffinityCpus() + 1).regions_enabled());
}

TEST(ThreadPoolRegion, EveryTaskOfEveryPhaseRunsOnce) {
  for (int threads : {2, 3, 4}) {
    // Past the CPUs there is no region, and pthreadpool's spinning threads share CPUs: slow.
    if (threads > 2 && threads > AffinityCpus()) continue;
    ThreadPool pool(threads);
    std::mt19937 rng(static_cast<uint32_t>(threads));
    bool in_region = false;
    pool.RunRegion([&] {
      in_region = ThreadPool::InRegion();
      for (int phase = 0; phase < 3000; ++phase) {
        // Mostly a few tasks (the hand-offs that regions are for), some many.
        const int64_t n = phase % 100 == 0 ? 1 + static_cast<int64_t>(rng() % 5000) : 1 + static_cast<int64_t>(rng() % 9);
        ExpectEachTaskOnce(pool, n);
        if (HasFailure()) return;
      }
    });
    EXPECT_EQ(in_region, pool.regions_enabled());
    EXPECT_FALSE(ThreadPool::InRegion());
    ExpectEachTaskOnce(pool, 17);  // and the pool works as before afterwards
  }
}

TEST(ThreadPoolRegion, TasksOfUnequalLengthAreShared) {
  // The first task takes long: its thread's other tasks go to the others (stealing), and the
  // call returns only when all are done.
  ThreadPool pool(2);
  pool.RunRegion([&] {
    for (int round = 0; round < 50; ++round) {
      std::vector<std::atomic<int>> runs(6);
      pool.ParallelFor(6, [&](int64_t t) {
        if (t == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        runs[static_cast<size_t>(t)].fetch_add(1);
      });
      for (auto& r : runs) ASSERT_EQ(r.load(), 1);
    }
  });
}

TEST(ThreadPoolRegion, CallsThatCannotBePhasesRunInline) {
  ThreadPool pool(2);
  // (Outside a region a task must not call its own pool: pthreadpool would wait for itself.)
  if (!pool.regions_enabled()) GTEST_SKIP() << "one CPU: no regions";
  pool.RunRegion([&] {
    // A task's own ParallelFor, on whichever thread runs it.
    std::atomic<int> inner{0};
    pool.ParallelFor(4, [&](int64_t) {
      pool.ParallelFor(5, [&](int64_t) { inner.fetch_add(1); });
    });
    EXPECT_EQ(inner.load(), 20);
    // Another thread's, while this pool's threads are held.
    std::atomic<int> other{0};
    std::thread([&] { pool.ParallelFor(7, [&](int64_t) { other.fetch_add(1); }); }).join();
    EXPECT_EQ(other.load(), 7);
    // A region inside the region is the same region.
    std::atomic<int> nested{0};
    pool.RunRegion([&] { pool.ParallelFor(9, [&](int64_t) { nested.fetch_add(1); }); });
    EXPECT_EQ(nested.load(), 9);
    ExpectEachTaskOnce(pool, 1000);
  });
}

TEST(ThreadPoolRegion, HugeTaskCountsAreCutIntoUnits) {
  // More tasks than a share word can count (2^24): units of several tasks.
  ThreadPool pool(2);
  const int64_t n = (int64_t{1} << 24) + 12345;
  std::vector<uint8_t> runs(static_cast<size_t>(n), 0);
  pool.RunRegion([&] { pool.ParallelFor(n, [&](int64_t t) { ++runs[static_cast<size_t>(t)]; }); });
  int64_t wrong = 0;
  for (uint8_t r : runs) wrong += r != 1;
  EXPECT_EQ(wrong, 0);
}

TEST(ThreadPoolRegion, AnExceptionLeavesTheRegionAndThePoolWorks) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.RunRegion([&] {
    ExpectEachTaskOnce(pool, 8);
    throw std::runtime_error("out of memory");
  }),
               std::runtime_error);
  EXPECT_FALSE(ThreadPool::InRegion());
  pool.RunRegion([&] { ExpectEachTaskOnce(pool, 8); });
  ExpectEachTaskOnce(pool, 8);
}

// x [64, 512] -> ADD(x, x) -> MUL(., x) -> `fcs` FULLY_CONNECTED 512 -> 512 -> ADD(., x) -> MUL(., x),
// without the ADD / MUL pairs when `binary_pairs` is false. On AVX2 / AVX-512 the fully connected
// layers (16.8 M multiply-adds each) stay on edgerun's GEMM, which splits them over the pool, and
// XNNPACK takes the ADD + MUL pairs.
std::vector<uint8_t> FullyConnectedChainModel(int fcs, bool binary_pairs) {
  ModelBuilder b;
  const auto f32 = TensorType::kFloat32;
  const Shape shape{64, 512};
  const int x = b.AddTensor("x", f32, shape);
  int value = x;
  auto pair = [&](const std::string& suffix) {
    const int sum = b.AddTensor("a" + suffix, f32, shape), product = b.AddTensor("m" + suffix, f32, shape);
    b.AddOp(tflite::BuiltinOperator_ADD, {value, x}, {sum}, tflite::BuiltinOptions_AddOptions,
            ER_OPTIONS(tflite::CreateAddOptions(fbb)));
    b.AddOp(tflite::BuiltinOperator_MUL, {sum, x}, {product}, tflite::BuiltinOptions_MulOptions,
            ER_OPTIONS(tflite::CreateMulOptions(fbb)));
    value = product;
  };
  if (binary_pairs) pair("1");
  for (int i = 0; i < fcs; ++i) {
    const std::string n = std::to_string(i);
    const int weights = b.AddConstant<float>("w" + n, f32, {512, 512}, testing::RandomFloats(512 * 512, 10 + i, -0.06f, 0.06f));
    const int out = b.AddTensor("fc" + n, f32, shape);
    b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {value, weights, -1}, {out},
            tflite::BuiltinOptions_FullyConnectedOptions, ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb)));
    value = out;
  }
  if (binary_pairs) pair("2");
  b.SetInputs({x});
  b.SetOutputs({value});
  return b.Finish();
}

InterpreterOptions TwoThreads(bool xnnpack, bool regions = true) {
  InterpreterOptions options;
  options.num_threads = 2;
  options.use_xnnpack = xnnpack;
  options.parallel_regions = regions;
  return options;
}

TEST(ThreadPoolRegion, DelegatesOnThePthreadpoolRunBetweenRegions) {
  if (AffinityCpus() < 2) GTEST_SKIP() << "one CPU: no regions";
  if (!XnnpackAvailable()) GTEST_SKIP() << "built without XNNPACK";
  const auto bytes = FullyConnectedChainModel(4, true);
  const auto input = testing::RandomFloats(64 * 512, 5);
  InterpreterOptions one;
  auto reference = testing::Build(bytes, one);
  auto threaded = testing::Build(bytes, TwoThreads(true));
  ASSERT_TRUE(reference && threaded);
  Subgraph& sg = *threaded->subgraph(0);
  for (Interpreter* interpreter : {reference.get(), threaded.get()}) {
    testing::SetInput<float>(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
  }
  // Plan: XNNPACK (ADD + MUL), 4 FULLY_CONNECTED on the pool, XNNPACK (ADD + MUL); the region
  // holds the four only.
  const auto& plan = sg.execution_plan();
  if (plan.size() == 1) GTEST_SKIP() << "XNNPACK took the fully connected layers too (no AVX2 here)";
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_FALSE(sg.nodes()[static_cast<size_t>(plan[0])].delegated_nodes.empty());
  EXPECT_FALSE(sg.nodes()[static_cast<size_t>(plan[5])].delegated_nodes.empty());
  for (size_t step = 1; step <= 4; ++step) ASSERT_EQ(sg.NodeThreads(plan[step]), 2);
  const auto regions = sg.ParallelRegions();
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0], (std::pair<size_t, size_t>{1, 5}));
  // The values of one thread (the GEMM's sums do not depend on the split), run after run.
  const auto expected = testing::GetOutput<float>(*reference, 0);
  for (int run = 0; run < 20; ++run) {
    ASSERT_TRUE(threaded->Invoke().ok());
    ASSERT_EQ(testing::GetOutput<float>(*threaded, 0), expected) << "run " << run;
  }
}

TEST(ThreadPoolRegion, FewParallelNodesKeepPlainDispatches) {
  // A region costs more than a dispatch to open and close: three parallel nodes keep their plain
  // dispatches, four share a region; the values are the same either way.
  if (AffinityCpus() < 2) GTEST_SKIP() << "one CPU: no regions";
  const auto input = testing::RandomFloats(64 * 512, 3);
  for (int count : {3, 4}) {
    std::vector<float> outputs[2];
    for (bool regions : {true, false}) {
      auto interpreter = testing::Build(FullyConnectedChainModel(count, false), TwoThreads(false, regions));
      ASSERT_TRUE(interpreter);
      testing::SetInput<float>(*interpreter, 0, input);
      ASSERT_TRUE(interpreter->Invoke().ok());
      Subgraph& sg = *interpreter->subgraph(0);
      for (int n : sg.execution_plan()) ASSERT_EQ(sg.NodeThreads(n), 2);
      const auto planned = sg.ParallelRegions();
      if (regions && count == 4) {
        ASSERT_EQ(planned.size(), 1u);
        EXPECT_EQ(planned[0], (std::pair<size_t, size_t>{0, 4}));
      } else {
        EXPECT_TRUE(planned.empty()) << count << " nodes, regions " << regions;
      }
      outputs[regions] = testing::GetOutput<float>(*interpreter, 0);
    }
    EXPECT_EQ(outputs[0], outputs[1]);
  }
}

TEST(ThreadPoolRegion, NodesWithoutACostModelDoNotCount) {
  // EXP keeps the pool (no cost model: it may or may not split), but four of them open no region.
  if (AffinityCpus() < 2) GTEST_SKIP() << "one CPU: no regions";
  ModelBuilder b;
  const Shape shape{1, 64, 64, 32};
  int value = b.AddTensor("x", TensorType::kFloat32, shape);
  const int x = value;
  for (int i = 0; i < 4; ++i) {
    const int out = b.AddTensor("e" + std::to_string(i), TensorType::kFloat32, shape);
    b.AddOp(tflite::BuiltinOperator_EXP, {value}, {out});
    value = out;
  }
  b.SetInputs({x});
  b.SetOutputs({value});
  auto interpreter = testing::Build(b.Finish(), TwoThreads(false));
  ASSERT_TRUE(interpreter);
  testing::SetInput<float>(*interpreter, 0, testing::RandomFloats(64 * 64 * 32, 4, -0.1f, 0.1f));
  ASSERT_TRUE(interpreter->Invoke().ok());
  Subgraph& sg = *interpreter->subgraph(0);
  for (int n : sg.execution_plan()) ASSERT_EQ(sg.NodeThreads(n), 2);
  EXPECT_TRUE(sg.ParallelRegions().empty());
}

}  // namespace
}  // namespace edgerun
