// ThreadPool's parallel regions (ThreadPool::RunRegion): inside one, each ParallelFor is a phase
// that the pool's other threads, spinning between phases, share with the calling thread. Every
// task must run exactly once per call, whoever runs it and however late a thread joins; calls
// that cannot be phases (nested, from another thread) run inline; the interpreter keeps delegates
// that use the pool's pthreadpool (XNNPACK) outside regions.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cmath>
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

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
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
  EXPECT_EQ(ThreadPool(2).regions_enabled(), UsableCpus() >= 2);
  // More threads than CPUs: a spinning thread would hold the CPU that the one it waits for needs.
  EXPECT_FALSE(ThreadPool(UsableCpus() + 1).regions_enabled());
}

TEST(ThreadPoolRegion, EveryTaskOfEveryPhaseRunsOnce) {
  for (int threads : {2, 3, 4}) {
    // Past the CPUs there is no region, and pthreadpool's spinning threads share CPUs: slow.
    if (threads > 2 && threads > UsableCpus()) continue;
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

// x -> ADD(x, x) -> MUL(., x) -> EXP x 4 -> ADD(., x) -> MUL(., x): XNNPACK takes the ADD + MUL
// pairs (this XNNPACK has no EXP), the builtin EXPs between them split their values over the pool
// (four parallel nodes: enough for a region).
std::vector<uint8_t> DelegatedAroundBuiltinModel(const Shape& shape) {
  ModelBuilder b;
  const auto f32 = TensorType::kFloat32;
  const int x = b.AddTensor("x", f32, shape);
  int value = x;
  auto binary = [&](tflite::BuiltinOperator code, const char* name) {
    const int out = b.AddTensor(name, f32, shape);
    if (code == tflite::BuiltinOperator_ADD) {
      b.AddOp(code, {value, x}, {out}, tflite::BuiltinOptions_AddOptions, ER_OPTIONS(tflite::CreateAddOptions(fbb)));
    } else {
      b.AddOp(code, {value, x}, {out}, tflite::BuiltinOptions_MulOptions, ER_OPTIONS(tflite::CreateMulOptions(fbb)));
    }
    value = out;
  };
  auto exp = [&](const char* name) {
    const int out = b.AddTensor(name, f32, shape);
    b.AddOp(tflite::BuiltinOperator_EXP, {value}, {out});
    value = out;
  };
  binary(tflite::BuiltinOperator_ADD, "a1");
  binary(tflite::BuiltinOperator_MUL, "m1");
  exp("e1");
  exp("e2");
  exp("e3");
  exp("e4");
  binary(tflite::BuiltinOperator_ADD, "a2");
  binary(tflite::BuiltinOperator_MUL, "m2");
  b.SetInputs({x});
  b.SetOutputs({value});
  return b.Finish();
}

TEST(ThreadPoolRegion, DelegatesOnThePthreadpoolRunBetweenRegions) {
  if (UsableCpus() < 2) GTEST_SKIP() << "one CPU: no regions";
  const Shape shape{1, 64, 64, 32};  // 131 K values: the EXPs split them
  const auto bytes = DelegatedAroundBuiltinModel(shape);
  // Small values: e^e^e^e^(2 x^2) stays finite.
  const auto input = testing::RandomFloats(static_cast<size_t>(NumElements(shape)), 5, -0.1f, 0.1f);
  InterpreterOptions one, two;
  one.num_threads = 1;
  two.num_threads = 2;
  auto reference = testing::Build(bytes, one);
  auto threaded = testing::Build(bytes, two);
  ASSERT_TRUE(reference && threaded);
  Subgraph& sg = *threaded->subgraph(0);
  for (Interpreter* interpreter : {reference.get(), threaded.get()}) {
    testing::SetInput<float>(*interpreter, 0, input);
    ASSERT_TRUE(interpreter->Invoke().ok());
  }
  // Plan: XNNPACK node, 4 EXPs, XNNPACK node; the region holds the EXPs only.
  const auto& plan = sg.execution_plan();
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_FALSE(sg.nodes()[static_cast<size_t>(plan[0])].delegated_nodes.empty());
  EXPECT_FALSE(sg.nodes()[static_cast<size_t>(plan[5])].delegated_nodes.empty());
  ASSERT_EQ(sg.NodeThreads(plan[1]), 2);
  const auto regions = sg.ParallelRegions();
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0], (std::pair<size_t, size_t>{1, 5}));
  for (float v : testing::GetOutput<float>(*reference, 0)) ASSERT_TRUE(std::isfinite(v));
  // The same values as on one thread, run after run.
  const auto expected = testing::GetOutput<float>(*reference, 0);
  for (int run = 0; run < 20; ++run) {
    ASSERT_TRUE(threaded->Invoke().ok());
    ASSERT_EQ(testing::GetOutput<float>(*threaded, 0), expected) << "run " << run;
  }
}

// x -> EXP -> EXP ...: `count` nodes that each split 131 K values over the pool.
std::vector<uint8_t> ExpChainModel(int count) {
  ModelBuilder b;
  const Shape shape{1, 64, 64, 32};
  int value = b.AddTensor("x", TensorType::kFloat32, shape);
  const int x = value;
  for (int i = 0; i < count; ++i) {
    const int out = b.AddTensor("e" + std::to_string(i), TensorType::kFloat32, shape);
    b.AddOp(tflite::BuiltinOperator_EXP, {value}, {out});
    value = out;
  }
  b.SetInputs({x});
  b.SetOutputs({value});
  return b.Finish();
}

TEST(ThreadPoolRegion, FewParallelNodesKeepPlainDispatches) {
  // A region costs more than a dispatch to open and close: three parallel nodes keep their plain
  // dispatches, four share a region; the values are the same either way.
  if (UsableCpus() < 2) GTEST_SKIP() << "one CPU: no regions";
  const auto input = testing::RandomFloats(64 * 64 * 32, 3, -0.1f, 0.1f);
  for (int count : {3, 4}) {
    std::vector<float> outputs[2];
    for (bool regions : {true, false}) {
      InterpreterOptions two;
      two.num_threads = 2;
      two.use_xnnpack = false;
      two.parallel_regions = regions;
      auto interpreter = testing::Build(ExpChainModel(count), two);
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

}  // namespace
}  // namespace edgerun
